"""docs/api/: one page per tool in variants/ (its arguments, every variant with its schema and an example
from one real call), the index of tools, and the shared shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .jsontext import pretty
from .markdown import GENERATED_NOTE, anchor, collapsible, fence, md_escape
from .normalize import Normalizer, renumber
from .recording import output_of
from .records import Collected
from .render_examples import LEGACY_LISTINGS, legacy_schema_cell
from .selection import SELECTOR_ORDER, UI_EXT, key
from .variants_files import declarations, shape_refs, shapes

API_INDEX_TAIL = Path(__file__).with_name("api_index_tail.md").read_text()  # what each audience gets, execution behaviour

AUDIENCE_ROUTING = {
    "assistant": "eligible for the model's context.",
    "user": "shown to the person by the host; never added to the model's context automatically.",
    "programmatic": "for the client's own code (code mode, orchestration); neither shown nor given to the model.",
    UI_EXT: "for an MCP App view; listed only when the request negotiated the Apps extension.",
}
GROUPS = [
    ("Run code", ["execute_code", "execute_cell", "insert_execute_code_cell", "execute_notebook"]),
    ("Variables", ["list_variables", "inspect_variable"]),
    ("Notebooks", ["use_notebook", "unuse_notebook", "list_notebooks", "read_notebook", "read_notebook_page",
                   "restart_notebook"]),
    ("Cells", ["read_cell", "insert_cell", "edit_cell_source", "overwrite_cell_source", "move_cell", "delete_cell",
               "clear_cell_output"]),
    ("Files and kernels", ["list_files", "list_kernels"]),
    ("Runtimes and sandboxes", ["connect_to_jupyter", "launch_sandbox", "list_sandboxes", "use_sandbox", "terminate_sandbox"]),
]


def type_of(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    t = schema.get("type", "any")
    return " \\| ".join(t) if isinstance(t, list) else str(t)


def constraints(schema: dict[str, Any]) -> str:
    parts = []
    for k, label in (("minimum", "≥ {}"), ("exclusiveMinimum", "> {}"), ("maximum", "≤ {}"), ("exclusiveMaximum", "< {}"),
                     ("minLength", "at least {} character(s)"), ("maxLength", "at most {} character(s)"), ("pattern", "matches `{}`")):
        if k in schema:
            parts.append(label.format(schema[k]))
    return ", ".join(parts)


def arguments_md(input_schema: dict[str, Any]) -> str:
    props: dict[str, Any] = input_schema.get("properties", {})
    required = set(input_schema.get("required", []))
    if not props:
        text = "None."
        if input_schema.get("additionalProperties") is False:
            text += " Any argument is refused as `invalid-arguments` (a tool error)."
        return text + "\n"
    lines = ["| name | type | required | default | constraints | description |", "|---|---|---|---|---|---|"]
    for name, schema in props.items():
        default = f"`{json.dumps(schema['default'])}`" if "default" in schema else ""
        lines.append(f"| `{name}` | {type_of(schema)} | {'yes' if name in required else ''} | {default} | "
                     f"{constraints(schema)} | {md_escape(schema.get('description', ''))} |")
    text = "\n".join(lines) + "\n"
    if input_schema.get("additionalProperties") is False:
        text += "\nNo other argument is accepted: an unknown one is a tool error (`isError`, `error.type: \"invalid-arguments\"`).\n"
    return text


def aliases_md(aliases: dict[str, Any]) -> str:
    """The argumentAliases of variants/<tool>.json: taken with --compat, which lists their schema; refused without."""
    if not aliases:
        return ""
    lines = ["With `--compat jupyter-mcp-server`, which lists its `inputSchema` in place of the one above, also accepted "
             "with the meaning it gives them; without it refused, naming ours "
             "([why](../choices.md#argument-aliases-a-drop-in-for-jupyter-mcp-server)):\n",
             "| alias | stands for |", "|---|---|"]
    for alias, spec in aliases.items():
        target = f"`{spec['canonical']}`"
        if "values" in spec:
            target += " (" + ", ".join(f"`{json.dumps(k)}` is `{json.dumps(v)}`" for k, v in spec["values"].items()) + ")"
        elif "add" in spec:
            target += f" (`{spec['canonical']}` = `{alias}` + {spec['add']})"
        lines.append(f"| `{alias}` | {target} |")
    return "\n".join(lines) + "\n"


def output_example(norm: Normalizer, output: dict[str, Any]) -> str:
    payload = output["content"] if output["format"] == "content" else output["structuredContent"]
    return fence(pretty(norm(payload)), title=("content" if output["format"] == "content" else "structuredContent"))


def render_tool(name: str, declared: dict[str, Any], got: Collected, norm: Normalizer) -> str:
    wire_tool = got.listing_ui.get(name)
    out = [GENERATED_NOTE, f"# `{name}`\n"]
    if declared.get("title"):
        out.append(f"**{declared['title']}.** {declared.get('description', '')}\n")
    else:
        out.append(f"{declared.get('description', '')}\n")
    annotations = declared.get("annotations") or {}
    if annotations:
        out.append("Annotations: " + ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in annotations.items()) + ".\n")
    if declared.get("_meta"):
        out.append(f"Tool `_meta`: `{json.dumps(declared['_meta'], ensure_ascii=False)}`.\n")
    out.append(f"Declared in `variants/{name}.json`.\n")
    if wire_tool is None:
        out.append("!!! warning \"Not listed\"\n    The live server's tools/list at 2026-12-01 did not list this tool, "
                   "so this page has no wire schemas and no examples.\n")

    out.append("## Arguments\n")
    out.append(arguments_md(declared.get("inputSchema", {})))
    if declared.get("argumentAliases"):
        out.append(aliases_md(declared["argumentAliases"]))

    out.append("## Variants\n")
    out.append("| variant | schema | the consumer |\n|---|---|---|")
    for v in declared["outputVariants"]:
        sel = key(v)
        schema = v.get("schema")
        if v["format"] == "content":
            schema_text = "content blocks (no schema)"
        elif schema is None:
            schema_text = "none declared"
        else:
            refs = shape_refs(schema)
            schema_text = ("shape " + ", ".join(f"[`{r}`](shapes.md#{r})" for r in refs)) if refs else "its own"
            if isinstance(schema, dict) and list(schema) == ["$ref"]:
                schema_text = f"[`{refs[0]}`](shapes.md#{refs[0]})"
        out.append(f"| [`{sel}`](#{anchor(sel)}) | {schema_text} | {AUDIENCE_ROUTING.get(v['audience'], '')} |")
    out.append("")
    if any(v["audience"] == UI_EXT for v in declared["outputVariants"]):
        out.append(f"The `{UI_EXT}` variant is listed, and may be requested, only when the request negotiated the "
                   "MCP Apps extension ([MCP Apps](../reference/mcp-apps.md)).\n")

    example = got.api.get(name)
    trip = example.trip if example else None
    for v in declared["outputVariants"]:
        sel = key(v)
        out.append(f"### {sel} {{#{anchor(sel)}}}\n")
        out.append(f"Routing: {AUDIENCE_ROUTING.get(v['audience'], 'defined by its extension.')}\n")
        if v["format"] == "structured":
            if v.get("schema") is None:
                out.append("No schema is declared: the payload is not validated.\n")
            else:
                out.append(fence(pretty(v["schema"]), title=f"schema, as declared in variants/{name}.json"))
                wire_variant = next((w for w in (wire_tool or {}).get("outputVariants", []) if key(w) == sel), None)
                if wire_variant is not None and wire_variant.get("schema") != v["schema"]:
                    wire_schema = fence(pretty(wire_variant["schema"]), title="schema")
                    out.append(collapsible("schema on the wire (shapes inlined)", wire_schema))
        else:
            out.append("The payload is an array of MCP content blocks (`text`, `image`); no schema.\n")
        if trip is None:
            reason = ("the script has no scripted call for this tool (`API_SEQUENCE` in scripts/docsgen/scenario.py)"
                      if example is None else "the server did not list this tool")
            out.append(f"!!! note \"No example\"\n    No example could be produced: {reason}.\n")
            continue
        if "error" in trip.message:
            out.append("!!! warning \"No example\"\n    The call failed with a JSON-RPC error "
                       f"({trip.message['error'].get('code')}); see the request below.\n")
            continue
        output = output_of(trip, sel)
        if output is None:
            out.append("!!! warning \"No example\"\n    The server returned no output for this variant.\n")
            continue
        failed = trip.result.get("isError")
        out.append("Example (the call failed: `isError: true`, so this is the error shape):\n" if failed else "Example:\n")
        out.append(output_example(norm, output))

    out.append("## The example call\n")
    if trip is None or example is None:
        out.append("No example could be produced for this tool (see above).\n")
    else:
        out.append(f"Every output above comes from this one call, which asked for every declared variant "
                   f"at 2026-12-01 with the Apps extension negotiated. Before it: {example.setup}\n")
        request, response = renumber(trip)
        out.append(fence(pretty(norm(request)), title="request"))
        extras = {k: v for k, v in (response.get("result") or {}).items() if k not in ("outputs",)}
        if extras:
            out.append("The result's other members (the outputs are shown above):\n")
            out.append(fence(pretty(norm(extras)), title="result, without outputs"))

    out.append("## Older protocol versions\n")
    has_assistant_structured = any(key(v) == "assistant/structured" for v in declared["outputVariants"])
    structured = ("`structuredContent` from `assistant/structured`; " if has_assistant_structured
                  else "no `structuredContent` (this tool declares no `assistant/structured`); ")
    out.append("A client on 2025-06-18 … 2026-07-28 gets `content` from `assistant/content` and " + structured
               + "2024-11-05 and 2025-03-26 get `content` only. What the live server listed as `outputSchema`:\n")
    out.append("| version | `outputSchema` |\n|---|---|")
    for version in LEGACY_LISTINGS:
        out.append(f"| {version} | {legacy_schema_cell(got, name, version)} |")
    out.append("\nSee [the versioned projection](../reference/legacy.md).\n")
    return "\n".join(out)


def render_api(got: Collected, norm: Normalizer) -> dict[str, str]:
    decls = declarations()
    files = {f"api/{name}.md": render_tool(name, d, got, norm) for name, d in decls.items()}
    files["api/index.md"] = render_api_index(decls)
    files["api/shapes.md"] = render_shapes(decls)
    return files


def render_api_index(decls: dict[str, dict[str, Any]]) -> str:
    out = [GENERATED_NOTE, "# Tools\n",
           (f"The server serves {len(decls)} tools. Each is declared once, in `variants/<tool>.json`: its `inputSchema` "
           "and its `outputVariants`, each structured variant with its own JSON Schema (shared shapes live in "
           "`variants/shapes/`, see [Shapes](shapes.md)). Every page below was generated from that declaration "
           "and from one real call to the running server, which asked for every variant at once.\n"),
           ("Variants: **AC** `assistant/content`, **AS** `assistant/structured`, **PS** `programmatic/structured`, "
           "**UC** `user/content`, **US** `user/structured`, **UI** `io.modelcontextprotocol/ui/structured` "
           "(only with the Apps extension).\n")]
    abbreviations = dict(zip(SELECTOR_ORDER, ["AC", "AS", "PS", "UC", "US", "UI"], strict=True))
    groups = [(title, [n for n in names if n in decls]) for title, names in GROUPS]
    rest = sorted(set(decls) - {n for _, names in groups for n in names})
    if rest:
        groups.append(("Other tools", rest))
    for title, names in groups:
        if not names:
            continue
        out.append(f"## {title}\n")
        out.append("| tool | what it does | " + " | ".join(abbreviations.values()) + " |")
        out.append("|---|---|" + ":-:|" * len(abbreviations))
        for name in names:
            d = decls[name]
            have = {key(v) for v in d["outputVariants"]}
            marks = " | ".join("✓" if s in have else "" for s in abbreviations)
            out.append(f"| [`{name}`]({name}.md) | {md_escape(d.get('title') or '')} | {marks} |")
        out.append("")
    out.append(API_INDEX_TAIL)
    return "\n".join(out)


def render_shapes(decls: dict[str, dict[str, Any]]) -> str:
    out = [GENERATED_NOTE, "# Shapes\n",
           ("Shared schemas, in `variants/shapes/`. A declaration refers to one as `{\"$ref\": \"shapes/<name>.json\"}`; "
           "the server inlines it when it loads the declarations, so every schema on the wire is self-contained.\n")]
    users: dict[str, list[str]] = {}
    all_shapes = shapes()
    for name, d in decls.items():
        for v in d["outputVariants"]:
            for ref in shape_refs(v.get("schema") or {}):
                users.setdefault(ref, []).append(f"[`{name}`]({name}.md#{anchor(key(v))}) `{key(v)}`")
    for shape_name, shape in all_shapes.items():
        for ref in shape_refs(shape):
            users.setdefault(ref, []).append(f"[`{ref}`'s user `{shape_name}`](#{shape_name})")
    for shape_name, shape in all_shapes.items():
        out.append(f"## {shape_name} {{#{shape_name}}}\n")
        comment = shape.get("$comment")
        if comment:
            out.append(f"{comment}\n")
        used = users.get(shape_name, [])
        if shape_name == "error":
            out.append("Used by every structured output of a failed call (`isError: true`).\n")
        elif used:
            out.append("Used by: " + ", ".join(used) + ".\n")
        else:
            out.append("Not used by any declaration.\n")
        out.append(fence(pretty({k: v for k, v in shape.items() if k != "$comment"}), title=f"variants/shapes/{shape_name}.json"))
    return "\n".join(out)
