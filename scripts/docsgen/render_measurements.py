"""docs/examples/measure-*.md and findings-*.md: the measurements as tables, and the numbers the
answers to the SEP's open questions rest on (docs/reference/open-questions.md includes them)."""

from __future__ import annotations

import json

from .jsontext import compact
from .markdown import GENERATED_NOTE, human
from .records import Collected, Measurement
from .variants_files import shapes


def table(header: list[str], align: list[str], rows: list[str]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|", *rows])


def render_measurements(got: Collected) -> dict[str, str]:
    files = {f"examples/measure-{m.slug}.md": GENERATED_NOTE + render_measurement(m) for m in got.measurements}
    files["examples/measure-summary.md"] = GENERATED_NOTE + render_summary(got)
    files["examples/measure-view.md"] = GENERATED_NOTE + table(
        ["call", "the ui output alone (bytes)", "wrapped in a reduced CallToolResult (bytes)",
         "the whole result, assistant output included (bytes)", "assistant/content the view would also see (bytes)"],
        ["---", "--:", "--:", "--:", "--:"],
        [f"| {v.title} | {human(v.output_bytes)} | {human(v.reduced)} | {human(v.whole)} | {human(v.assistant)} |" for v in got.view],
    ) + "\n"
    files["examples/measure-errors.md"] = GENERATED_NOTE + table(
        ["failure", "requested", "`error.type`", "keys of `error`", "keys beside `error`", "bytes"],
        ["---", "---", "---", "---", "---", "--:"],
        [f"| {e.title} | `{e.selector}` | {e.type or '–'} | {', '.join(e.error_keys) or '–'} | {', '.join(e.beside) or '–'} | "
         f"{human(e.bytes)} |" for e in got.errors],
    ) + "\n"
    files.update(render_findings(got))
    return files


def render_measurement(m: Measurement) -> str:
    rows = []
    for row in m.rows:
        images = f"{row.images} ({human(row.image_chars)})" if row.images else "–"
        label = row.label + (f" *({row.note})*" if row.note else "")
        rows.append(f"| {label} | {human(row.response_bytes)} | {human(row.text_chars) if row.text_chars else '–'} | "
                    f"{images} | {human(row.structured_chars) if row.structured_chars else '–'} |")
    heading = (f"**{m.title}**: `{m.tool}` with `{json.dumps(m.arguments, ensure_ascii=False)}`"
               + (" (the call failed: isError)" if m.is_error else "") + "\n")
    counts = table(["requested", "response bytes", "text characters", "images (base64 characters)", "structured JSON characters"],
                   ["---", "--:", "--:", "--:", "--:"], rows)
    same = "identical to" if m.fallback_identical else "**not** identical to"
    return (f"{heading}\n{counts}\n\n"
            f"The fallback's output is {same} the output of an explicit `assistant/content` request.\n")


def render_summary(got: Collected) -> str:
    rows = []
    for m in got.measurements:
        by = {r.label: r for r in m.rows}
        fallback = m.rows[0].response_bytes
        structured = [r.response_bytes for r in m.rows if "structured`" in r.label and r.label.count("`") == 2]
        every = next((r.response_bytes for r in m.rows if r.label.startswith("all ")), 0)
        legacy = next((r.response_bytes for r in m.rows if r.label.startswith("legacy pair (")), 0)
        mirror = next((r.response_bytes for r in m.rows if r.label.startswith("legacy pair +")), None)
        programmatic = by.get("`programmatic/structured`")
        rows.append(f"| {m.title} | {human(fallback)} | {human(min(structured)) if structured else '–'} | "
                    f"{human(programmatic.response_bytes) if programmatic else '–'} | {human(every)} | {human(legacy)} | "
                    f"{human(mirror) if mirror else '–'} |")
    summary = table(["call", "fallback (`assistant/content`)", "smallest structured", "`programmatic/structured`", "all variants",
                     "legacy pair", "legacy pair + mirror"], ["---", *["--:"] * 6], rows)
    return (f"{summary}\n\nAsking for the fallback explicitly costs {got.selection_bytes} bytes per request "
            '(`"requestedOutputs":[{"audience":"assistant","format":"content"}],`).\n')


def render_findings(got: Collected) -> dict[str, str]:
    """The numbers the open-question answers rest on, computed from the measurements."""
    tools = got.listing_ui
    several = sum(1 for t in tools.values() if len(t["outputVariants"]) > 1)
    q1 = [(f"- {several} of the {len(tools)} tools declare more than one variant, so \"required whenever a tool "
          "declares several\" would mean required on every call to this server.")]
    identical = sum(1 for m in got.measurements if m.fallback_identical)
    q1.append(f"- In {identical} of {len(got.measurements)} measured calls the fallback was byte-for-byte the "
              "`assistant/content` output an explicit request gets.")
    for m in got.measurements:
        fallback = m.rows[0].response_bytes
        every = next(r.response_bytes for r in m.rows if r.label.startswith("all "))
        legacy = next(r.response_bytes for r in m.rows if r.label.startswith("legacy pair ("))
        q1.append(f"- {m.title}: the fallback is {human(fallback)} bytes; every variant at once would be "
                  f"{every / fallback:.1f}× that, the legacy pair {legacy / fallback:.1f}×.")
    q1.append(f"- Making the selection mandatory costs {got.selection_bytes} bytes per request for a client that "
              "wants the fallback anyway.")

    error_shape = {k: v for k, v in shapes()["error"].items() if k != "$comment"}
    structured = sum(1 for t in tools.values() for v in t["outputVariants"] if v["format"] == "structured")
    per_variant = len(compact(error_shape)) + len(',"errorSchema":')
    q2 = [(f"- Every structured error output measured here ({sum(1 for e in got.errors if e.type != '(content)')}) "
          "follows the one error shape; the tool-specific keys beside `error` differ by audience "
          "(see the table)."),
          (f"- The error shape is {len(compact(error_shape))} bytes of JSON Schema. Inlined as an `errorSchema` on each of "
          f"the {structured} structured variants (Apps extension negotiated), it would add {human(structured * per_variant)} "
          f"bytes to a `tools/list` response of {human(got.listing_bytes)} bytes "
          f"(+{100 * structured * per_variant / got.listing_bytes:.0f}%).")]

    q3 = [f"- {v.title}: the view needs {human(v.output_bytes)} bytes; the whole result would add "
          f"{human(v.whole - v.output_bytes)} bytes it has no use for, the model's own text among them; "
          f"a reduced `CallToolResult` adds {v.reduced - v.output_bytes}." for v in got.view]
    return {"examples/findings-q1.md": GENERATED_NOTE + "\n".join(q1) + "\n",
            "examples/findings-q2.md": GENERATED_NOTE + "\n".join(q2) + "\n",
            "examples/findings-q3.md": GENERATED_NOTE + "\n".join(q3) + "\n"}
