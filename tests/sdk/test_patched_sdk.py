"""The SDK change of docs/sdk-change.md, proven: on a copy of the installed SDK with patched_sdk/sdk-2026-12-01.diff
applied, servers on mcp_variants.sdk serve 2026-12-01 without the bridge and pass the SEP-3279 suite.

The copy (mcp and mcp_types, in a temporary folder first on PYTHONPATH) knows 2026-12-01 and keeps
`outputVariants` and `outputs`; there `bridge_needed()` is False, so `serve_stdio` / `streamable_http_app` run
without the bridge, and patched_sdk/unbridged.py makes sdk/_bridge.py impossible to import (as if deleted). The
examples and the Jupyter server then get, scenario by scenario, the verdicts they get through the bridge on the
SDK as it is (0 failures). The project's own environment is never touched.

When the patch no longer applies (the SDK changed), every test here is skipped with a reason that says so in
capitals, and a warning: the patch and docs/sdk-change.md then need redoing for that SDK.
"""

from __future__ import annotations

import compileall
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget

from .test_examples import CALLS, EXAMPLES, checked, example_calls, passed, run_suite

pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve().parent / "patched_sdk"
PATCH = HERE / "sdk-2026-12-01.diff"
UNBRIDGED = HERE / "unbridged.py"
PACKAGES = ("mcp", "mcp_types")
JUPYTER = "jupyter server"  # `mcp-variants serve`, on the low-level Server: the suite's default calls suit it
OUTPUTS_VERSION = "2026-12-01"


# ---- the patch: a unified diff, applied exactly (no fuzz) to a copy of the installed packages ----------------


class PatchDoesNotApply(Exception):
    pass


@dataclass(frozen=True)
class Hunk:
    start: int  # the first line of `old` in the original, from 1 (0: a new file)
    old: list[str]
    new: list[str]


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_patch(text: str) -> dict[str, list[Hunk]]:
    """Hunks by path (as `patch -p1`: site-packages' path after `b/`); what precedes the first file is prose."""
    files: dict[str, list[Hunk]] = {}
    lines = text.splitlines(keepends=True)
    path: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("+++ "):
            path = line[4:].strip().partition("/")[2]
            files[path] = []
        elif line.startswith("@@ ") and path is not None:
            found = _HUNK.match(line)
            if found is None:
                raise PatchDoesNotApply(f"{path}: a malformed hunk header {line!r}")
            old_count, new_count = int(found[2] or 1), int(found[4] or 1)
            old: list[str] = []
            new: list[str] = []
            while len(old) < old_count or len(new) < new_count:
                if i >= len(lines):
                    raise PatchDoesNotApply(f"{path}: the hunk at line {found[1]} is cut short")
                body = lines[i]
                i += 1
                if body.startswith("\\"):  # "\ No newline at end of file"
                    continue
                tag, rest = (" ", body) if body.strip("\r\n") == "" else (body[0], body[1:])  # an editor may strip " "
                if tag in " -":
                    old.append(rest)
                if tag in " +":
                    new.append(rest)
                if tag not in " -+":
                    raise PatchDoesNotApply(f"{path}: a malformed hunk line {body!r}")
            files[path].append(Hunk(int(found[1]), old, new))
    return files


def patched_text(original: list[str], hunks: list[Hunk], path: str) -> str:
    """The file with every hunk applied where its old lines are, exactly (nearest to where the diff says)."""
    out: list[str] = []
    at = 0
    for hunk in hunks:
        expected = max(hunk.start - 1, 0)
        candidates = sorted(range(at, len(original) - len(hunk.old) + 1), key=lambda p: abs(p - expected))
        where = next((p for p in candidates if original[p:p + len(hunk.old)] == hunk.old), None)
        if where is None:
            raise PatchDoesNotApply(f"{path}: the hunk at line {hunk.start} does not match")
        out += original[at:where] + hunk.new
        at = where + len(hunk.old)
    return "".join(out + original[at:])


def apply_patch(text: str, root: Path) -> None:
    """Every file checked before any is written."""
    results: dict[Path, str] = {}
    for path, hunks in parse_patch(text).items():
        target = root / path
        if not target.exists() and any(hunk.old for hunk in hunks):
            raise PatchDoesNotApply(f"{path}: no such file")
        original = target.read_text().splitlines(keepends=True) if target.exists() else []
        results[target] = patched_text(original, hunks, path)
    for target, content in results.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)


def installed(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    return Path(next(iter(spec.submodule_search_locations)))


@pytest.fixture(scope="module")
def patched_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the patched copy of mcp and mcp_types; put it first on PYTHONPATH."""
    root = tmp_path_factory.mktemp("patched-sdk")
    for package in PACKAGES:
        shutil.copytree(installed(package), root / package, ignore=shutil.ignore_patterns("__pycache__"))
    try:
        apply_patch(PATCH.read_text(), root)
    except PatchDoesNotApply as exc:
        reason = (f"THE SDK PATCH NO LONGER APPLIES to the installed mcp {importlib.metadata.version('mcp')} / mcp-types "
                  f"{importlib.metadata.version('mcp-types')} ({exc}): redo tests/sdk/patched_sdk/sdk-2026-12-01.diff "
                  "and docs/sdk-change.md for this SDK")
        warnings.warn(reason, stacklevel=1)
        pytest.skip(reason)
    # Compiled once here, not by each process that imports it where PYTHONDONTWRITEBYTECODE is set (a plain
    # `pytest` on a machine that sets it; `make test` clears it).
    compileall.compile_dir(root, quiet=1)
    return root


@pytest.fixture
def on_patched_sdk(patched_sdk: Path) -> dict[str, str]:
    """The environment of a process on the patched SDK (this process keeps the SDK it imported)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(patched_sdk), os.environ.get("PYTHONPATH")]))}


# ---- what runs on it --------------------------------------------------------------------------------------------


def server_argv(server: str, unbridged: bool, root: Path) -> list[str]:
    """The server's command line: an example, or the Jupyter server in `root`; through unbridged.py when asked."""
    if server == JUPYTER:
        argv = ["-m", "mcp_variants", "serve", "--root", str(root)]
        return [sys.executable, str(UNBRIDGED), *argv] if unbridged else [sys.executable, *argv]
    script = str(EXAMPLES / server)
    return [sys.executable, str(UNBRIDGED), script] if unbridged else [sys.executable, script]


def suite(server: str, transport: str, tmp_path: Path, env: dict[str, str], *, unbridged: bool) -> dict[str, Any]:
    """The conformance suite against `server`; its scorecard."""
    root = tmp_path / "root"
    root.mkdir(parents=True)
    calls = [] if server == JUPYTER else example_calls(server)
    return passed(run_suite(server_argv(server, unbridged, root), transport, calls, tmp_path / "scorecard.json", env=env, cwd=root),
                  server)


def verdicts(scorecard: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["status"] for entry in scorecard["scenarios"]}


def printed_json(code: str, env: dict[str, str]) -> Any:
    """What `code`, run by this interpreter with `env` (the patched SDK's, say), prints as JSON."""
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout)


# ---- the tests --------------------------------------------------------------------------------------------------


def test_the_patched_sdk_serves_2026_12_01_and_the_bridge_is_off(on_patched_sdk: dict[str, str]) -> None:
    probe = ("import json, mcp, mcp_types.version as v; from mcp_variants.sdk import _serve as serve, _extension as extension; "
             "print(json.dumps({'sdk': mcp.__file__, 'modern': list(v.MODERN_PROTOCOL_VERSIONS), 'latest': v.LATEST_PROTOCOL_VERSION,"
             " 'bridge_needed': serve.bridge_needed(), 'takes_variants': extension.SDK_TAKES_VARIANTS}))")
    patched = printed_json(probe, on_patched_sdk)
    assert patched["sdk"].startswith(on_patched_sdk["PYTHONPATH"].split(os.pathsep)[0])
    assert patched["modern"] == ["2026-07-28", OUTPUTS_VERSION] and patched["latest"] == OUTPUTS_VERSION
    assert patched["bridge_needed"] is False and patched["takes_variants"] is True
    from mcp_variants.sdk import _extension as extension
    from mcp_variants.sdk import _serve as serve  # this process: the SDK as installed

    assert serve.bridge_needed() is True and extension.SDK_TAKES_VARIANTS is False


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("server", [*sorted(CALLS), JUPYTER])
def test_without_the_bridge_the_suite_gives_the_verdicts_it_gives_through_it(
        server: str, transport: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, on_patched_sdk: dict[str, str]) -> None:
    # An example's run through the bridge is test_examples.py's own: made once per test run, by whichever asks first.
    through_the_bridge = (suite(server, transport, tmp_path / "bridged", dict(os.environ), unbridged=False) if server == JUPYTER
                          else passed(checked(server, transport, tmp_path_factory), server))
    without_it = suite(server, transport, tmp_path / "patched", on_patched_sdk, unbridged=True)
    assert without_it["ok"] is True and without_it["totals"]["fail"] == 0, without_it["totals"]
    assert without_it["wireSchema"]["ok"] is True
    assert verdicts(without_it) == verdicts(through_the_bridge)


def test_a_plain_mcpserver_tool_is_served_by_the_legacy_adapter(on_patched_sdk: dict[str, str]) -> None:
    """The patch's MCPServer side: a tool that declares no variants offers assistant/content at 2026-12-01, made
    from its content; a tool of the Variants extension keeps its own variants."""
    command = [sys.executable, str(UNBRIDGED), str(HERE / "plain_server.py")]
    with StdioTarget(command, env=on_patched_sdk, timeout=30) as target:
        listed = {tool["name"]: tool for tool in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
        assert listed["shout"]["outputVariants"] == [{"audience": "assistant", "format": "content"}]
        assert "outputSchema" not in listed["shout"]
        assert [v["audience"] + "/" + v["format"] for v in listed["count"]["outputVariants"]] == [
            "assistant/content", "programmatic/structured"]

        shouted = target.exchange(OUTPUTS_VERSION, None, "tools/call", {"name": "shout", "arguments": {"text": "hi"}})
        assert shouted.result["outputs"] == [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "HI"}]}]
        assert "content" not in shouted.result and not shouted.schema_violations
        asked = {"name": "shout", "arguments": {"text": "hi"}, "requestedOutputs": [{"audience": "programmatic", "format": "structured"}]}
        refused = target.exchange(OUTPUTS_VERSION, None, "tools/call", asked).message
        assert refused["error"]["code"] == -32602
        assert refused["error"]["data"]["offered"] == [{"audience": "assistant", "format": "content"}]

        counted = target.exchange(OUTPUTS_VERSION, None, "tools/call", {
            "name": "count", "arguments": {"text": "a b"}, "requestedOutputs": [{"audience": "programmatic", "format": "structured"}]})
        assert counted.result["outputs"] == [{"audience": "programmatic", "format": "structured", "structuredContent": {"letters": 2}}]

        legacy = target.exchange("2026-07-28", None, "tools/call", {"name": "shout", "arguments": {"text": "hi"}}).result
        assert legacy["content"] == [{"type": "text", "text": "HI"}] and "outputs" not in legacy
        legacy_listed = target.exchange("2026-07-28", None, "tools/list", {}).result["tools"]
        assert all("outputVariants" not in tool for tool in legacy_listed)


def test_a_null_structured_output_keeps_its_payload(on_patched_sdk: dict[str, str]) -> None:
    """`structuredContent: null` is a payload (any JSON value): the sieve's exclude_none must not drop the key."""
    probe = ("import json; from mcp_types import methods as m; print(json.dumps(m.serialize_server_result('tools/call', "
             "'2026-12-01', {'outputs': [{'audience': 'programmatic', 'format': 'structured', 'structuredContent': None}], "
             "'resultType': 'complete'})))")
    sieved = printed_json(probe, on_patched_sdk)
    assert sieved["outputs"] == [{"audience": "programmatic", "format": "structured", "structuredContent": None}]


def test_the_patch_parser_reads_what_it_applies(tmp_path: Path) -> None:
    """The applier itself, on a file it makes: a hunk found where its old lines are, none fuzzed."""
    (tmp_path / "m.py").write_text("a\nb\nc\n")
    apply_patch("prose first\n--- a/m.py\n+++ b/m.py\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n", tmp_path)
    assert (tmp_path / "m.py").read_text() == "a\nb\nC\n"
    with pytest.raises(PatchDoesNotApply, match="does not match"):
        apply_patch("--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n-x\n+y\n", tmp_path)


def test_the_page_quotes_the_patch_as_it_is() -> None:
    """docs/sdk-change.md gives the patch's size; counted here from the file, so the page follows the patch."""
    files = parse_patch(PATCH.read_text())
    body = PATCH.read_text().split("\n--- ", 1)[1].splitlines()  # what follows the prose
    added = sum(1 for line in body if line.startswith("+") and not line.startswith("+++ "))
    removed = sum(1 for line in body if line.startswith("-") and not line.startswith("--- "))
    page = re.sub(r"\s+", " ", (Path(__file__).resolve().parents[2] / "docs" / "sdk-change.md").read_text())
    assert f"({added} added lines, {removed} removed, in {len(files)} files)" in page, (added, removed, len(files))
