"""A 200 KB print: the response bytes of every execute_code variant, against the printed bytes.

One server (`serve --root <tmp>`, embedded runtime) on stdio; the code prints a known text of
about 200 KB. Each variant of execute_code is requested alone at 2026-12-01 (stateless
envelope; io.modelcontextprotocol/ui with the ui extension in clientCapabilities), then
all five in one request, then the legacy pair (content + structuredContent) on a second
server after a 2025-11-25 handshake. Measured:

  printed bytes   the UTF-8 bytes the code writes to stdout (print(..., end=""))
  output bytes    one requested output, serialised as compact JSON (no spaces, UTF-8 kept),
                  i.e. the element of `outputs` (2026-12-01) or the `content` array and the
                  `structuredContent` object (2025-11-25)
  line bytes      the whole JSON-RPC response line as the server wrote it

Check: each output at most 1.1x the printed bytes. The assistant and user variants are capped
at about 20 KB of text by design (--output-cap), so they are far under; the programmatic and
ui variants carry the full text, so they are the ones the check is about. JSON escaping is
part of the size: a quote, backslash, tab or newline in the text costs two bytes on the wire.

Payloads: `x` * 200,000 on one line; a 200 KB training log (2,600 lines); and, as a stress
case outside the issue's check, 200 KB of JSON records printed as text (every quote escaped).

Run alone: python -m bench.sizes
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mcp_variants.client.stdio import envelope

from . import cli
from .roundtrip import StdioServer

LIMIT_RATIO = 1.1
UI_EXTENSIONS = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
VARIANTS = (
    ("assistant", "content"),
    ("assistant", "structured"),
    ("programmatic", "structured"),
    ("user", "content"),
    ("io.modelcontextprotocol/ui", "structured"),
)
CAPPED = {("assistant", "content"), ("assistant", "structured"), ("user", "content")}

# name -> a Python expression for the text; the code prints it with end="" and the bench
# evaluates the same expression to know the printed bytes.
PAYLOADS = {
    "one line: 'x' * 200_000": ('"x" * 200_000', True),
    "training log, 2,600 lines": (
        ('"".join(f"step {i:05d}  loss={1 / (i + 1):.6f}  acc={i / 2600:.4f}  lr=1.0e-03  elapsed={i * 0.0131:8.3f}s  gpu=87%\\n" '
         "for i in range(2600))"),
        True,
    ),
    "stress: JSON records as text (quotes)": (
        '__import__("json").dumps([{"id": i, "name": f"row {i}", "ok": i % 3 == 0, "tags": ["a", "b"]} for i in range(3000)])',
        False,
    ),
}


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _entry(label: str, output_bytes: int, printed: int, capped: bool, checked: bool) -> dict[str, Any]:
    ratio = round(output_bytes / printed, 4)
    return {"output": label, "bytes": output_bytes, "ratio_to_printed": ratio, "capped_by_design": capped,
            "within_1_1x": ratio <= LIMIT_RATIO, "checked": checked}


def measure(modern: StdioServer, legacy: StdioServer, expression: str, checked: bool) -> dict[str, Any]:
    text = eval(expression)  # our own constant
    printed = len(text.encode())
    code = f"print({expression}, end='')"
    requests: list[dict[str, Any]] = []

    def call(server: StdioServer, params: dict[str, Any]) -> tuple[bytes, dict[str, Any], float]:
        elapsed, line, result = server.round_trip("tools/call", params)
        if result.get("isError"):
            raise RuntimeError(f"execute_code failed: {line[:500]!r}")
        return line, result, elapsed

    for audience, fmt in VARIANTS:
        extensions = UI_EXTENSIONS if audience == "io.modelcontextprotocol/ui" else None
        line, result, elapsed = call(modern, {"name": "execute_code", "arguments": {"code": code},
                                              "requestedOutputs": [{"audience": audience, "format": fmt}],
                                              "_meta": envelope("2026-12-01", extensions)})
        outputs = result["outputs"]
        if len(outputs) != 1 or (outputs[0]["audience"], outputs[0]["format"]) != (audience, fmt):
            raise RuntimeError(f"asked for {audience}/{fmt} alone, got {[(o['audience'], o['format']) for o in outputs]}")
        requests.append({"version": "2026-12-01", "requested": f"{audience}/{fmt}", "line_bytes": len(line),
                         "round_trip_ms": round(elapsed * 1000, 3),
                         "outputs": [_entry(f"{audience}/{fmt}", compact(outputs[0]), printed, (audience, fmt) in CAPPED, checked)]})

    line, result, elapsed = call(modern, {"name": "execute_code", "arguments": {"code": code},
                                          "requestedOutputs": [{"audience": a, "format": f} for a, f in VARIANTS],
                                          "_meta": envelope("2026-12-01", UI_EXTENSIONS)})
    requests.append({"version": "2026-12-01", "requested": "all five together (context)", "line_bytes": len(line),
                     "round_trip_ms": round(elapsed * 1000, 3),
                     "outputs": [_entry(f"{o['audience']}/{o['format']}", compact(o), printed,
                                        (o["audience"], o["format"]) in CAPPED, False) for o in result["outputs"]]})

    line, result, elapsed = call(legacy, {"name": "execute_code", "arguments": {"code": code}})
    requests.append({"version": "2025-11-25", "requested": "legacy pair (content + structuredContent)", "line_bytes": len(line),
                     "round_trip_ms": round(elapsed * 1000, 3),
                     "outputs": [_entry("content (assistant/content)", compact(result["content"]), printed, True, checked),
                                 _entry("structuredContent (assistant/structured)", compact(result["structuredContent"]), printed, True,
                                        checked)]})
    checked_outputs = [o for r in requests for o in r["outputs"] if o["checked"]]
    return {
        "printed_bytes": printed,
        "printed_lines": text.count("\n"),
        "json_escaped_text_bytes": len(json.dumps(text, ensure_ascii=False).encode()) - 2,
        "checked": checked,
        "requests": requests,
        "all_within_1_1x": all(o["within_1_1x"] for o in checked_outputs) if checked else None,
    }


def run() -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="mcpv-bench-sizes-"))
    servers: list[StdioServer] = []
    try:
        root = tmp / "root"
        root.mkdir()
        modern = StdioServer(root)
        servers.append(modern)
        legacy = StdioServer(root)
        servers.append(legacy)
        legacy.handshake("2025-11-25")
        payloads = {name: measure(modern, legacy, expression, checked) for name, (expression, checked) in PAYLOADS.items()}
    finally:
        codes = [server.stop() for server in servers]
        shutil.rmtree(tmp, ignore_errors=True)
    checked = [p["all_within_1_1x"] for p in payloads.values() if p["checked"]]
    return {"limit_ratio": LIMIT_RATIO, "payloads": payloads, "all_checked_within_1_1x": all(checked),
            "server_exit_codes": codes}


def format_report(report: dict[str, Any]) -> str:
    lines = [f"execute_code: response bytes of each variant for a ~200 KB print (check: each output <= {report['limit_ratio']}x printed)"]
    for name, payload in report["payloads"].items():
        stress = "" if payload["checked"] else " [not checked: stress case]"
        lines.append(f"  {name}: printed {payload['printed_bytes']:,} B ({payload['printed_lines']:,} newlines; "
                     f"as a JSON string {payload['json_escaped_text_bytes']:,} B){stress}")
        lines.append(f"    {'version':<11} {'requested':<42} {'output':<42} {'bytes':>9} {'x printed':>9} {'line B':>9}")
        for request in payload["requests"]:
            for i, output in enumerate(request["outputs"]):
                verdict = "" if not output["checked"] else ("ok" if output["within_1_1x"] else "OVER")
                first = i == 0
                lines.append(f"    {request['version'] if first else '':<11} {request['requested'] if first else '':<42} "
                             f"{output['output']:<42} {output['bytes']:>9,} {output['ratio_to_printed']:>9.3f} "
                             f"{(format(request['line_bytes'], ',') if first else ''):>9}  {verdict}")
    lines.append(f"  every checked output within {report['limit_ratio']}x: {report['all_checked_within_1_1x']}")
    return "\n".join(lines)


def main() -> None:
    parser = cli.parser(__doc__)
    args = parser.parse_args()
    report = run()
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
