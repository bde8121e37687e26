"""The conformance suite under pytest: every scenario against our server on stdio and HTTP,
or against any server an SDK author names.

    pytest tests/conformance                                        # our server, stdio and HTTP
    pytest tests/conformance --server-cmd "node dist/server.js"     # your server, stdio
    pytest tests/conformance --server-url http://127.0.0.1:3000/mcp # your server, HTTP
    MCP_CONFORMANCE_SERVER_URL=... pytest tests/conformance         # the same, by environment

More options: --conformance-call TOOL=JSON and --conformance-error-call TOOL=JSON (or
MCP_CONFORMANCE_CALLS / MCP_CONFORMANCE_ERROR_CALLS as a JSON object {tool: arguments}),
--conformance-established TOOL (or MCP_CONFORMANCE_ESTABLISHED=TOOL,TOOL),
--conformance-scorecard DIR (one scorecard per target), --conformance-allow-skips (a required
scenario your server cannot show is a skip, not a failure), MCP_CONFORMANCE_TRANSPORTS=stdio
(only one transport of our server). The suite itself lives in mcp_variants.conformance;
these files only hand its verdicts to pytest.
"""

from __future__ import annotations

import json
import os
import shlex
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.binding import CallConfig
from mcp_variants.conformance.runner import RunConfig, all_vectors, run
from mcp_variants.conformance.wire import HttpTarget, LaunchedServer, StdioTarget, Target, TargetError
from mcp_variants.processes import ProcessStartError
from support.servers import HttpServer, serve_command

HERE = Path(__file__).resolve().parent
BROKEN = HERE / "broken"
ENV = "MCP_CONFORMANCE_"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "SEP-3279 conformance suite")
    group.addoption("--server-cmd", default=None, help="run the conformance scenarios against this stdio server command")
    group.addoption("--server-url", default=None, help="run them against this streamable HTTP endpoint")
    group.addoption("--conformance-call", action="append", default=[], metavar="TOOL=JSON", help="arguments with which TOOL succeeds")
    group.addoption("--conformance-error-call", action="append", default=[], metavar="TOOL=JSON",
                    help="arguments with which TOOL fails with isError")
    group.addoption("--conformance-established", action="append", default=[], metavar="TOOL",
                    help="TOOL served older clients before it declared variants: its legacy outputSchema is its established one "
                         "(see mcp-variants check --established)")
    group.addoption("--conformance-scorecard", default=None, metavar="DIR", help="write one JSON scorecard per target here")
    group.addoption("--conformance-allow-skips", action="store_true", default=False,
                    help="a required scenario the server cannot show is a pytest skip, not a failure [MCP_CONFORMANCE_ALLOW_SKIPS=1]")


def _option(config: pytest.Config, name: str, env: str) -> Any:
    value = config.getoption(name, default=None)
    return value if value else os.environ.get(ENV + env) or None


def _calls(config: pytest.Config, option: str, env: str) -> dict[str, dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = json.loads(os.environ.get(ENV + env) or "{}")
    for item in config.getoption(option, default=[]) or []:
        name, _, raw = item.partition("=")
        calls[name] = json.loads(raw or "{}")
    return calls


def _established(config: pytest.Config) -> list[str]:
    """--conformance-established TOOL (repeatable) and MCP_CONFORMANCE_ESTABLISHED (comma-separated)."""
    named = [n.strip() for n in (os.environ.get(ENV + "ESTABLISHED") or "").split(",") if n.strip()]
    return list(dict.fromkeys([*named, *(config.getoption("--conformance-established", default=[]) or [])]))


def external(config: pytest.Config) -> dict[str, str | None] | None:
    """The server an SDK author named, or None for ours."""
    cmd = _option(config, "--server-cmd", "SERVER_CMD")
    url = _option(config, "--server-url", "SERVER_URL")
    return {"cmd": cmd, "url": url} if cmd or url else None


def target_labels(config: pytest.Config) -> list[str]:
    spec = external(config)
    if spec:
        return ["external-http" if spec["url"] else "external-stdio"]
    wanted = os.environ.get(ENV + "TRANSPORTS", "stdio,http")
    return [t for t in ("stdio", "http") if t in wanted.split(",")]


def server_ids() -> list[str]:
    return [v["id"] for v in all_vectors() if v["kind"] == "server"]


def client_ids() -> list[str]:
    return [v["id"] for v in all_vectors() if v["kind"] == "client"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "server_scenario" in metafunc.fixturenames:
        params = [pytest.param(label, sid, id=f"{label}-{sid}") for label in target_labels(metafunc.config) for sid in server_ids()]
        metafunc.parametrize(("target_label", "server_scenario"), params)
    if "client_scenario" in metafunc.fixturenames:
        metafunc.parametrize("client_scenario", client_ids())


class Suite:
    """Targets and scorecards, made on first use and shared by the whole session."""

    def __init__(self, config: pytest.Config, root: Path, logs: Path) -> None:
        self.config = config
        self.root = root
        self.logs = logs
        self.external = external(config)
        self.allow_skips = bool(config.getoption("--conformance-allow-skips", default=False)) or os.environ.get(ENV + "ALLOW_SKIPS") == "1"
        self.run_config = RunConfig(
            calls=CallConfig(calls=_calls(config, "--conformance-call", "CALLS"),
                             error_calls=_calls(config, "--conformance-error-call", "ERROR_CALLS"),
                             established=_established(config)),
            kinds=frozenset({"server"}))
        self._targets: dict[str, Target] = {}
        self._launched: list[LaunchedServer | HttpServer] = []
        self._scorecards: dict[str, dict[str, Any]] = {}
        self._errors: dict[str, TargetError] = {}
        self._lock = threading.Lock()

    @property
    def ours(self) -> bool:
        return self.external is None

    def target(self, label: str) -> Target:
        if label not in self._targets:
            self._targets[label] = self._open(label)
        return self._targets[label]

    def _open(self, label: str) -> Target:
        if self.external:
            cmd, url = self.external["cmd"], self.external["url"]
            if url:
                if cmd:
                    self._launched.append(LaunchedServer(cmd, url))
                return HttpTarget(url)
            assert cmd
            return StdioTarget(cmd)
        if label == "stdio":
            return StdioTarget(shlex.join(serve_command(self.root)), cwd=str(self.root))
        try:
            server = HttpServer(self.root, log=self.logs / "http-server.log")
        except ProcessStartError as exc:
            raise TargetError(str(exc)) from exc
        self._launched.append(server)
        return server.target

    def scorecard(self, label: str) -> dict[str, Any]:
        with self._lock:
            if label in self._errors:
                raise self._errors[label]
            if label not in self._scorecards:
                try:
                    card = run(self.target(label), config=self.run_config)
                except TargetError as exc:  # the server did not start or answer: once is enough
                    self._errors[label] = exc
                    raise
                self._scorecards[label] = card
                out = self.config.getoption("--conformance-scorecard", default=None) or os.environ.get(ENV + "SCORECARD_DIR")
                if out:
                    Path(out).mkdir(parents=True, exist_ok=True)
                    (Path(out) / f"scorecard-{label}.json").write_text(json.dumps(card, indent=2) + "\n")
            return self._scorecards[label]

    def result(self, label: str, scenario_id: str) -> dict[str, Any]:
        return next(r for r in self.scorecard(label)["scenarios"] if r["id"] == scenario_id)

    def close(self) -> None:
        for target in self._targets.values():
            target.close()
        for launched in self._launched:
            launched.close()


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    root = tmp_path_factory.mktemp("conformance-root")
    (root / "data.csv").write_text("a,b\n1,2\n")
    s = Suite(request.config, root, tmp_path_factory.mktemp("conformance-logs"))
    yield s
    s.close()


def explain(result: dict[str, Any], limit: int = 6000) -> str:
    rules = "\n".join(f"  - {r['section']}: \"{r['quote']}\"" for r in result.get("rules", []))
    evidence = json.dumps(result.get("evidence"), indent=1)
    if len(evidence) > limit:
        evidence = evidence[:limit] + f"\n…({len(evidence)} chars; write the scorecard with --conformance-scorecard DIR)"
    return f"{result['id']} [{result['level']}] {result['status'].upper()}: {result['reason']}\nrules:\n{rules}\nevidence:\n{evidence}"
