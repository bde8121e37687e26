"""The views in a real browser: headless Chromium (Debian's), a host page with the official
AppBridge, tool calls made by our reference client against the real server.

One Chromium run drives every scenario (apps/harness/drive.mjs, playwright-core with
/usr/bin/chromium, nothing downloaded); the tests below read what it recorded: each view's
DOM, everything the view received (`window.mcpVariantsView.messages`, the raw postMessage
traffic from the host), the host page's log, and the Python host's own record of each call.
Screenshots go to build/test-artifacts/apps/views/ (MCP_VARIANTS_ARTIFACTS overrides the root).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.protocol.types import UI_EXTENSION
from support.apps import APPS, ARTIFACTS, apps_installed, chromium, node

from .conftest import IMAGE_CELLS, NOTEBOOK, Pool
from .harness import HostServers, HostState, Scenario

PLOT = """\
import math
import matplotlib.pyplot as plt
from IPython.display import HTML, display
print("plotting a sine")
xs = [i / 10 for i in range(63)]
plt.figure(figsize=(5, 2.4))
plt.plot(xs, [math.sin(x) for x in xs])
plt.title("sin(x), drawn by the kernel")
plt.show()
display(HTML("<table><tr><th>n</th><th>n squared</th></tr><tr><td>3</td><td>9</td></tr></table>"
             "<script>window.pwned = 1</script><img src=x onerror='window.pwned = 2'>"))
"""

SCENARIOS: dict[str, Scenario] = {
    "table": Scenario("2026-12-01", "list_files", {"depth": 1}),  # the root's own entries (the default lists one level below)
    "table-more": Scenario("2026-12-01", "list_files", {"limit": 2}),
    "execution": Scenario("2026-12-01", "execute_code", {"code": PLOT}),
    "error": Scenario("2026-12-01", "execute_code", {"code": "print('before the error')\n1/0"}),
    "notebook": Scenario("2026-12-01", "read_notebook", {"notebook": NOTEBOOK, "limit": 10}),
    "cell": Scenario("2026-12-01", "read_cell", {"notebook": NOTEBOOK, "cell_index": 12}),
    "legacy-table": Scenario("2026-07-28", "list_files", {"depth": 1}),
    "legacy-execution": Scenario("2026-07-28", "execute_code", {"code": PLOT}),
}
ACTIONS: dict[str, list[dict[str, Any]]] = {
    "table": [{"click": '.facet button[data-value="file"]', "renders": 1}],  # a filter: no new result
    "table-more": [{"click": "button.more"}],
    "notebook": [{"click": "button.next"}, {"click": "button.prev"}],
}
ROOT_ENTRIES = ["data.csv", NOTEBOOK, "notes.md", "sub"]
ALLOWED_RESULT_KEYS = {"audience", "format", "structuredContent", "isError"}


@dataclass
class BrowserRun:
    results: dict[str, Any]
    state: HostState
    marks: dict[str, int]  # per version: how many requests the client had written before the run

    def written(self, pool: Pool, version: str, method: str) -> list[dict[str, Any]]:
        """The `method` requests the client wrote to the server during the browser run."""
        return pool.live(version).requests(method, self.marks[version])

    def scenario(self, name: str) -> dict[str, Any]:
        entry = next(s for s in self.results["scenarios"] if s["name"] == name)
        assert entry["error"] is None, f"{name}: {entry['error']}\nconsole: {entry['console']}\nhost: {entry.get('host')}"
        assert entry["steps"], f"{name}: the view never rendered; host: {entry.get('host')}"
        return entry

    def view(self, name: str, step: int = 0) -> dict[str, Any]:
        return self.scenario(name)["steps"][step]["view"]


@pytest.fixture(scope="module")
def browser(pool: Pool, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserRun]:
    apps_installed()
    executable = chromium()
    node_bin = node(20)  # playwright-core 1.65 needs Node 20
    work = tmp_path_factory.mktemp("browser")
    pages = work / "pages"
    subprocess.run([node_bin, str(APPS / "build.mjs"), "--harness", str(pages)], check=True, capture_output=True, timeout=120)
    hosts = {version: pool.host(version) for version in {s.host for s in SCENARIOS.values()}}
    marks = {version: len(pool.live(version).written) for version in hosts}
    state = HostState(pages, hosts, SCENARIOS)
    servers = HostServers(state)
    out = ARTIFACTS / "views"  # a folder of its own: cleared here, where the live and report screenshots are not
    if out.exists():
        shutil.rmtree(out)
    config = {
        "chromium": str(executable),
        "userDataDir": str(work / "chromium-profile"),  # fresh, never reused
        "out": str(out),
        "timeoutMs": 60000,
        "scenarios": [{"name": n, "url": servers.url(n), "actions": ACTIONS.get(n, [])} for n in SCENARIOS],
    }
    (work / "config.json").write_text(json.dumps(config))
    try:
        run = subprocess.run([node_bin, str(APPS / "harness" / "drive.mjs"), str(work / "config.json")], check=False, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, f"drive.mjs failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
        results = json.loads((out / "results.json").read_text())
        yield BrowserRun(results, state, marks)
    finally:
        servers.close()


def tool_results(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The params of every ui/notifications/tool-result the view received, raw."""
    return [m["params"] for m in view["record"]["messages"] if isinstance(m, dict) and m.get("method") == "ui/notifications/tool-result"]


def walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def assert_only_ui_reached(run: BrowserRun, name: str) -> None:
    """Nothing but the ui output reached the view: no content blocks, no result _meta,
    no assistant text, in anything the host posted to it (notifications and responses)."""
    entry = run.scenario(name)
    call = run.state.calls[name]
    # Assistant text the ui output does not itself contain (both describe one execution, so an
    # error message, say, may legitimately be in both).
    ui_dump = json.dumps(call.tool_result)
    assistant_texts = [
        b["text"] for d in call.model for b in d.payload if b.get("type") == "text" and len(b["text"]) > 12 and b["text"] not in ui_dump
    ]
    result_meta = call.call.result.raw.get("_meta") or {}
    for step in entry["steps"]:
        view = step["view"]
        results = tool_results(view)
        assert results, "the view received no tool result"
        for params in results:
            assert set(params) <= ALLOWED_RESULT_KEYS, f"{name}: the tool-result carried {sorted(set(params) - ALLOWED_RESULT_KEYS)}"
            assert params["audience"] == UI_EXTENSION and params["format"] == "structured"
        everything = view["record"]["messages"]
        for key, item in walk(everything):
            assert not (key == "content" and isinstance(item, list) and item), f"{name}: content blocks reached the view"
        dumped = json.dumps(everything)
        for text in assistant_texts:
            assert text not in dumped, f"{name}: assistant text reached the view: {text[:80]!r}"
        for key in result_meta:
            assert key not in dumped, f"{name}: result _meta {key!r} reached the view"
        # The view's own (sanitised) copy agrees: what the SDK handed to ontoolresult.
        for parsed in view["record"]["toolResults"]:
            assert "_meta" not in parsed and not parsed.get("content")


# ---- listings ---------------------------------------------------------------------------------


def test_table_view_shows_the_rows_and_facets(browser: BrowserRun) -> None:
    view = browser.view("table")
    assert view["mode"] == "ui"
    assert view["headers"] == ["Path", "Type", "Size", "Modified"]
    assert [row[0] for row in view["rows"]] == ROOT_ENTRIES
    assert {f["key"]: f["values"] for f in view["facets"]} == {"type": ["all", "directory", "file", "notebook"]}
    assert "4 rows" in view["text"]
    filtered = browser.view("table", 1)
    assert [row[0] for row in filtered["rows"]] == ["data.csv", "notes.md"] and "2 of 4 rows" in filtered["text"]
    assert_only_ui_reached(browser, "table")


def test_table_view_result_meta_and_assistant_text_stay_out(browser: BrowserRun) -> None:
    call = browser.state.calls["table"]
    assert "io.modelcontextprotocol/cache" in (call.call.result.raw.get("_meta") or {}), "no result _meta: the check would prove nothing"
    model_text = call.model[0].payload[0]["text"]
    assert model_text.startswith("Files in the root folder")
    dumped = json.dumps(browser.view("table")["record"])
    assert "Files in the root folder" not in dumped and "io.modelcontextprotocol/cache" not in dumped
    # The host page showed the model's text outside the view, in its own DOM.
    assert "Files in the root folder" in browser.scenario("table")["host"]["text"]


def test_table_view_pages_through_the_host(browser: BrowserRun, pool: Pool) -> None:
    first, second = browser.view("table-more", 0), browser.view("table-more", 1)
    assert [row[0] for row in first["rows"]] == ROOT_ENTRIES[:2]
    assert [row[0] for row in second["rows"]] == ROOT_ENTRIES  # "Load more" appended the next page
    assert {f["key"]: f["values"] for f in second["facets"]} == {"type": ["all", "directory", "file", "notebook"]}
    calls = [c for c in browser.state.view_calls if c.scenario == "table-more"]
    assert [(c.name, c.arguments, c.error) for c in calls] == [("list_files", {"limit": 2, "cursor": "2"}, None)]
    asked = [m["params"] for m in browser.written(pool, "2026-12-01", "tools/call") if m["params"]["arguments"].get("cursor") == "2"]
    assert asked and asked[-1]["requestedOutputs"] == [{"audience": UI_EXTENSION, "format": "structured"}]
    assert_only_ui_reached(browser, "table-more")


# ---- executions ---------------------------------------------------------------------------------


def test_execution_view_shows_the_outputs_and_the_matplotlib_figure(browser: BrowserRun) -> None:
    view = browser.view("execution")
    assert view["mode"] == "ui"
    pngs = [i for i in view["images"] if i["mime"] == "image/png"]
    assert len(pngs) == 1 and pngs[0]["srcPrefix"].startswith("data:image/png;base64")
    assert pngs[0]["width"] >= 300 and pngs[0]["height"] >= 150, pngs  # decoded: a real figure, not a broken image
    assert any("plotting a sine" in o["text"] for o in view["outputs"] if "stream" in o["cls"])
    assert view["htmlTables"] and "n squared" in view["htmlTables"][0]
    assert view["pwned"] is None and view["scripts"] == 1, "kernel HTML ran script in the view"
    assert_only_ui_reached(browser, "execution")


def test_execution_view_shows_an_error_output(browser: BrowserRun) -> None:
    view = browser.view("error")
    assert view["mode"] == "ui-error"
    assert view["errors"] and "ZeroDivisionError" in view["errors"][0]
    assert any("before the error" in o["text"] for o in view["outputs"])
    assert any("ZeroDivisionError" in o["text"] for o in view["outputs"] if "output-error" in o["cls"])
    (params,) = tool_results(view)
    assert params["isError"] is True and params["structuredContent"]["error"]["type"] == "execution-error"
    assert_only_ui_reached(browser, "error")


# ---- the notebook and the App-only pager ------------------------------------------------------


def test_notebook_view_shows_cells_with_outputs_and_pages_with_the_app_only_tool(browser: BrowserRun, pool: Pool) -> None:
    pages = [browser.view("notebook", step) for step in range(3)]
    assert [[c["index"] for c in page["cells"]] for page in pages] == [list(range(10)), list(range(10, 20)), list(range(10))]
    for page in pages:
        for cell in page["cells"]:
            assert cell["images"] == (1 if cell["index"] in IMAGE_CELLS else 0), cell
            assert cell["outputs"] >= (1 if cell["index"] else 0)
        assert all(i["width"] > 0 for i in page["images"])
    assert "cells 10–19 of 30" in pages[1]["subtitle"]
    calls = [c for c in browser.state.view_calls if c.scenario == "notebook"]
    assert [(c.name, c.error) for c in calls] == [("read_notebook_page", None)] * 2
    asked = [m["params"] for m in browser.written(pool, "2026-12-01", "tools/call") if m["params"]["name"] == "read_notebook_page"]
    assert len(asked) == 2 and all(p["requestedOutputs"] == [{"audience": UI_EXTENSION, "format": "structured"}] for p in asked)
    assert_only_ui_reached(browser, "notebook")


def test_notebook_view_shows_one_cell(browser: BrowserRun) -> None:
    view = browser.view("cell")
    assert view["mode"] == "ui"
    assert [(c["index"], c["images"]) for c in view["cells"]] == [(12, 1)]
    assert "row 12" in view["text"] and view["images"][0]["width"] > 0
    assert not view["buttons"]  # one cell: no pager
    assert_only_ui_reached(browser, "cell")


# ---- before 2026-12-01 --------------------------------------------------------------------------


def test_legacy_view_receives_the_legacy_result_and_shows_a_fallback(browser: BrowserRun) -> None:
    view = browser.view("legacy-table")
    assert view["mode"] == "legacy"
    (params,) = tool_results(view)
    # MCP Apps' own flow, unchanged: the whole legacy CallToolResult, _meta included.
    assert {"content", "structuredContent", "_meta"} <= set(params) and "audience" not in params
    assert params["structuredContent"]["kind"] == "files.list"  # assistant/structured, never the ui schema
    assert view["headers"] == ["Path", "Type", "Size", "Modified"]
    assert [row[0] for row in view["rows"]] == ROOT_ENTRIES
    assert "legacy result" in view["text"]


def test_legacy_execution_view_shows_the_content_blocks(browser: BrowserRun) -> None:
    view = browser.view("legacy-execution")
    assert view["mode"] == "legacy"
    assert any(i["mime"] is None and i["srcPrefix"].startswith("data:image/png") and i["width"] >= 300 for i in view["images"])
    assert "plotting a sine" in view["text"]


# ---- the page as a whole ---------------------------------------------------------------------------


def test_views_run_under_the_declared_csp_without_violations(browser: BrowserRun) -> None:
    assert browser.state.csp_served and all("connect-src 'none'" in h and "frame-src 'none'" in h for h in browser.state.csp_served)
    for entry in browser.results["scenarios"]:
        problems = [m for m in entry["console"] if "Content Security Policy" in m or m.startswith("pageerror")]
        assert not problems, f"{entry['name']}: {problems}"


def test_screenshots_are_saved(browser: BrowserRun) -> None:
    for name in SCENARIOS:
        for step in browser.scenario(name)["steps"]:
            shot = Path(step["screenshot"])
            assert shot.is_file() and shot.stat().st_size > 5000, shot
