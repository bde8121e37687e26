"""Client mode: black-box scenarios for any SDK's client (`mcp-variants check-client`).

Each scenario is data. It names the protocol version, the tool the client calls and in
which execution mode (`context`, handed to the client), what the fixture server (fixture.py)
lists and advertises (`server`), and checks (checks.py) over the record of the run:

    {"sent": [every JSON-RPC message the client sent, in order],
     "delivered": {"model": [payloads], "user": [...], "program": [...], "view": [...]},
     "deliveries": [the JSON lines the client reported], "exitCode": 0, "timedOut": false}

Every scenario first requires that the client did what the scenario hands it (`requires`):
"call" (most): a tools/call at the scenario's version, at least one delivery reported (unless the
host has no consumer for what it asked: `delivers`), and the client ending with exit status 0;
"list": a tools/list at the scenario's version, for the two scenarios whose listing a client may
rightly refuse (a client error is allowed there only). Until
that is met no check of the scenario can pass: a client that does nothing, crashes or does not know
the scenario fails it (client_check.prerequisite).

Every check names the check id of the rule it judges (`check`), so a scenario's
checks.json holds one verdict per rule, and a client that breaks one rule fails that id alone.

Every output the fixture returns carries a canary unique to its audience; result `_meta`
carries its own. A canary that reaches a consumer other than its audience's, or `_meta`'s
canary anywhere, is a misrouting that the client's own report shows.
"""

from __future__ import annotations

from typing import Any, Final

from .client_vectors import FULL, TOOL, tool_entry
from .constants import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    OUTPUTS_VERSION,
    PROGRAMMATIC_STRUCTURED,
    UI,
    UI_EXTENSIONS,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    VERSION_KEY,
)
from .rules import (
    ACCEPTS_LEGACY,
    APPS_ROUTING,
    FOLLOWS_MODE,
    IGNORE_ANNOTATIONS,
    NO_AUDIENCE_FALLBACK,
    NO_DUPLICATE_SELECTOR,
    NO_META,
    NO_REQUESTED_OLD,
    NO_REQUESTED_OLD2,
    NO_UNNEGOTIATED_REQUEST,
    ONLY_ADVERTISED,
    PROGRAMMATIC_NOT_IN_MODEL,
    REJECT_TOOL_WITHOUT_VARIANTS,
    REQUESTS_NEEDED,
    ROUTES_BY_AUDIENCE,
    USER_NOT_IN_MODEL,
)
from .scenarios import check, combo

CONSUMERS: Final = ("model", "user", "program", "view")
CONSUMER_OF: Final = {"assistant": "model", "user": "user", "programmatic": "program", UI: "view"}
CANARY: Final = {"assistant": "CANARY-ASSISTANT-7d41", "user": "CANARY-USER-2b9c",
                 "programmatic": "CANARY-PROGRAMMATIC-5e08", UI: "CANARY-VIEW-a63f"}
META_CANARY: Final = "CANARY-META-0c17"
LEGACY_CANARY: Final = "CANARY-LEGACY-e4a2"  # legacy content/structuredContent before 2026-12-01
LEGACY_AT_NEW_CANARY: Final = "CANARY-LEGACY-AT-2026-12-01-91d3"  # a legacy-shaped result at 2026-12-01

CALLS: Final = "$.sent[?@.method=='tools/call']"
NEW_CALLS: Final = f"$.sent[?@.method=='tools/call' && @.params._meta['{VERSION_KEY}']=='{OUTPUTS_VERSION}']"


def _tagged(rule: dict[str, str], item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "check": rule["check"]}


def _pair(selector: dict[str, str]) -> str:
    return f"@.audience=='{selector['audience']}' && @.format=='{selector['format']}'"


def only_advertised(advertised: list[dict[str, str]]) -> dict[str, Any]:
    others = " && ".join(f"!({_pair(s)})" for s in advertised)
    return _tagged(ONLY_ADVERTISED, check("count", f"{NEW_CALLS}.params.requestedOutputs[?{others}]",
                                          "every requested selector is one the tool advertised", value=0))


def no_duplicates() -> dict[str, Any]:
    return _tagged(NO_DUPLICATE_SELECTOR, check("every", CALLS, "no tools/call names a selector twice",
                                                checks=[check("uniqueSelectors", "$.params.requestedOutputs[*]", "each selector once")],
                                                vacuous=True, over="$.sent"))


def asks_for(rule: dict[str, str], says: str, *selectors: dict[str, str]) -> list[dict[str, Any]]:
    return [_tagged(rule, check("exists", f"{NEW_CALLS}.params.requestedOutputs[?{_pair(s)}]", f"{says}: {s['audience']}/{s['format']}"))
            for s in selectors]


def sends_requested_outputs() -> dict[str, Any]:
    return _tagged(REQUESTS_NEEDED, check("exists", f"{NEW_CALLS}.params.requestedOutputs",
                                          "the call sends requestedOutputs: the mode needs more than the assistant/content fallback"))


def not_at(consumer: str, canary: str, rule: dict[str, str], says: str) -> dict[str, Any]:
    return _tagged(rule, check("notContainsText", f"$.delivered.{consumer}", says, value=canary))


def reaches_if_requested(audience: str, fmt: str | None = None) -> dict[str, Any]:
    """A requested output reaches its audience's consumer (nothing to show when it was not requested)."""
    consumer, canary = CONSUMER_OF[audience], CANARY[audience]
    wanted = f"@.audience=='{audience}'" + (f" && @.format=='{fmt}'" if fmt else "")
    return _tagged(ROUTES_BY_AUDIENCE, combo(
        "anyOf", f"the {audience} output, when requested, reaches the {consumer}",
        checks=[check("count", f"{NEW_CALLS}.params.requestedOutputs[?{wanted}]", f"{audience} was not requested", value=0),
                check("containsText", f"$.delivered.{consumer}", f"the {consumer} receives the {audience} canary", value=canary)]))


def misrouting(annotated: bool = False) -> list[dict[str, Any]]:
    """Each audience's canary at no consumer but its own, and `_meta`'s nowhere."""
    out = []
    for audience, canary in CANARY.items():
        for consumer in CONSUMERS:
            if consumer == CONSUMER_OF[audience]:
                continue
            if annotated:
                rule = IGNORE_ANNOTATIONS
            elif audience == "user" and consumer == "model":
                rule = USER_NOT_IN_MODEL
            elif audience == "programmatic" and consumer in ("model", "user"):
                rule = PROGRAMMATIC_NOT_IN_MODEL
            elif (audience, consumer) in ((UI, "model"), ("assistant", "view")):
                rule = APPS_ROUTING
            else:
                rule = ROUTES_BY_AUDIENCE
            out.append(not_at(consumer, canary, rule, f"the {audience} output does not reach the {consumer}"))
    out.append(_tagged(NO_META, check("notContainsText", "$.delivered", "nothing of the result's _meta reaches any consumer",
                                      value=META_CANARY)))
    return out


def scenario(sid: str, title: str, *, version: str = OUTPUTS_VERSION, mode: str, server: dict[str, Any],
             checks: list[dict[str, Any]], extensions: dict[str, Any] | None = None, consumers: tuple[str, ...] = CONSUMERS,
             note: str | None = None, requires: str = "call", delivers: bool = True) -> dict[str, Any]:
    """`requires`: what the client must have done before any check is judged ("call" or "list", module docstring);
    `delivers=False`: the right behaviour may deliver nothing (a host without the consumer the mode is for)."""
    levels = {c["check"]: _level(c["check"]) for c in checks}
    out: dict[str, Any] = {
        "id": sid, "title": title, "kind": "client-mode",
        "level": "MUST" if "MUST" in levels.values() else "SHOULD",
        "version": version,
        "context": {"tool": TOOL, "arguments": {"query": "Globex"}, "mode": mode, "extensions": extensions or {},
                    "consumers": list(consumers)},
        "server": {"extensions": False, "listUnnegotiated": False, "legacyOutputVariants": False, **server},
        "checks": checks,
        "requires": requires,
        "delivers": delivers,
    }
    if note:
        out["note"] = note
    return out


def _level(check_id: str) -> str:
    return next(r["level"] for r in _ALL_RULES if r["check"] == check_id)


_ALL_RULES: Final = (ACCEPTS_LEGACY, APPS_ROUTING, FOLLOWS_MODE, IGNORE_ANNOTATIONS, NO_AUDIENCE_FALLBACK, NO_DUPLICATE_SELECTOR,
                     NO_META, NO_REQUESTED_OLD, NO_UNNEGOTIATED_REQUEST, ONLY_ADVERTISED, PROGRAMMATIC_NOT_IN_MODEL,
                     REJECT_TOOL_WITHOUT_VARIANTS, REQUESTS_NEEDED, ROUTES_BY_AUDIENCE, USER_NOT_IN_MODEL)


def selection(advertised: list[dict[str, str]]) -> list[dict[str, Any]]:
    return [only_advertised(advertised), no_duplicates()]


def legacy_checks(version: str) -> list[dict[str, Any]]:
    return [
        _tagged(NO_REQUESTED_OLD, check("exists", CALLS, "the client calls the tool (so that its request can be judged)")),
        _tagged(NO_REQUESTED_OLD, check("absent", "$.sent[*].params.requestedOutputs",
                                        f"no message carries requestedOutputs at {version}")),
        _tagged(NO_REQUESTED_OLD2, check("count", f"$.sent[?@.params._meta['{VERSION_KEY}']=='{OUTPUTS_VERSION}']",
                                         "no request uses the 2026-12-01 shapes", value=0)),
        _tagged(ACCEPTS_LEGACY, check("containsText", "$.delivered", "the legacy result is accepted: its content reaches a consumer",
                                      value=LEGACY_CANARY)),
    ]


def client_mode_scenarios() -> list[dict[str, Any]]:
    """Every client-mode scenario, in the order the scorecard lists them."""
    full = list(FULL)
    tools = [tool_entry(*FULL, UI_STRUCTURED)]
    out = [
        scenario("client-conversational", "Conversational mode: the assistant/content output reaches the model, nothing else",
                 mode="conversational", server={"tools": tools},
                 checks=[*selection(full),
                         _tagged(ROUTES_BY_AUDIENCE, check("containsText", "$.delivered.model", "the model receives the assistant output",
                                                           value=CANARY["assistant"])),
                         *misrouting()]),
        scenario("client-code-mode", "Code mode asks for programmatic/structured and hands it to the program only",
                 mode="code", server={"tools": tools},
                 checks=[*selection(full), sends_requested_outputs(),
                         *asks_for(FOLLOWS_MODE, "code mode asks for its variant", PROGRAMMATIC_STRUCTURED),
                         reaches_if_requested("programmatic"), *misrouting()]),
        scenario("client-structured-model", "Structured-model mode asks for assistant/structured and gives it to the model",
                 mode="structured-model", server={"tools": tools},
                 checks=[*selection(full), sends_requested_outputs(),
                         *asks_for(FOLLOWS_MODE, "structured-model mode asks for its variant", ASSISTANT_STRUCTURED),
                         reaches_if_requested("assistant", "structured"), *misrouting()]),
        scenario("client-user-display", "User-display mode asks for a user variant and keeps it out of the model",
                 mode="user-display", server={"tools": tools},
                 checks=[*selection(full), sends_requested_outputs(),
                         _tagged(FOLLOWS_MODE, combo("anyOf", "user-display mode asks for user/structured or user/content",
                                                     checks=asks_for(FOLLOWS_MODE, "asks for", USER_STRUCTURED, USER_CONTENT))),
                         reaches_if_requested("user"), *misrouting()]),
        scenario("client-apps-mode", "Apps mode, extension negotiated: assistant output to the model, ui output to the View",
                 mode="apps", extensions=UI_EXTENSIONS, server={"tools": tools, "extensions": True},
                 checks=[*selection([*full, UI_STRUCTURED]), sends_requested_outputs(),
                         *asks_for(FOLLOWS_MODE, "apps mode asks for", ASSISTANT_CONTENT, UI_STRUCTURED),
                         reaches_if_requested("assistant", "content"), reaches_if_requested(UI), *misrouting()]),
        scenario("client-apps-extension-not-negotiated",
                 "Apps mode, the server does not advertise the extension: no ui request, even though the listing shows a ui variant",
                 mode="apps", extensions=UI_EXTENSIONS, server={"tools": tools, "extensions": False, "listUnnegotiated": True},
                 checks=[*selection([*full, UI_STRUCTURED]),
                         _tagged(NO_UNNEGOTIATED_REQUEST, check("count", f"$.sent[*].params.requestedOutputs[?@.audience=='{UI}']",
                                                                "no request names the ui audience", value=0)),
                         misrouting()[-1]],
                 note="The fixture lists the ui variant to a client that advertised the extension although the server's "
                      "server/discover does not: only the client's own rule can keep it from asking. Refusing the listing "
                      "(a server MUST NOT list it; an error exit is allowed) keeps the rule too, once the client has listed the tools.",
                 requires="list"),
        scenario("client-code-mode-variant-not-declared",
                 "Code mode against a tool without programmatic/structured asks only for declared variants",
                 mode="code", server={"tools": [tool_entry(ASSISTANT_CONTENT, ASSISTANT_STRUCTURED)]},
                 checks=[*selection([ASSISTANT_CONTENT, ASSISTANT_STRUCTURED]), *misrouting()]),
        scenario("client-no-user-display", "A host without a user display gives a user output to nobody else",
                 mode="user-display", consumers=("model", "program"), server={"tools": tools},
                 checks=[*selection(full),
                         _tagged(NO_AUDIENCE_FALLBACK, check("notContainsText", "$.delivered", "the user output reaches no other consumer",
                                                             value=CANARY["user"])),
                         *misrouting()],
                 note="context.consumers lists the consumers this host has: here no user display (so it may deliver nothing).",
                 delivers=False),
        scenario("client-block-annotations", "Block annotations that name another audience do not re-route an output",
                 mode="user-display", server={"tools": [tool_entry(ASSISTANT_CONTENT, USER_CONTENT)], "annotate": True},
                 checks=[*selection([ASSISTANT_CONTENT, USER_CONTENT]), reaches_if_requested("user"), *misrouting(annotated=True)],
                 note="Every content block the fixture returns is annotated with the other core audience."),
        scenario("client-rejects-tool-without-outputvariants",
                 "A Tool without outputVariants at 2026-12-01: the listing is invalid, nothing is called or used at 2026-12-01",
                 mode="conversational", server={"tools": [{**tool_entry(*FULL), "legacy": True}]},
                 checks=[_tagged(REJECT_TOOL_WITHOUT_VARIANTS, check("count", NEW_CALLS, "no tools/call at 2026-12-01", value=0)),
                         _tagged(REJECT_TOOL_WITHOUT_VARIANTS, check("notContainsText", "$.delivered",
                                                                     "nothing of a legacy-shaped 2026-12-01 result is used",
                                                                     value=LEGACY_AT_NEW_CANARY))],
                 note="Repeating the request at an earlier version the server supports is allowed (the SEP's way to use an older shape); "
                      "the client must have listed the tools at 2026-12-01, and may end with an error (refusing is right here).",
                 requires="list"),
        scenario("client-legacy-2026-07-28", "Code mode at 2026-07-28: legacy shapes, no requestedOutputs, the legacy result used",
                 version="2026-07-28", mode="code", server={"tools": tools, "legacyOutputVariants": True},
                 checks=legacy_checks("2026-07-28"),
                 note="The legacy listing also carries outputVariants: no negotiation signal."),
        scenario("client-legacy-2025-11-25-apps", "An Apps host at 2025-11-25 (initialize) sends no requestedOutputs",
                 version="2025-11-25", mode="apps", extensions=UI_EXTENSIONS, server={"tools": tools, "extensions": True},
                 checks=legacy_checks("2025-11-25")),
        scenario("client-legacy-2025-11-25", "A conversational client at 2025-11-25 (initialize) sends no requestedOutputs",
                 version="2025-11-25", mode="conversational", server={"tools": tools},
                 checks=legacy_checks("2025-11-25")),
    ]
    return out


def scenario_rules(vector: dict[str, Any]) -> list[dict[str, str]]:
    """The rules a scenario's checks judge, each once, in order."""
    ids = list(dict.fromkeys(c["check"] for c in vector["checks"]))
    return [next(r for r in _ALL_RULES if r["check"] == i) for i in ids]
