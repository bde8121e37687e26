"""`mcp-variants demo`: the SEP-3279 scenarios, run against a live server as a reviewer would.

Starts the server on the embedded runtime over stdio, sends each scenario's request
as raw JSON-RPC, shows request and response with a verdict, and writes one
self-contained HTML report.
"""

from __future__ import annotations

import html
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from .client.stdio import StdioConnection, envelope
from .protocol.declarations import parse_declaration
from .protocol.errors import DeclarationError
from .protocol.types import UI_EXTENSION

UI = {UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}
PLOT = (
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
    "import matplotlib.pyplot as plt\nplt.plot([1, 4, 2, 3]); plt.title('demo'); plt.show()"
)


@dataclass
class Step:
    title: str
    rule: str
    request: dict[str, Any] | None
    response: dict[str, Any] | None
    checks: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(ok for _, ok in self.checks)


def _call(name: str, arguments: dict[str, Any], outputs: list[tuple[str, str]] | None = None,
          version: str = "2026-12-01", extensions: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments, "_meta": envelope(version, extensions)}
    if outputs is not None:
        params["requestedOutputs"] = [{"audience": a, "format": f} for a, f in outputs]
    return params


def _selectors(response: dict[str, Any]) -> list[tuple[str, str]]:
    return [(o["audience"], o["format"]) for o in response.get("result", {}).get("outputs", [])]


class Demo:
    def __init__(self, connection: StdioConnection) -> None:
        self.connection = connection
        self.steps: list[Step] = []
        self.schemas: dict[tuple[str, str, str], dict[str, Any]] = {}

    def run(self, title: str, rule: str, method: str, params: dict[str, Any],
            checks: Callable[[dict[str, Any]], list[tuple[str, bool]]]) -> dict[str, Any]:
        request = {"jsonrpc": "2.0", "method": method, "params": params}
        response = self.connection.request(method, params)
        step = Step(title, rule, request, response)
        try:
            step.checks = checks(response)
        except (KeyError, IndexError, TypeError) as exc:
            step.checks = [(f"response has the expected shape ({exc!r})", False)]
        self.steps.append(step)
        return response

    def valid(self, tool: str, output: dict[str, Any]) -> bool:
        schema = self.schemas[(tool, output["audience"], output["format"])]
        return bool(Draft202012Validator(schema).is_valid(output["structuredContent"]))

    def scenarios(self, root: Path) -> None:
        (root / "data.csv").write_text("a,b\n1,2\n")
        (root / "notes.md").write_text("# notes\n")
        listed = self.run("Discover the tools at 2026-12-01, with the Apps extension", "Tool.outputVariants",
                          "tools/list", {"_meta": envelope("2026-12-01", UI)},
                          lambda r: [("every tool has outputVariants and no outputSchema",
                                      all("outputVariants" in t and "outputSchema" not in t for t in r["result"]["tools"])),
                                     ("every tool declares assistant/content",
                                      all({"audience": "assistant",
                                           "format": "content"} in t["outputVariants"] for t in r["result"]["tools"]))])
        for tool in listed["result"]["tools"]:
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
                               {"declaration": bad}, {"refused": message}, [("the server refuses to load it", refused)]))


def _short(value: Any, limit: int = 600) -> str:
    text = json.dumps(value, indent=None)
    return text if len(text) <= limit else text[:limit] + f" … ({len(text)} chars)"


def write_report(steps: list[Step], path: Path, scorecard: dict[str, Any]) -> None:
    totals = scorecard["totals"]
    parts = ["<!doctype html><meta charset=utf-8><title>SEP-3279 demo</title>",
             "<style>body{font:14px system-ui;margin:2em;max-width:70em}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;"
             "word-break:break-all}.ok{color:#060}.bad{color:#a00}img{max-width:24em;border:1px solid #ccc}"
             "summary{cursor:pointer;font-weight:600}</style>",
             f"<h1>SEP-3279 reference server: {sum(s.passed for s in steps)}/{len(steps)} demo scenarios pass; "
             f"conformance {totals['pass']}/{totals['scenarios']}</h1><ol>"]
    parts += [f"<li class={'ok' if s.passed else 'bad'}><a href='#s{i}'>{html.escape(s.title)}</a>: "
              f"{'PASS' if s.passed else 'FAIL'}</li>" for i, s in enumerate(steps)]
    parts.append("<li><a href='#conformance'>The conformance suite</a></li></ol>")
    for i, step in enumerate(steps):
        verdict = "ok" if step.passed else "bad"
        parts.append(f"<h2 id=s{i} class={verdict}>{'PASS' if step.passed else 'FAIL'}: {html.escape(step.title)}</h2>")
        parts.append(f"<p><i>{html.escape(step.rule)}</i></p><ul>")
        parts += [f"<li class={'ok' if ok else 'bad'}>{html.escape(name)}</li>" for name, ok in step.checks]
        parts.append("</ul>" + _exchange("Request", step.request))
        for image in _images(step.response):
            parts.append(f"<img alt='image output' src='data:{image['mimeType']};base64,{image['data']}'>")
        parts.append(_exchange("Response", _without_base64(step.response)))
    parts.append(_conformance_section(scorecard))
    path.write_text("".join(parts))


def _exchange(label: str, value: Any) -> str:
    """A request or response, folded when it is long (a whole tools/list, say)."""
    text = json.dumps(value, indent=2)
    folded = "" if len(text) < 3000 else f" ({len(text):,} characters)"
    return (f"<details{'' if folded else ' open'}><summary>{label}{folded}</summary>"
            f"<pre>{html.escape(text)}</pre></details>")


def _conformance_section(scorecard: dict[str, Any]) -> str:
    totals = scorecard["totals"]
    rows = []
    for result in scorecard["scenarios"]:
        rule = "; ".join(f"{r['section']}: “{r['quote']}”" for r in result.get("rules", []))
        css = {"pass": "ok", "fail": "bad"}.get(result["status"], "")
        reason = f"<br><small>{html.escape(result.get('reason', ''))}</small>" if result["status"] != "pass" else ""
        rows.append(f"<tr><td class={css}>{result['status'].upper()}</td><td>{html.escape(result['id'])}</td>"
                    f"<td>{html.escape(result.get('title') or '')}{reason}</td><td>{result['level']}</td>"
                    f"<td><small>{html.escape(rule)}</small></td></tr>")
    return (f"<h1 id=conformance>The conformance suite: {totals['pass']} pass, {totals['fail']} fail, {totals['skip']} skip</h1>"
            "<p>Every item of the SEP's testing plan and every MUST visible on the wire, run by "
            "<code>mcp-variants check</code> against a fresh server; host items against the reference client.</p>"
            "<table border=1 cellpadding=4 style='border-collapse:collapse'><tr><th>verdict</th><th>scenario</th>"
            "<th>what</th><th>level</th><th>rule</th></tr>" + "".join(rows) + "</table>")


def _images(response: Any) -> list[dict[str, Any]]:
    outputs = (response or {}).get("result", {}).get("outputs", []) if isinstance(response, dict) else []
    return [b for o in outputs for b in o.get("content", []) if b.get("type") == "image"]


def _without_base64(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("type") == "image" and isinstance(value.get("data"), str):
            return {**value, "data": f"<{len(value['data'])} base64 characters, shown above>"}
        return {k: _without_base64(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_base64(v) for v in value]
    return value


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
    target = StdioTarget([sys.executable, "-m", "mcp_variants", "serve", "--root", str(root)], cwd=str(root))
    try:
        # The App-only tool needs a notebook to page through; everything else uses the defaults.
        return run(target, None, RunConfig(calls=CallConfig(calls={"read_notebook_page": {"notebook": "paging.ipynb"}})))
    finally:
        target.close()


def main(report: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="mcp-variants-demo-") as tmp:
        root = Path(tmp)
        with StdioConnection.serve(root) as connection:
            demo = Demo(connection)
            demo.scenarios(root)
        scorecard = conformance(root)
    for step in demo.steps:
        print(f"\n{'PASS' if step.passed else 'FAIL'}  {step.title}   [{step.rule}]")
        print(f"  → {_short(step.request)}")
        print(f"  ← {_short(_without_base64(step.response))}")
        for name, ok in step.checks:
            print(f"    {'✓' if ok else '✗'} {name}")
    print("\nThe conformance suite (mcp-variants check), every scenario with the rule it checks:")
    for result in scorecard["scenarios"]:
        print(f"  {result['status'].upper():4}  {result['level']:<6} {result['id']}: {result.get('title') or ''}")
    write_report(demo.steps, report, scorecard)
    passed = sum(s.passed for s in demo.steps)
    totals = scorecard["totals"]
    print(f"\n{passed}/{len(demo.steps)} demo scenarios pass; conformance: {totals['pass']} pass, "
          f"{totals['fail']} fail, {totals['skip']} skip of {totals['scenarios']}. Report: {report.resolve()}")
    return 0 if passed == len(demo.steps) and scorecard["ok"] else 1
