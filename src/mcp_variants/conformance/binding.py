"""Choosing, per scenario, the tools of the server under test that can show the rule.

The suite knows nothing of the server's tools in advance. It lists them at 2026-12-01
(without extensions, and with io.modelcontextprotocol/ui negotiated) and, for each
scenario, finds the tools that declare the variants the scenario needs and can be
called. A tool can be called when

1. the user configured its arguments (`--call TOOL=JSON`), or
2. it is one of the built-in defaults below, the server is this project's own (runner.OWN_SERVER: the
   runner turns them off for any other) and those arguments are valid against its inputSchema, or
3. it is annotated `readOnlyHint: true` and `{}` is valid against its inputSchema,

in that order of preference. A tool that may change something is never called unless it
was configured (or is one of the defaults), so pointing the suite at a server cannot make
it delete or launch anything by accident. Which of the fitting tools a scenario runs with: `bindings_to_run`. Every
tool named with `--call` / `--error-call` that fits runs it (a named tool is one the person wants checked: the
suite once said OK about one it never called, because the scenarios preferred another); with none named, the
first that fits; with `--all-tools`, every one. A scenario no listed tool fits (none declares what it is about) is
not applicable; one that a listed tool fits but the suite may not call is skipped (not exercised), naming the
`--call` / `--error-call` to pass. The binding spec (a vector's `bind.tool`) has these keys:

| key | meaning |
|---|---|
| listing | "plain" (no extensions) or "ui" (the Apps extension negotiated): the tools/list to choose from |
| declares | selectors the tool must declare |
| minCore / minStructured | at least this many declared core / structured core variants |
| lacksCore | the tool must leave some core combination undeclared |
| preferAppOnly | prefer tools whose `_meta.ui.visibility` is `["app"]` |
| errorCall | use the configured failing calls (`--error-call`) instead |
| oneTool | run with the best fitting tool only, even when several are named (two calls of one tool compared) |
| newTool | a tool not named with `--established` (a rule SEP-3279 asks of a new tool's legacy answers) |

It binds `{{tool}}`, `{{arguments}}`, `{{declared}}` (every listed variant, as selectors),
`{{declaredCore}}`, `{{undeclared}}` (first undeclared core selector), `{{other}}` (first
declared core selector other than assistant/content) and `{{structured}}` (first declared
structured core selector). Every scenario, bound to a tool or not, also gets `{{established}}`: the
tools named with `--established`, which the rules SEP-3279 asks of a new tool leave out (a forEach's
`except`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .constants import (
    ASSISTANT_STRUCTURED,
    CORE_AUDIENCES,
    CORE_SELECTORS,
    PROGRAMMATIC_STRUCTURED,
    UI,
    USER_CONTENT,
    USER_STRUCTURED,
)

# Arguments that make this project's own tools succeed (and fail, for the error scenario); used on its server only.
DEFAULT_CALLS: dict[str, dict[str, Any]] = {
    "list_files": {},
    "list_kernels": {},
    "execute_code": {"code": "print(1)"},
}
DEFAULT_ERROR_CALLS: dict[str, dict[str, Any]] = {"execute_code": {"code": "1/0"}}

READ_ONLY_CHOICE = "read-only, needs no arguments"  # why the suite calls a tool nobody configured
# why a rule SEP-3279 asks of a new tool did not judge a tool named with --established
ESTABLISHED_WHY = ("named with --established: it already served older clients before it declared variants, so its legacy "
                   "content, outputSchema and structuredContent are its established ones, which SEP-3279 says a server SHOULD "
                   "preserve; this rule is for a new tool")
OTHER_ORDER = (PROGRAMMATIC_STRUCTURED, ASSISTANT_STRUCTURED, USER_STRUCTURED, USER_CONTENT)
STRUCTURED_ORDER = (ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, USER_STRUCTURED)


@dataclass
class CallConfig:
    """What the user told the suite about calling tools, and about the tools it may not tell from the wire."""

    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # --call TOOL=JSON, in order
    error_calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # --error-call TOOL=JSON
    use_defaults: bool = True  # the built-in DEFAULT_CALLS / DEFAULT_ERROR_CALLS
    # --established TOOL: served older clients before it declared variants, so its legacy outputSchema and
    # structuredContent are its established ones (SEP-3279: SHOULD be preserved), not a new tool's
    established: list[str] = field(default_factory=list)

    def success_candidates(self) -> list[tuple[str, dict[str, Any], str]]:
        out = [(name, args, "--call") for name, args in self.calls.items()]
        if self.use_defaults:
            out += [(n, a, "built-in default") for n, a in DEFAULT_CALLS.items() if n not in self.calls]
        return out

    def error_candidates(self) -> list[tuple[str, dict[str, Any], str]]:
        out = [(name, args, "--error-call") for name, args in self.error_calls.items()]
        if self.use_defaults:
            out += [(n, a, "built-in default") for n, a in DEFAULT_ERROR_CALLS.items() if n not in self.error_calls]
        return out

    def unknown_tools(self, listings: Mapping[str, list[dict[str, Any]] | str]) -> list[str]:
        """The tools named (`--call`, `--error-call`, `--established`) that no listing has: a typo would
        otherwise just never be chosen (or exempted), and the run pass without it."""
        listed = {t.get("name") for tools in listings.values() if not isinstance(tools, str) for t in tools if isinstance(t, dict)}
        named: tuple[tuple[str, Iterable[str]], ...] = (("--call", self.calls), ("--error-call", self.error_calls),
                                                        ("--established", self.established))
        return [f"{option} {name}" for option, names in named for name in names if name not in listed]


class BindingSkip(Exception):
    """No callable tool fits: the scenario is skipped with this reason, and `need` says what would let it run.
    `applicable=False`: no tool the server lists declares what the scenario is about, so its rules do not bind
    this server (not applicable, which does not stand between a server and OK)."""

    def __init__(self, reason: str, need: str = "", *, applicable: bool = True) -> None:
        super().__init__(reason)
        self.need = need
        self.applicable = applicable


class BindingFailure(Exception):
    """The discovery the binding needs failed: the scenario fails with this reason."""


def selectors_of(tool: Mapping[str, Any]) -> list[dict[str, str]]:
    variants = tool.get("outputVariants")
    out = []
    for v in variants if isinstance(variants, list) else []:
        if isinstance(v, dict) and isinstance(v.get("audience"), str) and isinstance(v.get("format"), str):
            out.append({"audience": v["audience"], "format": v["format"]})
    return out


def args_fit(tool: Mapping[str, Any], arguments: dict[str, Any]) -> bool:
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return arguments == {}
    try:
        return bool(Draft202012Validator(schema).is_valid(arguments))
    except SchemaError:
        return False


def read_only(tool: Mapping[str, Any]) -> bool:
    """Only tools that say they change nothing are called without being configured."""
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def _app_only(tool: Mapping[str, Any]) -> bool:
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return isinstance(ui, dict) and ui.get("visibility") == ["app"]


def callable_tools(tools: list[dict[str, Any]], config: CallConfig, *, errors: bool = False) -> list[tuple[dict[str, Any], dict[str, Any],
                                                                                                           str]]:
    """(tool, arguments, why) for every tool the suite may call, best first."""
    by_name = {t.get("name"): t for t in tools if isinstance(t, dict)}
    out: list[tuple[dict[str, Any], dict[str, Any], str]] = []
    seen: set[str] = set()
    candidates = config.error_candidates() if errors else config.success_candidates()
    for name, args, source in candidates:
        tool = by_name.get(name)
        if tool is None or name in seen:
            continue
        if source.startswith("--") or args_fit(tool, args):
            out.append((tool, args, source))
            seen.add(name)
    if not errors:
        for listed, tool in by_name.items():
            if isinstance(listed, str) and listed not in seen and read_only(tool) and args_fit(tool, {}):
                out.append((tool, {}, READ_ONLY_CHOICE))
                seen.add(listed)
    return out


def describe_need(spec: Mapping[str, Any]) -> str:
    parts = []
    if spec.get("declares"):
        parts.append("declares " + " and ".join(f"{s['audience']}/{s['format']}" for s in spec["declares"]))
    if spec.get("minCore"):
        parts.append(f"declares at least {spec['minCore']} core variants")
    if spec.get("minStructured"):
        parts.append(f"declares at least {spec['minStructured']} structured core variant(s)")
    if spec.get("lacksCore"):
        parts.append("leaves some core combination undeclared")
    listing = "with io.modelcontextprotocol/ui negotiated" if spec.get("listing") == "ui" else "without extensions"
    return f"a tool that {', '.join(parts) or 'exists'} (tools/list at 2026-12-01 {listing})"


def _fit(tool: Mapping[str, Any], arguments: dict[str, Any], spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """The bindings of `tool` for the spec, or None when its declaration does not fit."""
    declared = selectors_of(tool)
    core = [s for s in declared if s["audience"] in CORE_AUDIENCES]
    if any(d not in declared for d in spec.get("declares") or []) or len(core) < int(spec.get("minCore", 0)):
        return None
    structured = [s for s in STRUCTURED_ORDER if s in declared]
    undeclared = [s for s in CORE_SELECTORS if s not in declared]
    if len(structured) < int(spec.get("minStructured", 0)) or (spec.get("lacksCore") and not undeclared):
        return None
    others = [s for s in OTHER_ORDER if s in declared]
    bindings: dict[str, Any] = {"tool": tool["name"], "arguments": arguments, "declared": declared, "declaredCore": core}
    if undeclared:
        bindings["undeclared"] = undeclared[0]
    if others:
        bindings["other"] = others[0]
    if structured:
        bindings["structured"] = structured[0]
    return bindings


def view_uris(tool: Mapping[str, Any]) -> list[str]:
    """The ui:// views a tool names: `_meta.ui.resourceUri`, or the legacy `_meta["ui/resourceUri"]`."""
    meta = tool.get("_meta")
    if not isinstance(meta, dict):
        return []
    ui = meta.get("ui")
    found = [ui.get("resourceUri") if isinstance(ui, dict) else None, meta.get("ui/resourceUri")]
    return [u for u in dict.fromkeys(found) if isinstance(u, str)]


def bind_apps(what: str, listings: Mapping[str, list[dict[str, Any]] | str]) -> list[dict[str, Any]]:
    """The Apps scenarios' bindings (a vector's `bind.apps`): "advertised" binds `{{tools}}`, the tools that list a ui
    variant or name a view; "views" binds `{{uri}}` and `{{tools}}` once per distinct view. Not applicable (BindingSkip)
    when no tool of either listing mentions the extension."""
    tools = [t for listing in listings.values() if not isinstance(listing, str) for t in listing
             if isinstance(t, dict) and isinstance(t.get("name"), str)]
    apps = [t for t in tools if view_uris(t) or any(s["audience"] == UI for s in selectors_of(t))]
    names = list(dict.fromkeys(t["name"] for t in apps))
    if not names:
        raise BindingSkip(f"no tool the server lists declares an {UI} variant or names a ui:// view", applicable=False)
    if what == "advertised":
        return [{"bindings": {"tools": ", ".join(names)}, "why": f"{', '.join(names)} mention the Apps extension"}]
    views: dict[str, list[str]] = {}
    for tool in apps:
        for uri in view_uris(tool):
            views.setdefault(uri, [])
            if tool["name"] not in views[uri]:
                views[uri].append(tool["name"])
    if not views:
        raise BindingSkip(f"no tool the server lists names a ui:// view (_meta.ui.resourceUri); {', '.join(names)} list the ui "
                          "variant only", applicable=False)
    return [{"bindings": {"uri": uri, "tools": ", ".join(named)}, "why": f"{uri}, named by {', '.join(named)}"}
            for uri, named in views.items()]


def bind_all(spec: Mapping[str, Any], listings: Mapping[str, list[dict[str, Any]] | str], config: CallConfig) -> list[dict[str, Any]]:
    """Every fitting binding, best first (`--all-tools` runs a scenario with each)."""
    listing_name = spec.get("listing", "plain")
    tools = listings.get(listing_name)
    if isinstance(tools, str) or tools is None:
        raise BindingFailure(f"tools/list at 2026-12-01 ({listing_name}) failed, so no tool can be chosen: {tools}")
    candidates = callable_tools(tools, config, errors=bool(spec.get("errorCall")))
    if spec.get("newTool"):
        established = [c for c in candidates if c[0]["name"] in config.established and _fit(c[0], c[1], spec) is not None]
        candidates = [c for c in candidates if c[0]["name"] not in config.established]
        if established and not any(_fit(tool, arguments, spec) is not None for tool, arguments, _ in candidates):
            names = ", ".join(tool["name"] for tool, _, _ in established)
            raise BindingSkip(f"every tool that fits ({names}) is {ESTABLISHED_WHY}", applicable=False)
    if spec.get("preferAppOnly"):
        candidates.sort(key=lambda c: not _app_only(c[0]))  # stable: App-only tools first
    found: list[dict[str, Any]] = []
    for tool, arguments, source in candidates:
        bindings = _fit(tool, arguments, spec)
        if bindings is None:
            continue
        why = f"{tool['name']} ({source}{', App-only' if _app_only(tool) else ''})"
        if spec.get("preferAppOnly") and not _app_only(tool):
            why += "; no App-only tool (_meta.ui.visibility [\"app\"]) fits, so an App-enhanced one stands in"
        found.append({"bindings": bindings, "why": why, "named": source.startswith("--")})
    if found:
        return found
    if not any(isinstance(t, dict) and isinstance(t.get("name"), str) and _fit(t, {}, spec) is not None for t in tools):
        raise BindingSkip(f"no tool the server lists is what the scenario is about: {describe_need(spec)}", applicable=False)
    if spec.get("errorCall"):  # every tool fits it: what is missing is the failing call, which only the person knows
        given = "no --error-call was given" if not config.error_candidates() else "no --error-call names a tool that fits"
        raise BindingSkip(f"{given}: the scenario needs a call that fails as a tool error (isError: true), --error-call TOOL=JSON, "
                          f"of {describe_need(spec)}", need=need_for(spec, tools, config))
    raise BindingSkip(f"no callable tool fits: the scenario needs {describe_need(spec)}", need=need_for(spec, tools, config))


def bindings_to_run(spec: Mapping[str, Any], found: list[dict[str, Any]], *, all_tools: bool,
                    first_fit: bool = False) -> list[dict[str, Any]]:
    """The bindings (bind_all's for `spec`, best first) a scenario runs with: all of them with `--all-tools`; else every
    one of a tool named with `--call` / `--error-call`, so that each named tool is exercised by every scenario it
    fits; else (or for a `oneTool` spec, or with `first_fit`) the first."""
    if all_tools:
        return found
    if spec.get("oneTool") or first_fit:
        return found[:1]
    return [f for f in found if f["named"]] or found[:1]


def need_for(spec: Mapping[str, Any], tools: list[dict[str, Any]], config: CallConfig) -> str:
    """What would let the scenario run: the option naming a listed tool that fits but is not called, else what
    to declare."""
    option = "--error-call" if spec.get("errorCall") else "--call"
    called = {t.get("name") for t, _, _ in callable_tools(tools, config, errors=bool(spec.get("errorCall")))}
    fitting = [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str) and t["name"] not in called
               and _fit(t, {}, spec) is not None]
    if fitting:
        examples = " or ".join(f"{option} '{t['name']}={'{}' if args_fit(t, {}) and not spec.get('errorCall') else 'JSON'}'"
                               for t in fitting[:3])
        what = "with arguments that make it fail as a tool error, isError" if spec.get("errorCall") else "with arguments it succeeds with"
        why = ("the suite makes no failing call of its own" if spec.get("errorCall")
               else "the suite calls on its own only read-only tools that need no arguments")
        names = [t["name"] for t in fitting[:3]]
        example = f", e.g. {option} '{names[0]}={argument_sketch(fitting[0])}'" if spec.get("errorCall") else ""
        return f"pass {examples} ({what}{example}): {', '.join(names)} {'fits' if len(names) == 1 else 'fit'}, but {why}"
    return f"add {describe_need(spec)}; pass {option} TOOL=JSON unless it is read-only and needs no arguments"


def argument_sketch(tool: Mapping[str, Any]) -> str:
    """`{"a": …, "b": …}`: the tool's required arguments, the values left for the person to fill in."""
    schema = tool.get("inputSchema")
    required = schema.get("required") if isinstance(schema, dict) else None
    names = [n for n in required if isinstance(n, str)] if isinstance(required, list) else []
    return "{" + ", ".join(f'"{n}": …' for n in names) + "}"
