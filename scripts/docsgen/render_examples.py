"""docs/examples/: the fragments the reference chapter and the guides include (`--8<--`).

One fragment per recorded exchange (request and response, normalised), and the tables built
from the listings: variants by negotiation, the versioned projection, HTTP, the CLI options and
the Jupyter server extension's. The server internals the generator reads, `mcp_variants.server.cli.build_parser`
and the extension's `MCPVariants` (both made from server/options.py), are imported here.
"""

from __future__ import annotations

import argparse
from typing import Any

from jupyter_server.extension.application import ExtensionApp

from mcp_variants.jupyter_extension.app import MCPVariants
from mcp_variants.server.cli import build_parser

from .jsontext import pretty
from .markdown import GENERATED_NOTE, exchange_md, fence, md_escape
from .normalize import Normalizer, renumber
from .records import Collected
from .selection import key

NOT_SHOWN = {"tools-list-plain", "initialize-2024-11-05"}  # recorded for the tables, not shown as exchanges
LEGACY_LISTINGS = ("2024-11-05", "2025-11-25", "2026-07-28")


def render_examples(got: Collected, norm: Normalizer) -> dict[str, str]:
    files: dict[str, str] = {}
    for name, trip in got.examples.items():
        if name in NOT_SHOWN:
            continue
        request, response = renumber(trip)
        if name.startswith("tools-list"):
            keep = "list_kernels" if name == "tools-list-ui" else "execute_code"
            response = filtered_listing(response, keep)
        text = exchange_md(norm(request), norm(response))
        if name == "connect-token":
            text += (f"\nThe token occurs {got.token_in_response} time(s) in the bytes of the response "
                     "(counted before any placeholder was applied).\n")
        files[f"examples/{name}.md"] = GENERATED_NOTE + text
    files["examples/variants-by-negotiation.md"] = GENERATED_NOTE + render_negotiation(got)
    files["examples/http.md"] = GENERATED_NOTE + render_http(got, norm)
    files["examples/legacy-projection.md"] = GENERATED_NOTE + render_legacy_table(got)
    files["examples/cli-serve.md"] = GENERATED_NOTE + render_cli()
    files["examples/extension-options.md"] = GENERATED_NOTE + render_extension_options()
    return files


def filtered_listing(response: dict[str, Any], tool: str) -> dict[str, Any]:
    """A tools/list response with only `tool`'s entry (a page shows one, not 22)."""
    result = dict(response["result"])
    result["tools"] = [t for t in result["tools"] if t["name"] == tool]
    return dict(response, result=result)


def render_cli() -> str:
    """`mcp-variants serve`'s options, from the server's own argument parser."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = commands.choices["serve"]
    lines = ["| option | what it does [environment variable, default] |", "|---|---|"]
    for action in serve._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS or "-h" in action.option_strings:
            continue
        option = ", ".join(f"`{o}`" for o in action.option_strings)
        if action.metavar or action.nargs != 0:
            option += f" `{action.metavar or action.dest.upper()}`"
        lines.append(f"| {option} | {md_escape(action.help or '')} |")
    return "\n".join(lines) + "\n"


def render_extension_options() -> str:
    """The Jupyter server extension's traitlets, in the order the extension defines them, from the extension itself."""
    inherited = set(ExtensionApp.class_traits(config=True))  # Jupyter's own for every extension (log_level, ...)
    traits = MCPVariants.class_traits(config=True)
    lines = ["| traitlet | default | what it does |", "|---|---|---|"]
    for name in (name for name in vars(MCPVariants) if name in traits and name not in inherited):
        trait = traits[name]
        default = trait.default_value
        shown = "none" if default in ("", None) else "off" if default is False else f"`{default}`"
        lines.append(f"| `{name}` | {shown} | {md_escape(trait.help)} |")
    return "\n".join(lines) + "\n"


def render_negotiation(got: Collected) -> str:
    lines = ["| tool | 2026-12-01, Apps extension negotiated | 2026-12-01, no extension |", "|---|---|---|"]
    for name in sorted(got.listing_ui):
        with_ui = ", ".join(f"`{key(v)}`" for v in got.listing_ui[name]["outputVariants"])
        without = ", ".join(f"`{key(v)}`" for v in got.listing_plain.get(name, {}).get("outputVariants", []))
        lines.append(f"| [`{name}`](../api/{name}.md) | {with_ui} | {without} |")
    return "\n".join(lines) + "\n"


def render_http(got: Collected, norm: Normalizer) -> str:
    trip = got.http
    assert trip is not None and trip.http is not None and trip.headers is not None, "http_example ran"
    request, response = renumber(trip)
    headers = "\n".join(f"{k}: {v}" for k, v in trip.http["requestHeaders"].items())
    request_text = f"POST {norm.text(got.http_url)}\n{headers}\n\n" + pretty(norm(request))
    response_text = f"HTTP/1.1 {trip.status}\ncontent-type: {trip.headers.get('Content-Type', '')}\n\n" + pretty(norm(response))
    return fence(request_text, "http", "request") + "\n" + fence(response_text, "http", "response (the JSON-RPC message it carries)")


def render_legacy_table(got: Collected) -> str:
    """What each version's tools/list says for outputSchema, per tool, against assistant/structured."""
    lines = ["| tool | " + " | ".join(f"`outputSchema` at {v}" for v in LEGACY_LISTINGS) + " |",
             "|---|" + "---|" * len(LEGACY_LISTINGS)]
    for name in sorted(got.listing_ui):
        cells = [legacy_schema_cell(got, name, version) for version in LEGACY_LISTINGS]
        lines.append(f"| [`{name}`](../api/{name}.md) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def legacy_schema_cell(got: Collected, name: str, version: str) -> str:
    """`name`'s outputSchema at `version`, said against its 2026-12-01 variants."""
    entry = got.listing_legacy.get(version, {}).get(name)
    if entry is None:
        return "not listed"
    if "outputVariants" in entry:
        return "**has outputVariants**"
    schema = entry.get("outputSchema")
    if schema is None:
        return "none"
    assistant = next((v.get("schema") for v in got.listing_ui[name]["outputVariants"] if key(v) == "assistant/structured"), None)
    if schema == assistant:
        return "= `assistant/structured`"
    others = [key(v) for v in got.listing_ui[name]["outputVariants"] if v.get("schema") == schema]
    return "**= " + ", ".join(others) + "**" if others else "**another schema**"
