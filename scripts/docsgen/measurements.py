"""The calls the open questions are measured on, each asked for in every way a client can ask, counted.

Counts are of the compact JSON the server writes, with `durationMs` at a fixed stand-in so
they do not move between runs.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_variants.conformance.wire import RoundTrip

from .jsontext import compact
from .normalize import RUN_IN_URI
from .recording import Recorder
from .records import Collected, ErrorOutput, Measurement, Row, ViewCost
from .sample_files import PRINT_200K, SHOW_CHART
from .selection import AC, UI, UIS, V, all_selectors, key

DURATION_STANDIN = 12.345  # durationMs is counted with this value (6 characters)
RUN_STANDIN = "mcp-variants://runs/0123456789abcdef/"  # a run's id (a new one each call), as long as any
SCENARIOS: list[tuple[str, str, str, dict[str, Any]]] = [  # (slug, title, tool, arguments)
    ("print-200k", "execute_code printing 200 KB", "execute_code", {"code": PRINT_200K}),
    ("plot", "execute_code displaying a chart (PNG)", "execute_code", {"code": SHOW_CHART}),
    ("files-1000", "list_files over 1,000 files", "list_files", {"path": "bulk", "limit": 1000}),
    ("notebook-100", "read_notebook of a 100-cell notebook", "read_notebook", {"notebook": "hundred.ipynb", "limit": 100}),
]
FAILURES: list[tuple[str, str, dict[str, Any]]] = [  # (title, tool, arguments): what each audience gets when a tool fails
    ("execute_code raising after a print", "execute_code", {"code": "print('before')\n1 / 0"}),
    ("list_files outside the root", "list_files", {"path": "../"}),
    ("read_cell of a cell that does not exist", "read_cell", {"notebook": "hundred.ipynb", "cell_index": 999}),
]


def steady(value: Any) -> Any:
    """The response with durationMs and run ids at fixed stand-ins, so byte counts do not move between runs."""
    if isinstance(value, dict):
        return {k: (DURATION_STANDIN if k == "durationMs" else steady(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [steady(v) for v in value]
    if isinstance(value, str):
        return RUN_IN_URI.sub(RUN_STANDIN, value)
    return value


def nbytes(value: Any) -> int:
    return len(compact(steady(value)))


def chars(value: Any) -> int:
    return len(compact(steady(value)).decode())


def content_stats(blocks: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(text characters, images, base64 characters of the images) of content blocks."""
    text = sum(len(b.get("text", "")) for b in blocks if b.get("type") == "text")
    images = [b for b in blocks if b.get("type") == "image"]
    return text, len(images), sum(len(b.get("data", "")) for b in images)


def row_for(label: str, response: dict[str, Any], note: str = "") -> Row:
    row = Row(label, nbytes(response) + 1, note=note)  # + the newline that ends a stdio message
    result = response["result"]
    for output in result.get("outputs", []):
        if output["format"] == "content":
            text, images, image_chars = content_stats(output["content"])
            row.text_chars += text
            row.images += images
            row.image_chars += image_chars
        else:
            row.structured_chars += chars(output["structuredContent"])
    if "content" in result:
        row.text_chars, row.images, row.image_chars = content_stats(result["content"])
    if "structuredContent" in result:
        row.structured_chars = chars(result["structuredContent"])
    return row


def describe(name: str, value: Any) -> str:
    """`outputs` (2 × string), `outputs` (1 × nbformat output): what an extra key of an error output holds."""
    if isinstance(value, list):
        kinds = sorted({"nbformat output" if isinstance(v, dict) and "output_type" in v else type(v).__name__.replace("str", "string")
                        .replace("dict", "object") for v in value})
        return f"`{name}` ({len(value)} × {' or '.join(kinds) or 'nothing'})"
    return f"`{name}` ({type(value).__name__})"


def measure(server: Recorder, got: Collected) -> None:
    got.selection_bytes = len(compact({"requestedOutputs": [AC]})) - 1  # `"requestedOutputs":[...]` plus its comma
    for slug, title, tool, arguments in SCENARIOS:
        if tool in got.listing_ui:
            got.measurements.append(measure_call(server, got, Measurement(slug, title, tool, arguments)))
    for title, tool, arguments in FAILURES:
        if tool in got.listing_ui:
            trip = server.call(tool, arguments, all_selectors(got.listing_ui[tool]), extensions=UI)
            got.errors += [error_output(title, output) for output in trip.result.get("outputs", [])]


def measure_call(server: Recorder, got: Collected, m: Measurement) -> Measurement:
    selectors = all_selectors(got.listing_ui[m.tool])

    def call(outputs: list[dict[str, str]] | None, version: str = V) -> RoundTrip:
        return server.call(m.tool, m.arguments, outputs, version=version, extensions=UI if version == V else None)

    fallback = call(None)
    m.rows.append(row_for("no `requestedOutputs` (fallback)", fallback.message))
    explicit = None
    for selector in selectors:
        trip = call([selector])
        m.rows.append(row_for(f"`{key(selector)}`", trip.message))
        if selector == AC:
            explicit = trip
    everything = call(selectors)
    m.is_error = bool(everything.result.get("isError"))
    m.outputs = {key(o): o for o in everything.result.get("outputs", [])}
    m.rows.append(row_for(f"all {len(selectors)} variants in one call", everything.message))
    if UIS in selectors:
        m.rows.append(row_for("`assistant/content` + `ui/structured` (an Apps host)", call([AC, UIS]).message))
    legacy = call(None, version="2026-07-28")
    m.rows.append(row_for("legacy pair (2026-07-28: `content` + `structuredContent`)", legacy.message))
    if "structuredContent" in legacy.result:
        mirrored = json.loads(json.dumps(legacy.message))
        mirrored["result"]["content"].append({"type": "text", "text": json.dumps(legacy.result["structuredContent"])})
        m.rows.append(row_for("legacy pair + JSON mirror in `content`", mirrored, note="computed: what a server that mirrors would send"))
    # Each call is a run of its own, with its own outputs' URIs: compared with the run ids at one stand-in.
    m.fallback_identical = explicit is not None and steady(fallback.result.get("outputs")) == steady(explicit.result.get("outputs"))
    ui, ac = m.outputs.get(key(UIS)), m.outputs.get(key(AC))
    if UIS in selectors and ui and ac:
        reduced = {"content": [], "structuredContent": ui["structuredContent"]}
        got.view.append(ViewCost(m.title, output_bytes=nbytes(ui["structuredContent"]), reduced=nbytes(reduced),
                                 whole=nbytes({"outputs": [ac, ui]}), assistant=nbytes(ac["content"])))
    return m


def error_output(title: str, output: dict[str, Any]) -> ErrorOutput:
    if output["format"] != "structured":
        return ErrorOutput(title, key(output), "(content)", [], [], nbytes(output["content"]))
    value = output["structuredContent"]
    if not isinstance(value, dict):
        return ErrorOutput(title, key(output), "", [], [], nbytes(value))
    return ErrorOutput(title, key(output), value.get("error", {}).get("type", ""), sorted(value.get("error", {})),
                       [describe(k, v) for k, v in sorted(value.items()) if k != "error"], nbytes(value))
