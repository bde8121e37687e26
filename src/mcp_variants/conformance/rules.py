"""Every sentence of SEP-3279 that a scenario checks, quoted once, each with its check id.

A rule is `{"check", "section", "quote", "level"}`. `check` is the id a scenario emits in its
`checks.json` (the official suite's `sep-NNNN-...` form) and the id `sep-3279.yaml` maps the
SEP's normative sentences to. A scenario that cites a rule emits its id with the scenario's
verdict. The testing plan's items (`plan_rule`) carry no id: they are not sentences of the
Specification section.

`[...]` inside a quote is an editorial insertion (what "it" or "they" refers to).
"""

from __future__ import annotations

from typing import Any, Final

SEP_URL: Final = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3279"
PLAN: Final = "Reference implementation and testing plan"


def rule(check: str | None, section: str, quote: str, level: str = "MUST") -> dict[str, str]:
    """A sentence of SEP-3279, quoted, the section it is in, and the check id that stands for it.
    `check=None`: cited for context only, no check is emitted for it."""
    out = {"section": section, "quote": quote, "level": level}
    if check:
        out = {"check": f"sep-3279-{check}", **out}
    return out


def plan_rule(item: int, text: str) -> dict[str, str]:
    return rule(None, PLAN, f"{item}. {text}", "PLAN")


# ---- servers: declarations ------------------------------------------------------------------------------

AUDIENCE_VALUES = rule("audience-core-or-negotiated", "Result audience",
                       "The core audience field MUST be one of these values or the identifier of an MCP extension that the client and "
                       "server negotiated for the current request.")
NOT_ARBITRARY = rule("non-core-audience-defined-by-extension", "Schema types",
                     "A non-core audience MUST be defined by an MCP extension, and its identifier MUST follow the extension's namespacing"
                     " rules.")
COMBINATIONS = rule("core-combinations-only", "Result format", "Other combinations require an MCP extension.")
COMBINATIONS_TABLE = rule("core-combinations-only", "Result format",
                          "[table] programmatic | content: No | structured: Yes | Code mode and programmatic orchestration")
EVERY_TOOL_AC = rule("tool-declares-assistant-content", "Tool declaration", "Every tool MUST declare an assistant/content variant.")
NO_DUPLICATE_PAIR = rule("tool-no-duplicate-variant-pair", "Tool declaration",
                         "A tool MUST NOT declare the same audience and format pair more than once.")
USABLE = rule("assistant-content-usable", "Tool declaration",
              "The assistant/content variant MUST provide a usable model representation of the successful tool result. It MUST NOT be "
              "only a placeholder that directs the model to an output it cannot receive.")
STRUCTURED_SCHEMA = rule("structured-variant-declares-schema", "Tool declaration",
                         "A structured variant SHOULD declare a JSON Schema for its payload.", "SHOULD")
NO_UNNEGOTIATED_LISTING = rule("server-no-unnegotiated-extension-variant", "Tool declaration",
                               "A server MUST NOT include an extension audience in outputVariants unless both the client and server "
                               "advertised support for the defining extension and satisfied any audience-specific negotiation rules "
                               "defined by that extension.")
SCHEMA_EQUALITY = rule("schema-equality-not-inferred", "Tool declaration",
                       "A tool may use the same schema for several audiences, but schema equality MUST NOT be inferred from their shared "
                       "format.")
EXTENSION_ONLY_NEGOTIATED = rule("extension-audience-only-when-negotiated", "Extension audiences",
                                 "An extension audience may appear in outputVariants or requestedOutputs only when both client and server"
                                 " advertised the defining extension and completed any audience-specific negotiation it requires.")
SHAPES_BY_VERSION = rule("version-determines-shapes", "Backward compatibility",
                         "The requested protocol version, not the presence or absence of a field, determines the Tool and result shapes: "
                         "[table] 2026-12-01 or later | outputVariants | optional requestedOutputs | outputs; 2026-07-28 or earlier | "
                         "legacy optional outputSchema | no requestedOutputs | content, optional structuredContent")
NO_OUTPUTSCHEMA_NEW = rule("outputschema-maps-to-legacy-only", "Backward compatibility",
                           "[table] 2026-12-01 or later | Tool declaration: outputVariants; 2026-07-28 or earlier | legacy optional "
                           "outputSchema. [Tool declaration:] The former top-level outputSchema maps only to the legacy structuredContent"
                           " field.", "SHOULD")

# ---- servers: selection and results ---------------------------------------------------------------------

FALLBACK = rule("server-fallback-assistant-content", "Request-time selection",
                "If requestedOutputs is absent, the server MUST return assistant/content.")
REJECT = rule("server-rejects-undeclared-or-unnegotiated-selector", "Request-time selection",
              "If the client requests an undeclared or unnegotiated variant, the server MUST reject the request as invalid parameters.")
NO_SUBSTITUTE = rule("server-no-silent-substitution", "Request-time selection", "It MUST NOT silently substitute another variant.")
OUTPUTS_ARRAY = rule("result-has-outputs", "Tool call result",
                     "For tools that declare outputVariants, CallToolResult contains an outputs array")
EXACTLY_ONE = rule("server-one-output-per-selector", "Tool call result", "MUST return exactly one output for every requested selector")
NO_UNREQUESTED = rule("server-no-unrequested-output", "Tool call result", "MUST NOT return an output that the client did not request")
MATCH_SELECTOR = rule("server-output-matches-selector", "Tool call result", "MUST use the audience and format from the matching selector")
VALIDATE_EACH = rule("server-validates-each-structured-output", "Tool call result",
                     "MUST validate each structured output against the schema for that variant")
NO_MIRROR = rule("server-no-structured-mirror", "Tool call result",
                 "MUST NOT mirror a structured output into a content output unless the client requested both")
CONFORM = rule("structured-output-conforms-to-schema", "Result format",
               "If the variant declaration has a schema, the value MUST conform to that schema unless the tool result has isError: true.")
SDK_NO_MIRROR = rule("sdk-no-unrequested-text-mirror", "SDK migration",
                     "For new-protocol requests, SDKs MUST NOT generate an unrequested text mirror.")
ERROR_OUTPUTS = rule("server-error-outputs-per-selector", "Errors",
                     "When isError is true, the server SHOULD return outputs matching the requested selectors when it can produce a "
                     "useful audience-specific error representation.", "SHOULD")
ERROR_NOT_EMPTY = rule("server-error-not-empty-outputs", "Errors",
                       "If the server cannot produce any requested error representation, it SHOULD return a protocol-level error rather "
                       "than a successful result with an empty outputs array.", "SHOULD")
ERROR_SCHEMA = rule("error-outputs-need-not-conform", "Errors",
                    "Structured error outputs are not required to conform to the success schema.", "SHOULD")

# ---- servers: older protocol versions -------------------------------------------------------------------

LEGACY_LIST = rule("server-legacy-tool-shape", "Servers handling older requests",
                   "A server handling tools/list under protocol version 2026-07-28 or earlier MUST return the legacy Tool shape and MUST "
                   "omit outputVariants.")
LEGACY_CALL = rule("server-legacy-result-shape", "Servers handling older requests",
                   "A server handling tools/call under protocol version 2026-07-28 or earlier MUST return the legacy content and optional"
                   " structuredContent fields.")
LEGACY_CONTENT = rule("server-legacy-content-from-assistant-content", "Servers handling older requests",
                      "It SHOULD construct content from assistant/content.", "SHOULD")
LEGACY_CONFORM = rule("server-legacy-structuredcontent-conforms", "Servers handling older requests",
                      "If the corresponding legacy Tool declaration included outputSchema, any successful structuredContent value MUST "
                      "conform to that schema.")
OLD_CLIENT = rule("server-no-outputs-for-old-clients", "Servers handling older requests",
                  "It MUST NOT assume an old client understands outputs.")
LEGACY_SCHEMA_SOURCE = rule("server-legacy-outputschema-not-from-other-audiences", "Servers handling older requests",
                            "For a new tool, the server [...] MUST NOT automatically project a user, programmatic, or extension schema "
                            "into outputSchema unless a negotiated extension defines a compatible legacy projection.")
LEGACY_SCHEMA_SHOULD = rule("server-legacy-outputschema-from-assistant-structured", "Servers handling older requests",
                            "For a new tool, the server SHOULD use the schema from assistant/structured when that variant is declared",
                            "SHOULD")
NOT_A_SIGNAL = rule("legacy-outputvariants-not-a-signal", "Clients calling older servers",
                    "An outputVariants field received under an earlier protocol version is not a negotiation signal and does not enable "
                    "the new request or result shapes.")

# ---- clients and hosts ----------------------------------------------------------------------------------

IGNORE_ANNOTATIONS = rule("client-ignores-block-annotations", "Result audience",
                          "Clients MUST NOT infer the output audience by inspecting block annotations. If a block annotation conflicts "
                          "with its containing output, the output-level audience controls routing.")
REQUESTS_NEEDED = rule("client-requests-needed-outputs", "Request-time selection",
                       "For a request using protocol version 2026-12-01 or later, a client SHOULD send requestedOutputs when it requires "
                       "an output other than, or in addition to, the assistant/content fallback.", "SHOULD")
NO_REQUESTED_OLD = rule("client-no-requestedoutputs-before-2026-12-01", "Request-time selection",
                        "A client MUST NOT send requestedOutputs on a request using an earlier protocol version.")
NO_REQUESTED_OLD2 = rule("client-no-requestedoutputs-before-2026-12-01", "Clients calling older servers",
                         "A client calling a server under protocol version 2026-07-28 or earlier MUST use the legacy Tool and request "
                         "shapes and MUST NOT send requestedOutputs.")
ONLY_ADVERTISED = rule("client-selects-only-advertised", "Request-time selection",
                       "The client MUST select only variants advertised by the tool.")
NO_UNNEGOTIATED_REQUEST = rule("client-no-unnegotiated-extension-request", "Request-time selection",
                               "It MUST NOT request an extension audience unless both client and server advertised support for the "
                               "defining extension and completed any audience-specific negotiation it requires.")
NO_DUPLICATE_SELECTOR = rule("client-no-duplicate-selector", "Request-time selection",
                             "The client MUST NOT include the same selector more than once in requestedOutputs.")
FOLLOWS_MODE = rule("client-selection-follows-mode", "Request-time selection",
                    "A client SHOULD choose it from the active execution mode, available consumers, local policy, and negotiated "
                    "extensions.", "SHOULD")
ROUTES_BY_AUDIENCE = rule("client-routes-outputs-by-audience", "Routing requirements",
                          "After receiving a valid result, the client or host routes each output as follows: [assistant outputs are "
                          "eligible for model context; user outputs for user presentation; programmatic outputs are returned to "
                          "client-controlled program logic; extension outputs follow the negotiated extension]")
USER_NOT_IN_MODEL = rule("client-user-output-not-in-model", "Routing requirements",
                         "[user outputs:] The host MUST NOT automatically add either format to model context.")
PROGRAMMATIC_NOT_IN_MODEL = rule("client-programmatic-output-not-in-model-or-user", "Routing requirements",
                                 "[programmatic outputs:] The host MUST NOT automatically add them to model context or render them to the"
                                 " user.")
NO_AUDIENCE_FALLBACK = rule("client-no-audience-fallback", "Routing requirements",
                            "They MUST NOT treat one audience as a fallback for another merely because the formats match.")
NO_META = rule("client-no-result-meta-forwarded", "Result metadata",
               "A client MUST NOT forward it to the model, user, programmatic caller, or an extension consumer unless the core protocol "
               "or a negotiated extension defines handling for the relevant metadata entry.")
NO_ERROR_SUBSTITUTION = rule("client-no-error-output-substitution", "Errors",
                             "Clients MUST NOT substitute an error output from one audience for another.")
APPS_ROUTING = rule("client-apps-routing", "MCP Apps integration",
                    "The host provides only the assistant output to the model. It forwards only the io.modelcontextprotocol/ui output to "
                    "the View.", "PLAN")
REJECT_TOOL_WITHOUT_VARIANTS = rule("client-rejects-tool-without-outputvariants", "Backward compatibility",
                                    "A client that receives a Tool without outputVariants under protocol version 2026-12-01 MUST treat "
                                    "the response as invalid. It MUST NOT silently switch to legacy semantics.")
ACCEPTS_LEGACY = rule("client-accepts-legacy-result", "Clients calling older servers",
                      "[A client calling a server under protocol version 2026-07-28 or earlier] MUST accept the legacy result shape.")
VALIDATES_REQUESTED_SCHEMA = rule("client-validates-against-requested-schema", "Security implications",
                                  "Clients should validate structured outputs against the schema for the requested variant. A client must"
                                  " not validate an App output against the programmatic schema or accept one audience as a substitute for"
                                  " another.", "SHOULD")

# Cited for context by a server scenario (a server that omits outputVariants breaks every conforming client).
CLIENT_REJECTS_CONTEXT = rule(None, "Backward compatibility",
                              "A client that receives a Tool without outputVariants under protocol version 2026-12-01 MUST treat the "
                              "response as invalid.")


def rule_ids(vectors: Any) -> set[str]:
    """Every check id the given vectors (or scenarios) emit."""
    ids: set[str] = set()
    for vector in vectors:
        ids |= {r["check"] for r in vector.get("rules", []) if r.get("check")}
        ids |= {c["check"] for c in vector.get("checks", []) if isinstance(c, dict) and c.get("check")}
    return ids
