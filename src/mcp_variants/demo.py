"""`mcp-variants demo`: the SEP-3279 scenarios, run against a live server as a reviewer would.

Starts the server on the embedded runtime over stdio and sends each scenario's request as raw
JSON-RPC (some scenarios send what a correct client never would, to show the server refuse
it). Every tools/call result is handed to the reference host router (`client.HostRouter`),
and the report shows what each consumer's sink received. Then the whole conformance suite,
and one self-contained HTML report (`report/`).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from .client.apps_host import linked_view, view_resource
from .client.errors import InvalidServerResponse
from .client.stdio import StdioConnection, envelope
from .conformance.traceability import coverage
from .conformance.verdict import verdict_lines
from .protocol.declarations import parse_declaration
from .protocol.errors import DeclarationError
from .protocol.types import UI_EXTENSION, Selector, ui_capability
from .protocol.versions import VERSION_KEY, era_for
from .report.numbers import read_bench, results_dir
from .report.page import without_base64, write_report
from .report.record import DemoRun, RecordedExecution, Step, route

UI = {UI_EXTENSION: ui_capability()}
# A line chart drawn with Pillow, one of the server's dependencies: the kernel runs in the server's
# environment, and a plain install has no matplotlib.
PLOT = (
    "import io\n"
    "from IPython.display import Image, display\n"
    "from PIL import Image as Canvas, ImageDraw\n"
    "canvas = Canvas.new('RGB', (400, 250), 'white')\n"
    "draw = ImageDraw.Draw(canvas)\n"
    "draw.line([(40, 20), (40, 220), (380, 220)], fill='gray')\n"
    "draw.line([(60 + 100 * x, 220 - 45 * y) for x, y in enumerate([1, 4, 2, 3])], fill=(31, 119, 180), width=3)\n"
    "draw.text((190, 5), 'demo', fill='black')\n"
    "png = io.BytesIO()\n"
    "canvas.save(png, 'PNG')\n"
    "display(Image(png.getvalue()))"
)
PRINT_200K = 'print("\\n".join(f"line {i:04d}: " + "x" * 39 for i in range(4000)))'  # 4,000 lines of 50 bytes
LISTING_FILES = 300
# The executions measured for "bytes per audience": each asks for every variant its tool declares.
EXECUTIONS = (
    ("execute_code printing a line and displaying a plot", "execute_code", {"code": "print('four points, one line')\n" + PLOT}),
    (f"list_files over {LISTING_FILES} files", "list_files", {"path": "listing", "limit": 1000}),
    ("execute_code printing 200 KB", "execute_code", {"code": PRINT_200K}),
)


def _call(name: str, arguments: dict[str, Any], outputs: list[tuple[str, str]] | None = None,
          version: str = "2026-12-01", extensions: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments, "_meta": envelope(version, extensions)}
    if outputs is not None:
        params["requestedOutputs"] = [{"audience": a, "format": f} for a, f in outputs]
    return params


def _selectors(response: dict[str, Any]) -> list[tuple[str, str]]:
    return [(o["audience"], o["format"]) for o in response.get("result", {}).get("outputs", [])]


def _requested(params: dict[str, Any]) -> list[Selector]:
    """What a call asked for; none means the assistant/content fallback."""
    asked = params.get("requestedOutputs")
    return [Selector(s["audience"], s["format"]) for s in asked] if asked else [Selector("assistant", "content")]


def _nothing(method: str, response: dict[str, Any]) -> str:
    if "error" in response:
        error = response["error"]
        return f"JSON-RPC error {error.get('code')} ({error.get('message')}): no result, so nothing reached any consumer"
    return f"{method} is not a tool call: nothing is routed to any consumer"


class Demo:
    def __init__(self, connection: StdioConnection) -> None:
        self.connection = connection
        self.steps: list[Step] = []
        self.executions: list[RecordedExecution] = []
        self.schemas: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.tools: dict[str, dict[str, Any]] = {}
        self.views: dict[str, str] = {}
        self.versions: list[str] = []

    def exchange(self, title: str, rule: str, method: str, params: dict[str, Any],
                 checks: Callable[[dict[str, Any]], list[tuple[str, bool]]]) -> Step:
        """Send one request; a tools/call result goes to the host router, whose deliveries become the step's rows."""
        request = {"jsonrpc": "2.0", "method": method, "params": params}
        response = self.connection.request(method, params)
        step = Step(title, rule, request, response)
        result = response.get("result")
        if method == "tools/call" and isinstance(result, dict):
            step.tool, step.arguments = params["name"], dict(params.get("arguments") or {})
            legacy = era_for(params["_meta"][VERSION_KEY]).is_legacy
            step.routed = route(step.tool, _requested(params), result, legacy=legacy)
        else:
            step.nothing = _nothing(method, response)
        try:
            step.checks = checks(response)
        except (KeyError, IndexError, TypeError) as exc:
            step.checks = [(f"response has the expected shape ({exc!r})", False)]
        if step.routed is not None:
            step.checks.append(("the host router delivered every output to its own consumer, nothing dropped",
                                not step.routed.dropped))
        if step.routed is not None and step.routed.received["view"]:
            step.checks.append(self._view_served(step.tool or ""))
        return step

    def run(self, title: str, rule: str, method: str, params: dict[str, Any],
            checks: Callable[[dict[str, Any]], list[tuple[str, bool]]]) -> dict[str, Any]:
        step = self.exchange(title, rule, method, params, checks)
        self.steps.append(step)
        return step.response or {}

    def _view_served(self, tool: str) -> tuple[str, bool]:
        """Read the tool's view (resources/read, once per view) for the report's view rows."""
        uri = linked_view(self.tools.get(tool, {}))
        if uri is None:
            return (f"{tool} links a view", False)
        if uri not in self.views:
            response = self.connection.request("resources/read", {"uri": uri, "_meta": envelope("2026-12-01", UI)})
            try:
                self.views[uri] = view_resource(uri, response.get("result") or {}).html
            except InvalidServerResponse as exc:
                return (f"its view {uri} is served: {exc}", False)
        return (f"its view {uri} is served (resources/read)", True)

    def valid(self, tool: str, output: dict[str, Any]) -> bool:
        schema = self.schemas[(tool, output["audience"], output["format"])]
        return bool(Draft202012Validator(schema).is_valid(output["structuredContent"]))

    def scenarios(self, root: Path) -> None:
        (root / "data.csv").write_text("a,b\n1,2\n")
        (root / "notes.md").write_text("# notes\n")
        discovered = self.run("Discover the server", "server/discover: the versions served and the extensions offered",
                              "server/discover", {"_meta": envelope("2026-12-01", UI)},
                              lambda r: [("2026-12-01 is served", "2026-12-01" in r["result"]["supportedVersions"]),
                                         ("the ui extension is offered", UI_EXTENSION in r["result"]["capabilities"]["extensions"])])
        self.versions = list(discovered.get("result", {}).get("supportedVersions", []))
        listed = self.run("Discover the tools at 2026-12-01, with the Apps extension", "Tool.outputVariants",
                          "tools/list", {"_meta": envelope("2026-12-01", UI)},
                          lambda r: [("every tool has outputVariants and no outputSchema",
                                      all("outputVariants" in t and "outputSchema" not in t for t in r["result"]["tools"])),
                                     ("every tool declares assistant/content",
                                      all({"audience": "assistant",
                                           "format": "content"} in t["outputVariants"] for t in r["result"]["tools"]))])
        for tool in listed["result"]["tools"]:
            self.tools[tool["name"]] = tool
            for v in tool["outputVariants"]:
                if "schema" in v:
                    self.schemas[(tool["name"], v["audience"], v["format"])] = v["schema"]

        self.run("1. Conversational call", "requestedOutputs: assistant/content", "tools/call",
                 _call("execute_code", {"code": "print('hello from the kernel')"}, [("assistant", "content")]),
                 lambda r: [("exactly assistant/content", _selectors(r) == [("assistant", "content")]),
                            ("the text reached the output", "hello" in r["result"]["outputs"][0]["content"][0]["text"])])
        self.run("2. Code mode", "programmatic/structured", "tools/call",
                 _call("list_files", {}, [("programmatic", "structured")]),
                 lambda r: [("exactly programmatic/structured", _selectors(r) == [("programmatic", "structured")]),
                            ("valid against the programmatic schema", self.valid("list_files", r["result"]["outputs"][0]))])
        self.run("3. Structured model input", "assistant/structured", "tools/call",
                 _call("list_kernels", {}, [("assistant", "structured")]),
                 lambda r: [("exactly assistant/structured", _selectors(r) == [("assistant", "structured")]),
                            ("rows shape (kind, columns, items, count)",
                             {"kind", "columns", "items", "count"} <= set(r["result"]["outputs"][0]["structuredContent"]))])
        self.run("4. User-rendered media", "user/content", "tools/call",
                 _call("execute_code", {"code": PLOT}, [("user", "content")]),
                 lambda r: [("exactly user/content", _selectors(r) == [("user", "content")]),
                            ("a PNG image block", any(b["type"] == "image" and b["mimeType"] == "image/png"
                                                      for b in r["result"]["outputs"][0]["content"]))])
        self.run("5. Host-native table", "user/structured", "tools/call",
                 _call("list_files", {}, [("user", "structured")]),
                 lambda r: [("exactly user/structured", _selectors(r) == [("user", "structured")]),
                            ("columns and rows", {"columns", "rows"} <= set(r["result"]["outputs"][0]["structuredContent"]))])
        self.run("6. Apps call", "assistant/content + io.modelcontextprotocol/ui/structured", "tools/call",
                 _call("list_files", {}, [("assistant", "content"), (UI_EXTENSION, "structured")], extensions=UI),
                 lambda r: [("both outputs, nothing else", sorted(_selectors(r)) == sorted([("assistant", "content"), (UI_EXTENSION,
                                                                                                                       "structured")])),
                            ("the view data is valid against the ui schema", self.valid("list_files", r["result"]["outputs"][1]))])
        self._declaration_without_assistant_content()
        self.run("10a. Undeclared selector", "MUST reject undeclared variants as invalid params", "tools/call",
                 _call("execute_code", {"code": "1"}, [("user", "structured")]),
                 lambda r: [("-32602", r.get("error", {}).get("code") == -32602),
                            ("names the selector", r["error"]["data"]["selector"] == {"audience": "user", "format": "structured"})])
        self.run("10b. Unnegotiated extension audience", "MUST NOT request an unnegotiated extension audience", "tools/call",
                 _call("execute_code", {"code": "1"}, [(UI_EXTENSION, "structured")]),
                 lambda r: [("-32602", r.get("error", {}).get("code") == -32602),
                            ("reason extension-not-negotiated", r["error"]["data"]["reason"] == "extension-not-negotiated")])
        self.run("11. Independent schemas", "programmatic and App outputs each valid against their own schema", "tools/call",
                 _call("execute_code", {"code": "print(6*7)"}, [("programmatic", "structured"), (UI_EXTENSION, "structured")],
                       extensions=UI),
                 lambda r: [("programmatic output valid", self.valid("execute_code", r["result"]["outputs"][0])),
                            ("ui output valid", self.valid("execute_code", r["result"]["outputs"][1])),
                            ("the two schemas differ", self.schemas[("execute_code", "programmatic", "structured")]
                             != self.schemas[("execute_code", UI_EXTENSION, "structured")])])
        self.run("12. requestedOutputs under 2026-07-28", "a client MUST NOT send it; this server refuses it", "tools/call",
                 _call("execute_code", {"code": "1"}, [("assistant", "content")], version="2026-07-28"),
                 lambda r: [("-32602", r.get("error", {}).get("code") == -32602)])
        self.run("13a. Legacy tool shape at 2026-07-28", "outputSchema from assistant/structured; no outputVariants",
                 "tools/list", {"_meta": envelope("2026-07-28")},
                 lambda r: [("no outputVariants", all("outputVariants" not in t for t in r["result"]["tools"])),
                            ("outputSchema present", all("outputSchema" in t for t in r["result"]["tools"]))])
        self.run("13b. Legacy result at 2026-07-28", "content from assistant/content, structuredContent from assistant/structured",
                 "tools/call", _call("execute_code", {"code": "21*2"}, version="2026-07-28"),
                 lambda r: [("content and structuredContent", {"content", "structuredContent"} <= set(r["result"])),
                            ("no outputs", "outputs" not in r["result"])])
        self.run("15. Nothing unrequested", "MUST NOT return an output the client did not request; no mirror", "tools/call",
                 _call("execute_code", {"code": "print('only for code')"}, [("programmatic", "structured")]),
                 lambda r: [("one output", len(r["result"]["outputs"]) == 1),
                            ("no top-level content or structuredContent", not {"content", "structuredContent"} & set(r["result"]))])
        self.run("Errors: a raising cell", "isError with one output per requested selector", "tools/call",
                 _call("execute_code", {"code": "1/0"}, [("assistant", "content"), ("programmatic", "structured")]),
                 lambda r: [("isError", r["result"].get("isError") is True),
                            ("both selectors answered", len(r["result"]["outputs"]) == 2),
                            ("ZeroDivisionError named",
                             r["result"]["outputs"][1]["structuredContent"]["error"]["ename"] == "ZeroDivisionError")])

    def _declaration_without_assistant_content(self) -> None:
        bad = {"name": "no_fallback", "inputSchema": {"type": "object"},
               "outputVariants": [{"audience": "programmatic", "format": "structured", "schema": {"type": "object"}}]}
        try:
            parse_declaration(bad)
            message, refused = "accepted", False
        except DeclarationError as exc:
            message, refused = str(exc), True
        self.steps.append(Step("7. A declaration without assistant/content", "Every tool MUST declare assistant/content",
                               {"declaration": bad}, {"refused": message}, [("the server refuses to load it", refused)],
                               nothing="no call: the server refuses such a declaration before it serves anything"))

    def measure(self, root: Path) -> None:
        """Each execution with every declared variant, routed; and the same call as a 2026-07-28 client makes it."""
        (root / "listing").mkdir()
        for i in range(LISTING_FILES):
            (root / "listing" / f"part-{i:03d}.csv").write_text("a,b\n" * (i % 7 + 1))
        for title, tool, arguments in EXECUTIONS:
            declared = [(v["audience"], v["format"]) for v in self.tools[tool]["outputVariants"]]

            def checks(r: dict[str, Any], declared: list[tuple[str, str]] = declared) -> list[tuple[str, bool]]:
                return [("one output per requested selector, in order", _selectors(r) == declared),
                        ("not an error", r["result"].get("isError") is not True)]

            step = self.exchange(f"Every audience: {title}", f"requestedOutputs: all {len(declared)} variants {tool} declares",
                                 "tools/call", _call(tool, arguments, declared, extensions=UI), checks)
            legacy = self.connection.request("tools/call", _call(tool, arguments, version="2026-07-28"))
            result = legacy.get("result") or {}
            step.checks.append(("the same call at 2026-07-28 gets the legacy pair", {"content", "structuredContent"} <= set(result)))
            self.executions.append(RecordedExecution(title, step, result))

    def result(self, scorecard: dict[str, Any]) -> DemoRun:
        return DemoRun(self.steps, self.executions, self.versions, self.tools, self.views, scorecard)


def _short(value: Any, limit: int = 600) -> str:
    text = json.dumps(without_base64(value), indent=None)
    return text if len(text) <= limit else text[:limit] + f" … ({len(text)} chars)"


def conformance(root: Path) -> dict[str, Any]:
    """The whole conformance suite (every testing-plan item, every wire-visible MUST, the
    host items against the reference client) against a fresh server on `root`."""
    from .conformance.binding import CallConfig
    from .conformance.runner import RunConfig, run
    from .conformance.wire import StdioTarget

    (root / "paging.ipynb").write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"id": "c1", "cell_type": "code", "metadata": {}, "source": "1 + 1", "outputs": [], "execution_count": None}],
    }))
    target = StdioTarget([sys.executable, "-m", "mcp_variants", "serve", "--embedded", "--root", str(root)], cwd=str(root))
    try:
        # The App-only tool needs a notebook to page through; everything else uses the defaults.
        return run(target, None, RunConfig(calls=CallConfig(calls={"read_notebook_page": {"notebook": "paging.ipynb"}})))
    finally:
        target.close()


def main(report: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="mcp-variants-demo-") as tmp:
        root = Path(tmp)
        with StdioConnection([sys.executable, "-m", "mcp_variants", "serve", "--root", str(root)]) as connection:
            demo = Demo(connection)
            demo.scenarios(root)
            demo.measure(root)
        scorecard = conformance(root)
    run = demo.result(scorecard)
    for step in run.all_steps:
        print(f"\n{'PASS' if step.passed else 'FAIL'}  {step.title}   [{step.rule}]")
        print(f"  → {_short(step.request)}")
        print(f"  ← {_short(step.response)}")
        if step.routed is not None:
            got = {sink: [str(d.selector or d.legacy_field) for d in received] for sink, received in step.routed.received.items()}
            print("  routed: " + "; ".join(f"{sink} ← {', '.join(names) or 'nothing'}" for sink, names in got.items()))
        for name, ok in step.checks:
            print(f"    {'✓' if ok else '✗'} {name}")
    print("\nThe conformance suite (mcp-variants check), every scenario with the rule it checks:")
    for result in scorecard["scenarios"]:
        print(f"  {result['status'].upper():4}  {result['level']:<6} {result['id']}: {result.get('title') or ''}")
    write_report(run, report, read_bench(results_dir()), coverage().numbers())
    passed = sum(s.passed for s in run.all_steps)
    totals = scorecard["totals"]
    print(f"\n{passed}/{len(run.all_steps)} demo scenarios pass; conformance: {totals['pass']} pass, "
          f"{totals['fail']} fail, {totals['skip']} skip of {totals['scenarios']}. Report: {report.resolve()}")
    print("\n".join(verdict_lines(scorecard["verdict"], [f"{totals['requiredFailures']} required scenario(s) failed"], "check")))
    # Every scenario exercised: the demo's own server can show every rule, so a skip fails it too.
    return 0 if passed == len(run.all_steps) and scorecard["verdict"]["status"] == "pass" else 1
