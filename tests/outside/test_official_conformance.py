"""The official MCP conformance suite (@modelcontextprotocol/conformance) against our HTTP servers.

Five targets, each with a baseline:

* the Jupyter server (`mcp-variants serve --http`), tests/outside/conformance-baseline.yml: it has none
  of the fixtures the suite names, so those scenarios are listed (kind `fixture`);
* examples/everything.py, the suite's fixture ("everything") server written on mcp_variants.sdk (the SDK's
  MCPServer, our projection and bridge), tests/outside/conformance-baseline-everything.yml: it has every
  fixture, so its baseline lists only true gaps and the extension it does not implement;
* the Jupyter server extension (MCP at a jupyter-server's /mcp, the same tools in process), against the Jupyter
  server's baseline: it must fail nothing the standalone server passes;
* examples/world_clock.py and examples/migration/after.py, small servers on mcp_variants.sdk,
  tests/outside/conformance-baseline-examples.yml: no fixtures, as the Jupyter server, and MCPServer's
  own answers where they differ from the Jupyter server's.

Three runs per target, each judged against the target's baseline:

* 0.2.0-alpha.12 `--requirements 2025-11-25`: what the 2025-11-25 revision requires, on the
  handshake wire, plus the scenarios it runs without scoring.
* 0.2.0-alpha.12 `--requirements 2026-07-28`: the same for 2026-07-28, on the stateless wire.
* 0.1.16 (npm's `latest`) `--spec-version 2025-11-25`: the released suite most SDKs run today.

Every failure is listed in the target's baseline with its reason. The suite itself fails a run on an
unexpected failure and on a stale entry (a listed check that now passes); this test applies
the same rules again to every check of every scenario (scored or not), and also fails on an
entry that no run needed any more (a scenario or check renamed or removed).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support.outside import HERE, HttpServer, node_env, node_package

KINDS = ("fixture", "gap", "extension")
SECTIONS = ("server", "not-scored")
FAILING = ("FAILURE", "WARNING")  # the suite counts a WARNING as failing its baseline check
RUN_TIMEOUT = 240  # seconds; a run takes about one


@dataclass(frozen=True)
class Run:
    id: str
    package: str  # folder under node_modules
    version: str  # the exact version package-lock.json pins
    args: tuple[str, ...]
    per_check_entries: bool  # whether this suite version understands `<scenario>:<check-id>`
    # Scenarios that must have run and passed every check (guards against a run that ran nothing).
    must_pass: tuple[str, ...]


RUNS = (
    Run(
        "0.2-requirements-2025-11-25", "conformance-next", "0.2.0-alpha.12", ("--requirements", "2025-11-25"), True,
        ("server-initialize", "server-session-lifecycle", "ping", "tools-list", "server-sse-multiple-streams",
         "dns-rebinding-protection"),
    ),
    Run(
        "0.2-requirements-2026-07-28", "conformance-next", "0.2.0-alpha.12", ("--requirements", "2026-07-28"), True,
        ("tools-list", "server-sse-multiple-streams", "dns-rebinding-protection", "http-header-validation",
         "input-required-result-unsupported-methods"),
    ),
    Run(
        "0.1.16-spec-2025-11-25", "conformance-stable", "0.1.16", ("--spec-version", "2025-11-25"), False,
        ("server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection"),
    ),
)


@dataclass(frozen=True)
class Target:
    id: str
    server: str  # the session fixture that serves it (conftest.py)
    baseline: Path
    kinds: tuple[str, ...]  # the entry kinds its baseline may use
    # Scenarios every run must have run and passed, beside the run's own `must_pass`.
    must_pass: tuple[str, ...] = ()


TARGETS = (
    Target("jupyter", "server", HERE / "conformance-baseline.yml", KINDS),
    Target("extension", "extension_endpoint", HERE / "conformance-baseline.yml", KINDS),
    # It has every fixture: a `fixture` entry would excuse a fixture it lost.
    Target("everything", "everything_server", HERE / "conformance-baseline-everything.yml", ("gap", "extension"),
           ("tools-call-simple-text", "tools-call-error", "tools-call-mixed-content", "prompts-get-simple",
            "resources-read-text", "resources-templates-read")),
    # The small servers of examples/: none of the fixtures, as the Jupyter server, and MCPServer's own answers.
    Target("world-clock", "world_clock_server", HERE / "conformance-baseline-examples.yml", KINDS),
    Target("migrated", "migrated_server", HERE / "conformance-baseline-examples.yml", KINDS),
)


@pytest.fixture(scope="module", params=TARGETS, ids=[t.id for t in TARGETS])
def target(request: pytest.FixtureRequest) -> Target:
    target: Target = request.param
    return target


# ---- the baseline -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    section: str
    scenario: str
    check: str | None  # None: the whole scenario may fail
    kind: str
    reason: str
    line: int

    @property
    def text(self) -> str:
        return f"{self.scenario}:{self.check}" if self.check else self.scenario


ENTRY_LINE = re.compile(r"^\s+-\s+(?P<entry>[^\s#]+)\s*(?:#\s*(?P<comment>.*))?$")


def load_baseline(path: Path, kinds: tuple[str, ...] = KINDS) -> list[Entry]:
    """The baseline's entries with their reasons (the trailing `# kind: why` comment). A section with
    nothing to list is written `server: []` (the suite refuses a bare `server:`, which YAML reads as null)."""
    entries: list[Entry] = []
    section: str | None = None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        top = re.match(r"^([A-Za-z][\w-]*):\s*(\[\])?\s*(#.*)?$", line)
        if top:
            section = None if top.group(2) else top.group(1)
            assert top.group(1) in SECTIONS, f"{path.name}:{number}: unknown section {top.group(1)!r} (known: {SECTIONS})"
            continue
        match = ENTRY_LINE.match(line)
        assert match and section, f"{path.name}:{number}: not `  - <scenario>[:<check-id>]  # <kind>: <reason>`: {line!r}"
        comment = (match.group("comment") or "").strip()
        reason = re.match(r"^(?P<kind>[a-z]+):\s*(?P<why>\S.*)$", comment)
        assert reason, f"{path.name}:{number}: {match.group('entry')} has no `# <kind>: <reason>` comment"
        assert reason.group("kind") in kinds, f"{path.name}:{number}: kind {reason.group('kind')!r} is not one of {kinds}"
        scenario, _, check = match.group("entry").partition(":")
        entries.append(Entry(section, scenario, check or None, reason.group("kind"), reason.group("why"), number))
    return entries


def whole_scenarios(entries: list[Entry]) -> set[str]:
    return {e.scenario for e in entries if e.check is None}


def test_baseline_is_well_formed(target: Target) -> None:
    """Every entry has a section, a kind and a reason; none twice; none both whole and per-check."""
    entries = load_baseline(target.baseline, target.kinds)
    assert entries, f"{target.baseline.name} lists nothing"
    counts = Counter(e.text for e in entries)
    assert not [t for t, n in counts.items() if n > 1], f"listed twice: {[t for t, n in counts.items() if n > 1]}"
    whole = whole_scenarios(entries)
    redundant = [e.text for e in entries if e.check and e.scenario in whole]
    assert not redundant, f"per-check entries of a scenario that is listed whole: {redundant}"
    # The suite reads the same file (its `server:` list); a YAML parser must see what we see.
    yaml = pytest.importorskip("yaml")
    parsed = yaml.safe_load(target.baseline.read_text())
    for section in SECTIONS:
        listed = [e.text for e in entries if e.section == section]
        assert parsed.get(section, []) == listed, section


# ---- running the suite --------------------------------------------------------------------------


@dataclass
class RunResult:
    run: Run
    command: list[str]
    returncode: int
    output: str
    seconds: float
    checks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # scenario -> its checks

    def tail(self, chars: int = 6000) -> str:
        """The suite's summary and baseline verdict (the per-scenario progress lines are noise)."""
        start = self.output.rfind("=== SUMMARY")
        return (self.output[start:] if start >= 0 else self.output)[-chars:]


ANSI = re.compile(r"\x1b\[[0-9;]*m")
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")


def read_results(out: Path) -> dict[str, list[dict[str, Any]]]:
    results: dict[str, list[dict[str, Any]]] = {}
    for checks_file in sorted(out.glob("*/checks.json")):
        match = RESULT_DIR.match(checks_file.parent.name)
        assert match, f"unexpected result folder {checks_file.parent.name}"
        results.setdefault(match.group("scenario"), []).extend(json.loads(checks_file.read_text()))
    return results


def suite_baseline(run: Run, target: Target, folder: Path) -> Path:
    """The baseline file this suite version is given: the target's, or it reduced to scenario names
    for a version that only knows whole-scenario entries."""
    if run.per_check_entries:
        return target.baseline
    reduced = folder / "baseline-whole-scenarios.yml"
    names = sorted({e.scenario for e in load_baseline(target.baseline, target.kinds) if e.section == "server"})
    reduced.write_text("server:\n" + "".join(f"  - {name}\n" for name in names) if names else "server: []\n")
    return reduced


def run_suite(run: Run, target: Target, server: HttpServer, node_bin: Path, folder: Path) -> RunResult:
    entry = node_package(f"{run.package}/dist/index.js")
    installed = json.loads((entry.parents[1] / "package.json").read_text())["version"]
    assert installed == run.version, f"{run.package} is {installed}, package-lock.json pins {run.version}: rerun install.sh"
    out = folder / "results"
    command = [
        str(node_bin), str(entry), "server", "--url", server.url, *run.args,
        "--expected-failures", str(suite_baseline(run, target, folder)), "-o", str(out),
    ]
    started = time.monotonic()
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=node_env(), cwd=folder)
    output = ANSI.sub("", done.stdout + done.stderr)  # the suite colours its summary unconditionally
    result = RunResult(run, command, done.returncode, output, time.monotonic() - started)
    (folder / "output.txt").write_text(result.output)
    result.checks = read_results(out) if out.is_dir() else {}
    return result


@pytest.fixture(scope="module")
def runs(target: Target, request: pytest.FixtureRequest, node_bin: Path,
         tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunResult]:
    """A target's three runs, once: the per-run tests and the baseline-usage test share them."""
    server: HttpServer = request.getfixturevalue(target.server)
    return {run.id: run_suite(run, target, server, node_bin, tmp_path_factory.mktemp(f"{target.id}-{run.id}")) for run in RUNS}


# ---- judging a run ------------------------------------------------------------------------------


def judge(result: RunResult, entries: list[Entry]) -> tuple[list[str], list[str], set[Entry]]:
    """(unexpected failures, stale entries, entries that matched a failure), over every check of
    every scenario the run ran, by the suite's rules: a listed check that fails is expected, one
    that passes is stale; an unlisted check that fails is unexpected."""
    whole = {e.scenario: e for e in entries if e.check is None}
    per_check = {(e.scenario, e.check): e for e in entries if e.check}
    unexpected: list[str] = []
    stale: list[str] = []
    used: set[Entry] = set()
    for scenario, checks in result.checks.items():
        failing = [c for c in checks if c.get("status") in FAILING]
        if scenario in whole:
            if failing:
                used.add(whole[scenario])
            else:
                stale.append(f"{scenario} (every check passes)")
            continue
        for check in failing:
            entry = per_check.get((scenario, check.get("id")))
            if entry is None:
                message = (check.get("errorMessage") or "")[:300]
                unexpected.append(f"{scenario}:{check.get('id')} {check.get('status')}: {message}")
            else:
                used.add(entry)
        failing_ids = {c.get("id") for c in failing}
        for (listed_scenario, check_id), entry in per_check.items():
            if listed_scenario != scenario or check_id in failing_ids:
                continue
            if any(c.get("id") == check_id and c.get("status") == "SUCCESS" for c in checks):
                stale.append(f"{entry.text} (passes now)")
    return unexpected, stale, used


@pytest.mark.parametrize("run", RUNS, ids=[r.id for r in RUNS])
def test_official_suite_passes_given_the_baseline(target: Target, runs: dict[str, RunResult], run: Run) -> None:
    result = runs[run.id]
    assert result.checks, f"{run.id}: no results were written\n$ {' '.join(result.command)}\n{result.tail()}"
    unexpected, stale, _ = judge(result, load_baseline(target.baseline, target.kinds))
    problems = []
    if unexpected:
        problems.append("checks fail that the baseline does not list (a regression; or list it with its reason):\n  "
                        + "\n  ".join(unexpected))
    if stale:
        problems.append(f"baseline entries pass now (remove them from {target.baseline.name}):\n  " + "\n  ".join(stale))
    assert not problems, f"{run.id}: " + "\n".join(problems) + f"\n--- the suite's summary ---\n{result.tail()}"
    # The suite's own verdict with the same baseline (scored scenarios only): exit 0.
    assert result.returncode == 0, f"{run.id}: the suite exited {result.returncode}\n{result.tail()}"
    must_pass = (*run.must_pass, *target.must_pass)
    not_run = [s for s in must_pass if s not in result.checks]
    assert not not_run, f"{run.id}: these scenarios did not run: {not_run}; it ran {sorted(result.checks)}"
    for scenario in must_pass:
        statuses = {c.get("id"): c.get("status") for c in result.checks[scenario]}
        assert all(s in ("SUCCESS", "INFO", "SKIPPED") for s in statuses.values()), f"{run.id}: {scenario}: {statuses}"


def test_every_baseline_entry_is_still_needed(target: Target, runs: dict[str, RunResult]) -> None:
    """An entry no run matched names a scenario or check that no longer exists (or never failed):
    the suite tolerates that silently; we do not."""
    entries = load_baseline(target.baseline, target.kinds)
    used: set[Entry] = set()
    for result in runs.values():
        used |= judge(result, entries)[2]
    unused = [f"line {e.line}: {e.text}" for e in entries if e not in used]
    assert not unused, f"{target.baseline.name}: entries no run needed (stale or renamed): {unused}"
