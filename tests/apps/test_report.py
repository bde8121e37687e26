"""The reviewer's report of `mcp-variants demo`, opened in headless Chromium (Debian's, driven by
playwright-core through apps/harness/report.mjs): every scenario has its four audience rows, the
images decode, each view iframe rendered what the view sink received, no assistant text reaches
a view row and no view-only data a model row, nothing is fetched, and the file is small (how
quickly it opens is bounded by the harness's timeouts only: a time asserted on a shared machine
measures the machine). The demo runs for real, once, against a live server on local kernels, as
from a plain install (no matplotlib); the module also checks what it prints and writes without a
browser, so that the suite runs the demo once (it was tests/integration/test_demo.py's too).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.protocol.types import UI_EXTENSION
from support.apps import APPS, ARTIFACTS, REPO, apps_installed, chromium, node

SINKS = ["model", "user", "program", "view"]
MAX_BYTES = 2_000_000
SCREENSHOT = ARTIFACTS / "report-first-screen.png"
pytestmark = pytest.mark.timeout(480)  # the first test pays for the demo and the browser's start: their own timeouts added


@dataclass
class Demo:
    report: Path
    stdout: str


@dataclass
class Opened:
    path: Path
    html: str
    seen: dict[str, Any]  # what report.mjs recorded

    def scenario(self, title: str) -> dict[str, Any]:
        return next(s for s in self.seen["page"]["scenarios"] if s["title"] == title)

    def payload(self, element: str) -> dict[str, Any]:
        match = re.search(rf"<script type=application/json id={element}>(.*?)</script>", self.html, re.S)
        assert match, element
        value: dict[str, Any] = json.loads(match.group(1))
        return value


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """`mcp-variants demo`, once, as from a plain install: matplotlib (only the `demo` and `test` extras bring
    it) cannot be imported by the demo, its server or their kernels."""
    work = tmp_path_factory.mktemp("report")
    blocked = work / "plain-install" / "matplotlib"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('no matplotlib in a plain install')\n")
    path = os.pathsep.join(filter(None, [str(blocked.parent), os.environ.get("PYTHONPATH")]))
    report = work / "demo-report.html"
    done = subprocess.run([sys.executable, "-m", "mcp_variants", "demo", "--report", str(report)], cwd=work,
                          capture_output=True, text=True, timeout=240, env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return Demo(report, done.stdout)


def test_the_demo_passes_and_writes_a_self_contained_report(demo: Demo) -> None:
    """The README's main command (issues 4 and 15), without a browser."""
    assert "0 fail, 0 skip" in demo.stdout
    assert "\nMUST rules exercised: 40 of 40 that check's scenarios judge (SEP-3279 has 40)\nOK\n" in demo.stdout, demo.stdout[-1500:]
    page = demo.report.read_text()
    assert "data-passed=false" not in page and "'verdict v-fail'" not in page and ">FAIL</td>" not in page
    assert "alt='image output (image/png)' src='data:image/png;base64," in page, "the plot is rendered in the report"
    assert "plan-14" in page and "host-plan-15" in page, "every testing-plan item is in the report"
    assert "40/40 MUST rules exercised" in page and "0 skip, OK</h2>" in page
    assert not re.search(r"""(src|href)=["']?https?:""", page), "self-contained: nothing loaded from elsewhere"
    assert "default-src 'none'" in page, "and its Content-Security-Policy lets nothing be fetched"
    # What the router delivered, per scenario: the demo prints it, and the report shows it in rows.
    assert "routed: model ← assistant/content; user ← nothing; program ← nothing; view ← nothing" in demo.stdout
    assert page.count("<section class=scenario") == page.count("data-audience=view") >= 20


@pytest.fixture(scope="module")
def opened(demo: Demo) -> Iterator[Opened]:
    apps_installed()
    executable = chromium()
    node_bin = node(20)  # playwright-core 1.65 needs Node 20
    work, report = demo.report.parent, demo.report
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    config = {"chromium": str(executable), "userDataDir": str(work / "profile"), "report": str(report), "out": str(work / "out"),
              "timeoutMs": 60000, "screenshot": str(SCREENSHOT)}
    (work / "config.json").write_text(json.dumps(config))
    run = subprocess.run([node_bin, str(APPS / "harness" / "report.mjs"), str(work / "config.json")], cwd=APPS,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, f"report.mjs failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
    seen = json.loads((work / "out" / "report.json").read_text())
    yield Opened(report, report.read_text(encoding="utf-8"), seen)


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def outputs(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """The outputs of the scenario's raw response, as the report's unfolded exchange shows them."""
    exchange = json.loads(scenario["raw"])
    result = (exchange.get("response") or {}).get("result") or {}
    return result.get("outputs") or [] if isinstance(result, dict) else []


def test_every_scenario_has_its_four_audience_rows(opened: Opened) -> None:
    scenarios = opened.seen["page"]["scenarios"]
    assert len(scenarios) >= 20
    for scenario in scenarios:
        rows = scenario["rows"]
        assert [r["audience"] for r in rows] == SINKS, scenario["title"]
        for row in rows:
            shown = row["texts"] or row["images"] or row["trees"] or row["iframes"]
            assert bool(shown) != row["nothing"], f"{scenario['title']} / {row['audience']}: something, or plainly nothing"
            if row["nothing"]:
                assert row["text"].startswith("nothing") and len(row["text"]) > len("nothing ") + 10, row["text"]  # with its reason
        assert scenario["passed"] == "true", scenario["title"]


def test_each_row_holds_only_its_own_audience(opened: Opened) -> None:
    audiences = {"model": "assistant/", "user": "user/", "program": "programmatic/", "view": f"{UI_EXTENSION}/"}
    for scenario in opened.seen["page"]["scenarios"]:
        for row in scenario["rows"]:
            for selector in row["selectors"].split():
                legacy_field = selector in ("content", "structuredContent")
                assert selector.startswith(audiences[row["audience"]]) or legacy_field, (scenario["title"], row)
            assert not row["iframes"] or row["audience"] == "view"
    legacy = opened.scenario("13b. Legacy result at 2026-07-28")
    got = {r["audience"]: r["selectors"] for r in legacy["rows"]}
    assert got == {"model": "content", "user": "", "program": "structuredContent", "view": ""}  # the router's legacy policy
    conversational = opened.scenario("1. Conversational call")
    assert [r["selectors"] for r in conversational["rows"]] == ["assistant/content", "", "", ""]
    assert "hello from the kernel" in conversational["rows"][0]["texts"][0]


def test_images_decode(opened: Opened) -> None:
    images = opened.seen["page"]["images"]
    assert len(images) >= 3  # the plot: the model and the user of the first execution, and scenario 4
    for image in images:
        assert image["complete"] and image["width"] >= 100 and image["height"] >= 100, image
    media = opened.scenario("4. User-rendered media")
    assert [r["images"] for r in media["rows"]] == [0, 1, 0, 0]
    view_images = [i for f in opened.seen["frames"] for i in f["view"]["images"]]
    assert view_images and all(i["width"] >= 100 for i in view_images)  # the execution view drew the figure


def test_the_view_iframes_render_what_the_view_sink_received(opened: Opened) -> None:
    frames = {f["payload"]: f["view"] for f in opened.seen["frames"]}
    shown = 0
    for scenario in opened.seen["page"]["scenarios"]:
        (view_row,) = [r for r in scenario["rows"] if r["audience"] == "view"]
        for iframe in view_row["iframes"]:
            assert iframe["state"] == "delivered", scenario["title"]
            view = frames[iframe["payload"]]
            payload = opened.payload(iframe["payload"])
            ui = next(o for o in outputs(scenario) if o["audience"] == UI_EXTENSION)
            assert payload["toolResult"] == {"audience": UI_EXTENSION, "format": "structured", "structuredContent": ui["structuredContent"]}
            assert view["state"] == "rendered" and view["mode"] == "ui", scenario["title"]
            results = [m["params"] for m in view["messages"] if isinstance(m, dict) and m.get("method") == "ui/notifications/tool-result"]
            assert results == [payload["toolResult"]], "the view received exactly the ui output, once"
            if ui["structuredContent"].get("view") == "table":
                assert [row[0] for row in view["rows"]] == [r["path"] for r in ui["structuredContent"]["rows"]]
            shown += 1
    assert shown >= 4
    apps = opened.scenario("6. Apps call")
    (iframe,) = next(r for r in apps["rows"] if r["audience"] == "view")["iframes"]
    assert [row[0] for row in frames[iframe["payload"]]["rows"]] == ["data.csv", "notes.md"], "the view rendered its table"
    assert opened.seen["page"]["views"] == "ready"


def test_no_assistant_text_in_a_view_row_and_no_view_data_in_a_model_row(opened: Opened) -> None:
    frames = {f["payload"]: f["view"] for f in opened.seen["frames"]}
    checked_one_way = checked_other_way = 0
    for scenario in opened.seen["page"]["scenarios"]:
        rows = {r["audience"]: r for r in scenario["rows"]}
        if not rows["view"]["iframes"] or rows["model"]["nothing"]:
            continue
        sent = outputs(scenario)
        # Both describe one execution, so a printed line may rightly be in both: only what one alone holds is checked.
        ui_strings = [s for o in sent if o["audience"] == UI_EXTENSION for s in strings(o["structuredContent"])]
        assistant = [o for o in sent if o["audience"] == "assistant"]
        assistant_strings = list(strings(assistant))
        assistant_texts = {b["text"] for o in assistant for b in o.get("content", []) if b.get("type") == "text"}
        for text in {t for t in assistant_texts if len(t) > 12 and not any(t in u for u in ui_strings)}:
            assert text not in rows["view"]["text"], f"{scenario['title']}: assistant text in the view row"
            for iframe in rows["view"]["iframes"]:
                view = frames[iframe["payload"]]
                reached = text in view["text"] or text in json.dumps(view["messages"])
                assert not reached, f"{scenario['title']}: assistant text reached the view"
            checked_one_way += 1
        ui_only = {u for u in ui_strings if len(u) >= 4 and not any(u in a for a in assistant_strings)}
        for text in ui_only:
            assert text not in rows["model"]["text"], f"{scenario['title']}: view data {text[:60]!r} in the model row"
            checked_other_way += 1
        assert not rows["model"]["iframes"] and not rows["view"]["texts"]
    assert checked_one_way >= 2 and checked_other_way >= 2, "the checks would prove nothing"


def test_the_header_says_what_a_reviewer_needs(opened: Opened) -> None:
    header = opened.seen["page"]["header"]
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"):
        assert version in header
    assert re.search(r"(\d+)/\1 pass", header), header  # the demo scenarios, all passing
    assert re.search(r"conformance\s+(\d+)/\1 pass", header, re.I), header
    # sep-3279.yaml against the suite: every row checked by a scenario or excluded, no id on one side only
    assert re.search(r"(\d+)/\1 requirements", header) and "0 untested" in header and "0 untracked" in header, header
    assert "mcp-variants check --server-cmd" in header and "--server-url" in header
    assert opened.seen["page"]["live"] in ("missing", "measured")


def test_the_report_is_self_contained_and_small(opened: Opened) -> None:
    size = opened.path.stat().st_size
    assert size < MAX_BYTES, f"the report is {size:,} bytes"
    assert opened.seen["requests"] == [opened.seen["url"]], "the report fetched something besides itself"
    problems = [m for m in opened.seen["console"] if m.startswith(("error", "pageerror", "warning"))]
    assert not problems, problems  # a CSP violation would be an error here
    assert SCREENSHOT.is_file() and SCREENSHOT.stat().st_size > 20_000


def test_the_readme_shows_the_first_screen() -> None:
    shot = REPO / "docs" / "img" / "report.png"
    assert shot.is_file() and shot.stat().st_size > 20_000
    readme = (REPO / "README.md").read_text()
    commands = readme.index("make test")
    assert readme.index("docs/img/report.png") > commands, "the screenshot sits under the two commands"
