"""The server-side scenarios: one per item of SEP-3279's testing plan that a server can
show on the wire, and one per MUST a server can be caught breaking on the wire.

Each scenario is data (a *vector*): the rule it checks, quoted; which tool it needs; the
requests; and declarative checks (checks.py) over the responses. The runner interprets
exactly this data, and `vectors/*.json` is exactly this data written out, so the Python
here and the language-neutral vectors cannot drift apart (tests/conformance/test_vectors.py).
"""

from __future__ import annotations

from typing import Any, Final

from .constants import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    CORE_AUDIENCES,
    INVALID_PARAMS,
    OUTPUTS_VERSION,
    PROGRAMMATIC_STRUCTURED,
    UI,
    UI_EXTENSIONS,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    sel,
)
from .rules import (
    AUDIENCE_VALUES,
    CLIENT_REJECTS_CONTEXT,
    COMBINATIONS,
    COMBINATIONS_TABLE,
    CONFORM,
    ERROR_NOT_EMPTY,
    ERROR_OUTPUTS,
    ERROR_SCHEMA,
    EVERY_TOOL_AC,
    EXACTLY_ONE,
    EXTENSION_ONLY_NEGOTIATED,
    FALLBACK,
    LEGACY_CALL,
    LEGACY_CONFORM,
    LEGACY_CONTENT,
    LEGACY_LIST,
    LEGACY_SCHEMA_SHOULD,
    LEGACY_SCHEMA_SOURCE,
    MATCH_SELECTOR,
    NO_DUPLICATE_PAIR,
    NO_MIRROR,
    NO_OUTPUTSCHEMA_NEW,
    NO_SUBSTITUTE,
    NO_UNNEGOTIATED_LISTING,
    NO_UNREQUESTED,
    NOT_A_SIGNAL,
    NOT_ARBITRARY,
    OLD_CLIENT,
    OUTPUTS_ARRAY,
    REJECT,
    SCHEMA_EQUALITY,
    SDK_NO_MIRROR,
    SHAPES_BY_VERSION,
    STRUCTURED_SCHEMA,
    USABLE,
    VALIDATE_EACH,
    plan_rule,
)

R = "$.response.result"
# The outputVariants of tool {{t}} in the step named `modern` (a forEach over tool names binds t).
MODERN_VARIANTS = "$.steps.modern.response.result.tools[?@.name=='{{t}}'].outputVariants"
IS_ASSISTANT_STRUCTURED = "[?@.audience=='assistant' && @.format=='structured']"
# SEP-3279 asks its legacy outputSchema rules of a new tool; for a tool that already served older clients it asks the
# server to keep that tool's established outputSchema and structuredContent, which the wire cannot tell apart: the person
# names such tools (--established, bound as {{established}}) and the rules' forEach leaves them out, naming each.
NEW_TOOLS_ONLY = {"except": "{{established}}"}


def for_a_new_tool(rule: str) -> dict[str, str]:
    """The forEach's `hint`: what a failure of a tool that is not new means, and the option that says so."""
    return {"hint": f"SEP-3279 {rule} a new tool; if {{{{t}}}} already had this outputSchema before it declared variants, "
                    "a migrated tool keeping its established shape, pass --established {{t}}"}
OUTPUTS = f"{R}.outputs"

# ---- building blocks --------------------------------------------------------------------------------------


def list_step(step_id: str = "list", *, version: str = OUTPUTS_VERSION, ui: bool = False,
              checks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """tools/list, every page (the replayer follows nextCursor and concatenates `tools`)."""
    return {"id": step_id, "version": version, "extensions": UI_EXTENSIONS if ui else {}, "method": "tools/list",
            "params": {}, "paginate": True, "checks": checks or []}


def call_step(requested: Any = None, *, step_id: str = "call", version: str = OUTPUTS_VERSION, ui: bool = False,
              checks: list[dict[str, Any]] | None = None, expect_success: bool = True) -> dict[str, Any]:
    """tools/call of the bound tool with its bound arguments; `requested` verbatim (None: omitted). `expect_success`:
    the scenario needs the call to succeed (`mustSucceed`), so a call that fails (a JSON-RPC error, isError, an internal
    error output) fails the scenario with the server's own message: the runner judges it before the checks."""
    params: dict[str, Any] = {"name": "{{tool}}", "arguments": "{{arguments}}"}
    if requested is not None:
        params["requestedOutputs"] = requested
    step: dict[str, Any] = {"id": step_id, "version": version, "extensions": UI_EXTENSIONS if ui else {},
                            "method": "tools/call", "params": params, "checks": checks or []}
    if expect_success:
        step["mustSucceed"] = True
    return step


# What a server whose assistant/content carries nothing should do: the failure alone says only "length 0".
EMPTY_CONTENT_FIX: Final = ("SEP-3279: assistant/content MUST provide a usable model representation, and this one gives "
                            "the model nothing to read; return a text block that says what the empty result means "
                            "(e.g. \"No results.\")")


def check(op: str, path: str, says: str, **extra: Any) -> dict[str, Any]:
    return {"op": op, "path": path, "says": says, **extra}


def judges(rule: dict[str, str], item: dict[str, Any]) -> dict[str, Any]:
    """`item`, naming the check id of the rule it judges: a failure of it is reported under that id alone
    (scorecards.py), not copied onto every id the scenario cites."""
    return {**item, "check": rule["check"]}


def combo(op: str, says: str, **extra: Any) -> dict[str, Any]:
    """anyOf / forEach: a check made of nested checks (no `path` of its own)."""
    return {"op": op, "says": says, **extra}


def is_result() -> dict[str, Any]:
    return check("exists", R, "the server answers with a result, not a JSON-RPC error")


def outputs_array() -> dict[str, Any]:
    return judges(OUTPUTS_ARRAY, check("type", OUTPUTS, "the result has an `outputs` array", value="array"))


def count_outputs(n: int) -> dict[str, Any]:
    """Untagged, like same_as_requested: one count too many or too few breaks one of several rules (exactly one
    output per selector, nothing unrequested), judged under the scenario's rules together."""
    return check("count", f"{OUTPUTS}[*]", f"exactly {n} output{'s' if n != 1 else ''}", value=n)


def same_as_requested() -> dict[str, Any]:
    return check("sameSelectors", f"{OUTPUTS}[*]", "the outputs' audience/format pairs are exactly the requested selectors, each once",
                 otherPath="$.request.params.requestedOutputs[*]")


def only(selector: dict[str, str]) -> list[dict[str, Any]]:
    a, f = selector["audience"], selector["format"]
    return [count_outputs(1),
            judges(MATCH_SELECTOR, check("equals", f"{OUTPUTS}[*].audience", f"the output's audience is {a}", value=a)),
            judges(MATCH_SELECTOR, check("equals", f"{OUTPUTS}[*].format", f"the output's format is {f}", value=f))]


def no_legacy_fields() -> list[dict[str, Any]]:
    return [judges(SHAPES_BY_VERSION, check("absent", f"{R}.content", "no top-level `content` (a 2026-12-01 result carries `outputs` "
                                                                      "only)")),
            judges(SHAPES_BY_VERSION, check("absent", f"{R}.structuredContent", "no top-level `structuredContent` (a 2026-12-01 result "
                                                                                "carries `outputs` only)"))]


def output_shapes() -> list[dict[str, Any]]:
    return [
        check("every", f"{OUTPUTS}[?@.format=='content']", "each content output carries a `content` array of blocks and no "
                                                           "structuredContent",
              checks=[check("type", "$.content", "`content` is an array", value="array"),
                      check("every", "$.content[*]", "each block is an object with a string `type`",
                            checks=[check("type", "$.type", "the block has a string `type`", value="string")], vacuous=True,
                            over="$.content"),
                      check("absent", "$.structuredContent", "no `structuredContent` beside `content`")], vacuous=True, over=OUTPUTS),
        check("every", f"{OUTPUTS}[?@.format=='structured']", "each structured output carries `structuredContent` and no content",
              checks=[check("exists", "$.structuredContent", "`structuredContent` is present"),
                      check("absent", "$.content", "no `content` beside `structuredContent`")], vacuous=True, over=OUTPUTS),
    ]


def schema_path(selector: dict[str, str], step: str = "list", audience: str | None = None) -> str:
    a = audience or selector["audience"]
    return (f"$.steps.{step}.response.result.tools[?@.name=='{{{{tool}}}}']"
            f".outputVariants[?@.audience=='{a}' && @.format=='{selector['format']}'].schema")


def valid(selector: dict[str, str]) -> dict[str, Any]:
    a, f = selector["audience"], selector["format"]
    return judges(VALIDATE_EACH, check("validAgainst", f"{OUTPUTS}[?@.audience=='{a}' && @.format=='{f}'].structuredContent",
                                       f"the {a}/{f} output is valid against the schema its variant declares (vacuously true if it "
                                       "declares none)", schemaPath=schema_path(selector), vacuous=True))


def refused() -> list[dict[str, Any]]:
    return [judges(REJECT, check("equals", "$.response.error.code", f"the server answers JSON-RPC error {INVALID_PARAMS} (invalid "
                                                                    f"params)", value=INVALID_PARAMS)),
            judges(NO_SUBSTITUTE, check("absent", "$.response.result", "no result: nothing is substituted for the refused selector"))]


def bind(*, declares: list[dict[str, str]] | None = None, ui: bool = False, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"listing": "ui" if ui else "plain", "declares": declares or [ASSISTANT_CONTENT]}
    spec.update(extra)
    return {"tool": spec}


def scenario(sid: str, title: str, rules: list[dict[str, str]], steps: list[dict[str, Any]], *,
             binding: dict[str, Any] | None = None, plan: int | None = None, level: str | None = None,
             note: str | None = None) -> dict[str, Any]:
    levels = [r["level"] for r in rules]
    vector: dict[str, Any] = {
        "id": sid, "title": title, "kind": "server",
        "level": level or ("MUST" if "MUST" in levels else "PLAN" if "PLAN" in levels else "SHOULD"),
        "rules": rules,
    }
    if plan is not None:
        vector["plan"] = plan
    if note:
        vector["note"] = note
    vector["bind"] = binding or {}
    if vector["level"] == "SHOULD":  # its checks judge the SHOULD it cites, not the MUSTs a shared helper names
        steps = [{**step, "checks": _untagged(step["checks"])} if step.get("checks") else step for step in steps]
    else:  # a MUST scenario cites every rule its checks judge
        cited = {r["check"] for r in rules if "check" in r}
        vector["rules"] = [*rules, *(RULE_BY_ID[i] for i in dict.fromkeys(_tags(steps)) if i not in cited)]
    vector["steps"] = steps
    return vector


# The rules the shared helpers' checks judge (`judges`), by check id.
RULE_BY_ID: dict[str, dict[str, str]] = {r["check"]: r for r in (OUTPUTS_ARRAY, MATCH_SELECTOR, SHAPES_BY_VERSION, VALIDATE_EACH,
                                                                  REJECT, NO_SUBSTITUTE)}


def _tags(items: list[dict[str, Any]]) -> list[str]:
    out = []
    for item in items:
        if isinstance(item.get("check"), str):
            out.append(item["check"])
        out += _tags(item.get("checks", []))
    return out


def _untagged(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in checks:
        kept = {k: v for k, v in item.items() if k != "check"}
        if "checks" in kept:
            kept["checks"] = _untagged(kept["checks"])
        out.append(kept)
    return out


# ---- the testing plan (server side) -------------------------------------------------------------------------


def plan_scenarios() -> list[dict[str, Any]]:
    out = []
    out.append(scenario(
        "plan-01-conversational", "A conversational call requesting assistant/content",
        [plan_rule(1, "a conversational call requesting assistant/content"), EXACTLY_ONE, NO_UNREQUESTED, MATCH_SELECTOR],
        [call_step([ASSISTANT_CONTENT], checks=[is_result(), outputs_array(), *only(ASSISTANT_CONTENT), *output_shapes(),
                                              check("minLength", f"{OUTPUTS}[0].content", "the model gets at least one content "
                                                                                          "block", value=1, fix=EMPTY_CONTENT_FIX),
                                              *no_legacy_fields()])],
        binding=bind(declares=[ASSISTANT_CONTENT]), plan=1))
    out.append(scenario(
        "plan-02-code-mode", "A code-mode call requesting programmatic/structured",
        [plan_rule(2, "a code-mode call requesting programmatic/structured"), EXACTLY_ONE, NO_UNREQUESTED, VALIDATE_EACH, NO_MIRROR],
        [list_step(), call_step([PROGRAMMATIC_STRUCTURED], checks=[is_result(), outputs_array(), *only(PROGRAMMATIC_STRUCTURED),
                                                                  *output_shapes(), valid(PROGRAMMATIC_STRUCTURED), *no_legacy_fields()])],
        binding=bind(declares=[PROGRAMMATIC_STRUCTURED]), plan=2))
    out.append(scenario(
        "plan-03-structured-model-input", "A direct structured-model call requesting assistant/structured",
        [plan_rule(3, "a direct structured-model call requesting assistant/structured"), EXACTLY_ONE, VALIDATE_EACH, NO_MIRROR],
        [list_step(), call_step([ASSISTANT_STRUCTURED], checks=[is_result(), outputs_array(), *only(ASSISTANT_STRUCTURED),
                                                                *output_shapes(), valid(ASSISTANT_STRUCTURED), *no_legacy_fields()])],
        binding=bind(declares=[ASSISTANT_STRUCTURED]), plan=3))
    out.append(scenario(
        "plan-04-user-media", "A user-rendered media call requesting user/content",
        [plan_rule(4, "a user-rendered media call requesting user/content"), EXACTLY_ONE, NO_UNREQUESTED, MATCH_SELECTOR],
        [call_step([USER_CONTENT], checks=[is_result(), outputs_array(), *only(USER_CONTENT), *output_shapes(), *no_legacy_fields()])],
        binding=bind(declares=[USER_CONTENT]), plan=4))
    out.append(scenario(
        "plan-05-host-native-table", "A host-native table call requesting user/structured",
        [plan_rule(5, "a host-native table call requesting user/structured"), EXACTLY_ONE, VALIDATE_EACH],
        [list_step(), call_step([USER_STRUCTURED], checks=[is_result(), outputs_array(), *only(USER_STRUCTURED), *output_shapes(),
                                                           valid(USER_STRUCTURED), *no_legacy_fields()])],
        binding=bind(declares=[USER_STRUCTURED]), plan=5))
    out.append(scenario(
        "plan-06-apps-call", "An Apps call requesting assistant/content and io.modelcontextprotocol/ui/structured",
        [plan_rule(6, "an Apps call requesting assistant/content and io.modelcontextprotocol/ui/structured"), EXACTLY_ONE,
         NO_UNREQUESTED, VALIDATE_EACH, AUDIENCE_VALUES],
        [list_step(ui=True), call_step([ASSISTANT_CONTENT, UI_STRUCTURED], ui=True,
                                       checks=[is_result(), outputs_array(), count_outputs(2), same_as_requested(), *output_shapes(),
                                               valid(UI_STRUCTURED), *no_legacy_fields()])],
        binding=bind(declares=[ASSISTANT_CONTENT, UI_STRUCTURED], ui=True), plan=6))
    every_ac = check("every", "$.response.result.tools[*]", "every listed tool declares assistant/content exactly once",
                     checks=[check("count", "$.outputVariants[?@.audience=='assistant' && @.format=='content']",
                                   "assistant/content is declared once", value=1)])
    out.append(scenario(
        "plan-07-every-tool-declares-assistant-content",
        "No tool declaration omits assistant/content (server side; the host side is host-plan-07)",
        [plan_rule(7, "rejection of any tool declaration that omits assistant/content"), EVERY_TOOL_AC],
        [list_step("list", checks=[check("exists", "$.response.result.tools", "tools/list answers with a `tools` array"), every_ac]),
         list_step("list-ui", ui=True, checks=[every_ac])], plan=7,
        note="A server cannot be seen rejecting a declaration; what it can be seen doing is never listing one without assistant/content."))
    out.append(scenario(
        "plan-08-app-only-explicit-ui", "An App-only call explicitly requesting io.modelcontextprotocol/ui/structured",
        [plan_rule(8, "an App-only call explicitly requesting io.modelcontextprotocol/ui/structured"), EXACTLY_ONE, VALIDATE_EACH],
        [list_step(ui=True), call_step([UI_STRUCTURED], ui=True, checks=[is_result(), outputs_array(), *only(UI_STRUCTURED),
                                                                         *output_shapes(),
                                                                        valid(UI_STRUCTURED), *no_legacy_fields()])],
        binding=bind(declares=[UI_STRUCTURED], ui=True, preferAppOnly=True), plan=8,
        note="Prefers a tool whose _meta.ui.visibility is [\"app\"]; any tool declaring the ui variant otherwise."))
    out.append(scenario(
        "plan-09-app-only-fallback", "An App-only call without requestedOutputs receives assistant/content",
        [plan_rule(9, "an App-only call without requestedOutputs receiving assistant/content"), FALLBACK, NO_UNREQUESTED],
        [call_step(None, ui=True, checks=[is_result(), outputs_array(), *only(ASSISTANT_CONTENT), *output_shapes(),
                                          check("count", f"{OUTPUTS}[?@.audience=='{UI}']", "no ui output although the extension is "
                                                                                            "negotiated", value=0),
                                          *no_legacy_fields()])],
        binding=bind(declares=[UI_STRUCTURED], ui=True, preferAppOnly=True), plan=9))
    out.append(scenario(
        "plan-10a-undeclared-selector", "Rejection of an undeclared selector",
        [plan_rule(10, "rejection of undeclared and unnegotiated selectors"), REJECT, NO_SUBSTITUTE],
        [call_step(["{{undeclared}}"], checks=refused(), expect_success=False)],
        binding=bind(lacksCore=True), plan=10,
        note="{{undeclared}} is the first core selector (assistant/structured, user/content, user/structured, programmatic/structured) the "
             "tool does not declare."))
    out.append(scenario(
        "plan-10b-unnegotiated-extension", "Rejection of an extension selector the request did not negotiate",
        [plan_rule(10, "rejection of undeclared and unnegotiated selectors"), REJECT, NO_SUBSTITUTE,
         EXTENSION_ONLY_NEGOTIATED],
        [call_step([UI_STRUCTURED], checks=refused(), expect_success=False)],
        binding=bind(declares=[ASSISTANT_CONTENT, UI_STRUCTURED], ui=True), plan=10,
        note="The tool declares the ui variant when the extension is negotiated; this request does not negotiate it."))
    out.append(scenario(
        "plan-10c-arbitrary-audience", "Rejection of an audience that is neither core nor a negotiated extension",
        [plan_rule(10, "rejection of undeclared and unnegotiated selectors"), REJECT, NO_SUBSTITUTE, NOT_ARBITRARY],
        [call_step([sel("host", "structured")], checks=refused(), expect_success=False)],
        binding=bind(), plan=10))
    out.append(scenario(
        "plan-10d-non-core-combination", "Rejection of programmatic/content, a combination outside the core set",
        [plan_rule(10, "rejection of undeclared and unnegotiated selectors"), REJECT, NO_SUBSTITUTE, COMBINATIONS],
        [call_step([sel("programmatic", "content")], checks=refused(), expect_success=False)],
        binding=bind(), plan=10))
    out.append(scenario(
        "plan-11-independent-schemas", "Independent validation of programmatic and App schemas",
        [plan_rule(11, "independent validation of programmatic and App schemas"), VALIDATE_EACH, CONFORM,
         SCHEMA_EQUALITY],
        [list_step(ui=True, checks=[
            check("exists", "$.response.result.tools[?@.name=='{{tool}}'].outputVariants[?@.audience=='programmatic' && "
                            "@.format=='structured']",
                  "the tool lists programmatic/structured"),
            check("exists", f"$.response.result.tools[?@.name=='{{{{tool}}}}'].outputVariants[?@.audience=='{UI}' && "
                            f"@.format=='structured']",
                  "the tool lists io.modelcontextprotocol/ui/structured, with its own entry")]),
         call_step([PROGRAMMATIC_STRUCTURED, UI_STRUCTURED], ui=True,
                   checks=[is_result(), outputs_array(), count_outputs(2), same_as_requested(), *output_shapes(),
                           valid(PROGRAMMATIC_STRUCTURED), valid(UI_STRUCTURED)])],
        binding=bind(declares=[PROGRAMMATIC_STRUCTURED, UI_STRUCTURED], ui=True), plan=11))
    out.append(legacy_scenario("2026-07-28", plan=13))
    return out


def legacy_scenario(version: str, plan: int | None = None) -> dict[str, Any]:
    """tools/list and tools/call at an older version: the legacy shapes, nothing of 2026-12-01."""
    list_checks = [
        check("exists", "$.response.result.tools", "tools/list answers with a `tools` array"),
        check("every", "$.response.result.tools[*]", "every tool has the legacy shape",
              checks=[check("absent", "$.outputVariants", "no `outputVariants`"),
                      check("type", "$.name", "a string `name`", value="string"),
                      check("type", "$.inputSchema", "an `inputSchema` object", value="object")]),
    ]
    call_checks = [
        is_result(),
        check("type", f"{R}.content", "the result has the legacy `content` array", value="array"),
        check("absent", OUTPUTS, "no `outputs`: an old client does not understand them"),
        check("validAgainst", f"{R}.structuredContent",
              "structuredContent, when present, is valid against the tool's legacy outputSchema (vacuously true without one)",
              schemaPath="$.steps.list.response.result.tools[?@.name=='{{tool}}'].outputSchema", vacuous=True),
    ]
    title = f"Versioned projection to the {version} legacy shapes" if plan else f"Legacy shapes at {version}"
    rules = [LEGACY_LIST, LEGACY_CALL, LEGACY_CONFORM, OLD_CLIENT, SHAPES_BY_VERSION]
    if plan:
        rules.insert(0, plan_rule(plan, "versioned projection of Tool declarations and results to the 2026-07-28 legacy shapes"))
    sid = f"plan-13-legacy-projection-{version}" if plan else f"must-legacy-shapes-{version}"
    return scenario(sid, title, rules,
                    [list_step(version=version, checks=list_checks), call_step(None, version=version, checks=call_checks)],
                    binding=bind(), plan=plan,
                    note="Skipped when the server does not serve this version (initialize answers another version, or -32022).")


# ---- MUSTs a server can be seen breaking ------------------------------------------------------------------------


def must_scenarios() -> list[dict[str, Any]]:
    """Every MUST (and SHOULD) a server can be seen breaking, in the order the scorecard lists them."""
    return [*declaration_musts(), *apps_musts(), *fallback_musts(), *output_musts(), *older_version_rules(),
            *declaration_shoulds(), *result_shoulds()]


def declaration_musts() -> list[dict[str, Any]]:
    """What tools/list at 2026-12-01 declares: an `outputVariants` array on every tool (SHAPES_BY_VERSION,
    CLIENT_REJECTS_CONTEXT), no audience/format pair twice (NO_DUPLICATE_PAIR), an extension audience only when
    negotiated (NO_UNNEGOTIATED_LISTING, AUDIENCE_VALUES, NOT_ARBITRARY), core audiences only in the core
    combinations (COMBINATIONS, COMBINATIONS_TABLE)."""
    out = []
    out.append(scenario(
        "must-outputvariants-on-every-tool", "tools/list at 2026-12-01: every tool has outputVariants",
        [SHAPES_BY_VERSION, CLIENT_REJECTS_CONTEXT],
        [list_step("list", checks=[check("exists", "$.response.result.tools", "tools/list answers with a `tools` array"),
                                   check("every", "$.response.result.tools[*]", "every tool has an `outputVariants` array",
                                         checks=[check("type", "$.outputVariants", "`outputVariants` is an array", value="array")])]),
         list_step("list-ui", ui=True, checks=[check("every", "$.response.result.tools[*]", "every tool has an `outputVariants` array (ui "
                                                                                            "negotiated)",
                                                     checks=[check("type", "$.outputVariants", "`outputVariants` is an "
                                                                                               "array", value="array")])])],
        note="A server that omits outputVariants makes every conforming 2026-12-01 client reject its whole tools/list."))
    out.append(scenario(
        "must-no-duplicate-variant-pairs", "No tool declares an audience/format pair twice",
        [NO_DUPLICATE_PAIR],
        [list_step("list-ui", ui=True, checks=[check("every", "$.response.result.tools[*]", "each tool's variants are distinct pairs",
                                                     checks=[check("uniqueSelectors", "$.outputVariants[*]", "no audience/format pair "
                                                                                                             "twice")])])]))
    core_or_ui = [*CORE_AUDIENCES, UI]
    out.append(scenario(
        "must-no-unnegotiated-extension-audience", "outputVariants lists an extension audience only when it was negotiated",
        [NO_UNNEGOTIATED_LISTING, AUDIENCE_VALUES, NOT_ARBITRARY],
        [list_step("list", checks=[check("every", "$.response.result.tools[*]", "without extensions, every variant's audience is a core "
                                                                                "audience",
                                         checks=[check("oneOf", "$.outputVariants[*].audience", "audience is assistant, user or "
                                                                                                "programmatic",
                                                       values=list(CORE_AUDIENCES))])]),
         list_step("list-ui", ui=True, checks=[check("every", "$.response.result.tools[*]", "with the ui extension negotiated, every "
                                                                                            "audience is core or "
                                                                                            "io.modelcontextprotocol/ui",
                                                     checks=[check("oneOf", "$.outputVariants[*].audience", "audience is core or the "
                                                                                                            "negotiated extension",
                                                                   values=core_or_ui)])])]))
    out.append(scenario(
        "must-core-combinations-only", "Core audiences are declared only in the core combinations",
        [COMBINATIONS, COMBINATIONS_TABLE],
        [list_step("list-ui", ui=True, checks=[
            check("every", "$.response.result.tools[*]", "no tool declares programmatic/content, and core formats are content or "
                                                         "structured",
                  checks=[check("count", "$.outputVariants[?@.audience=='programmatic' && "
                                         "@.format=='content']", "no programmatic/content", value=0),
                          check("every", "$.outputVariants[?@.audience=='assistant' || @.audience=='user' || @.audience=='programmatic']",
                                "a core variant's format is content or structured",
                                checks=[check("oneOf", "$.format", "format is content or "
                                                                   "structured", values=["content", "structured"])],
                                vacuous=True, over="$.outputVariants")])])],
        level="MUST"))
    return out



def fallback_musts() -> list[dict[str, Any]]:
    """A call without requestedOutputs gets assistant/content and nothing else (FALLBACK, NO_UNREQUESTED), and
    that fallback is a usable model representation (USABLE)."""
    out = []
    out.append(scenario(
        "must-fallback-assistant-content", "Without requestedOutputs the server returns assistant/content",
        [FALLBACK, NO_UNREQUESTED],
        [call_step(None, checks=[is_result(), outputs_array(), *only(ASSISTANT_CONTENT), *output_shapes(), *no_legacy_fields()])],
        binding=bind(minCore=2),
        note="Uses a tool that declares more than one core variant, so that returning everything it can would show."))
    out.append(scenario(
        "must-assistant-content-usable", "The assistant/content fallback is a usable model representation",
        [USABLE],
        [call_step([ASSISTANT_CONTENT], checks=[
            is_result(),
            check("minLength", f"{OUTPUTS}[?@.audience=='assistant' && "
                               f"@.format=='content'].content", "at least one content block", value=1,
                  fix=EMPTY_CONTENT_FIX),
            combo("anyOf", "some block carries something: non-empty text, or a non-text block",
                  checks=[check("exists", f"{OUTPUTS}[?@.audience=='assistant' && "
                                          f"@.format=='content'].content[?@.type!='text']", "a non-text block"),
                          check("exists",
                                f"{OUTPUTS}[?@.audience=='assistant' && @.format=='content'].content[?@.type=='text' && @.text!='']",
                                "a non-empty text block")], fix=EMPTY_CONTENT_FIX)])],
        binding=bind(minCore=2),
        note="Only the emptiness of the fallback can be seen on the wire; whether its text is a mere placeholder needs a reader."))
    return out



def output_musts() -> list[dict[str, Any]]:
    """The outputs of a 2026-12-01 result: an `outputs` array without the legacy fields (OUTPUTS_ARRAY,
    SHAPES_BY_VERSION), one output per requested selector and only those (EXACTLY_ONE, MATCH_SELECTOR,
    NO_UNREQUESTED), each structured output valid against its own variant's schema (VALIDATE_EACH, CONFORM), and
    no structured output mirrored into content (NO_MIRROR, SDK_NO_MIRROR)."""
    out = []
    out.append(scenario(
        "must-result-shape-2026-12-01", "A 2026-12-01 result carries outputs, not the legacy fields",
        [OUTPUTS_ARRAY, SHAPES_BY_VERSION],
        [call_step([ASSISTANT_CONTENT], checks=[is_result(), outputs_array(), *no_legacy_fields(), *output_shapes()])],
        binding=bind()))
    out.append(scenario(
        "must-one-output-per-requested-selector", "Every declared core variant requested at once: one output each",
        [EXACTLY_ONE, MATCH_SELECTOR],
        [call_step("{{declaredCore}}", checks=[is_result(), outputs_array(), same_as_requested(), *output_shapes()])],
        binding=bind(minCore=2)))
    out.append(scenario(
        "must-no-unrequested-output", "One non-fallback variant requested: nothing else comes back",
        [NO_UNREQUESTED, MATCH_SELECTOR],
        [call_step(["{{other}}"], checks=[is_result(), outputs_array(), count_outputs(1), same_as_requested()])],
        binding=bind(minCore=2),
        note="{{other}} is the tool's first declared core variant other than assistant/content (programmatic/structured, "
             "assistant/structured, user/structured, user/content)."))
    out.append(scenario(
        "must-selector-match", "Outputs carry the audience and format of the selector they answer",
        [MATCH_SELECTOR, EXACTLY_ONE],
        [call_step([ASSISTANT_CONTENT, "{{other}}"], checks=[is_result(), outputs_array(), count_outputs(2), same_as_requested(),
                                                             *output_shapes()])],
        binding=bind(minCore=2)))
    out.append(scenario(
        "must-structured-outputs-valid", "Every declared variant requested at once: each structured output valid against its own schema",
        [VALIDATE_EACH, CONFORM],
        [list_step(ui=True), call_step("{{declared}}", ui=True, checks=[
            is_result(), outputs_array(), same_as_requested(),
            combo("forEach", "each structured output is valid against its own variant's schema",
                  var="audience", **{"in": "$.request.params.requestedOutputs[?@.format=='structured'].audience"},
                  checks=[check("validAgainst", f"{OUTPUTS}[?@.audience=='{{{{audience}}}}' && @.format=='structured'].structuredContent",
                                "valid against the variant's schema",
                                schemaPath=schema_path({"format": "structured", "audience": "{{audience}}"}), vacuous=True)])])],
        binding=bind(ui=True, minStructured=1),
        note="{{declared}} is every variant the tool lists when the ui extension is negotiated."))
    out.append(scenario(
        "must-no-mirror", "A structured output alone is not mirrored into a content output",
        [NO_MIRROR, SDK_NO_MIRROR, NO_UNREQUESTED],
        [call_step(["{{structured}}"], checks=[is_result(), outputs_array(),
                                              check("count", f"{OUTPUTS}[?@.format=='content']", "no content output", value=0),
                                              count_outputs(1), *no_legacy_fields()])],
        binding=bind(minStructured=1),
        note="{{structured}} is the tool's first declared structured core variant (assistant/structured, programmatic/structured, "
             "user/structured)."))
    return out



def older_version_rules() -> list[dict[str, Any]]:
    """What an older client sees: requestedOutputs at 2026-07-28 never yields `outputs` (OLD_CLIENT,
    LEGACY_CALL, NOT_A_SIGNAL), the legacy shapes at each handshake version (`legacy_scenario`: LEGACY_LIST,
    LEGACY_CALL, LEGACY_CONFORM, OLD_CLIENT, SHAPES_BY_VERSION), and a legacy outputSchema taken from no other
    audience (LEGACY_SCHEMA_SOURCE) but from assistant/structured (LEGACY_SCHEMA_SHOULD)."""
    out = []
    out.append(scenario(
        "must-requestedoutputs-at-2026-07-28-never-yields-outputs",
        "requestedOutputs sent at 2026-07-28 never turns the result into `outputs`",
        [OLD_CLIENT, LEGACY_CALL, NOT_A_SIGNAL],
        [call_step([ASSISTANT_CONTENT], version="2026-07-28", expect_success=False, checks=[
            check("absent", OUTPUTS, "no `outputs` in a 2026-07-28 result"),
            combo("anyOf", "the server refuses the field (any JSON-RPC error) or answers the legacy `content`",
                  checks=[check("exists", "$.response.error", "a JSON-RPC error"),
                          check("type", f"{R}.content", "a legacy `content` array", value="array")])])],
        binding=bind(),
        note="A client MUST NOT send requestedOutputs at 2026-07-28; the SEP leaves the server's answer open, but never `outputs`."))
    for version in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"):
        out.append(legacy_scenario(version))
    out.append(scenario(
        "must-legacy-outputschema-not-from-other-audiences", "The legacy outputSchema is never a user, programmatic or extension schema",
        [LEGACY_SCHEMA_SOURCE],
        [list_step("modern", ui=True), list_step("legacy", version="2026-07-28", checks=[
            combo("forEach", "each new tool's legacy outputSchema is assistant/structured's, or no other audience's",
                  var="t", vacuous=True, over="$.response.result.tools", **{"in": "$.response.result.tools[?@.outputSchema].name"},
                  **NEW_TOOLS_ONLY, **for_a_new_tool("forbids this for"),
                  checks=[combo("anyOf", "outputSchema is assistant/structured's schema, or equals no user/programmatic/extension schema",
                                checks=[check("equalsOther", "$.response.result.tools[?@.name=='{{t}}'].outputSchema",
                                              "equals assistant/structured's schema",
                                              otherPath=f"{MODERN_VARIANTS}{IS_ASSISTANT_STRUCTURED}.schema"),
                                        check("notInOther", "$.response.result.tools[?@.name=='{{t}}'].outputSchema",
                                              "equals no non-assistant variant's schema",
                                              otherPath=f"{MODERN_VARIANTS}[?@.audience!='assistant'].schema")])])])]))
    out.append(scenario(
        "should-legacy-outputschema-from-assistant-structured",
        "A tool with assistant/structured exposes that schema as its legacy outputSchema",
        [LEGACY_SCHEMA_SHOULD],
        [list_step("modern", ui=True), list_step("legacy", version="2026-07-28", checks=[
            combo("forEach", "for each new tool with a legacy outputSchema and an assistant/structured variant, the two schemas are "
                                     "equal",
                  var="t", vacuous=True, over="$.response.result.tools", **{"in": "$.response.result.tools[?@.outputSchema].name"},
                  **NEW_TOOLS_ONLY, **for_a_new_tool("asks this of"),
                  checks=[combo("anyOf", "outputSchema is assistant/structured's schema (or the tool has no assistant/structured)",
                                checks=[check("absent",
                                              f"{MODERN_VARIANTS}{IS_ASSISTANT_STRUCTURED}",
                                              "no assistant/structured variant"),
                                        check("equalsOther", "$.response.result.tools[?@.name=='{{t}}'].outputSchema",
                                              "equals assistant/structured's schema",
                                              otherPath=f"{MODERN_VARIANTS}{IS_ASSISTANT_STRUCTURED}.schema")])])])]))
    return out



def declaration_shoulds() -> list[dict[str, Any]]:
    """SHOULDs of the 2026-12-01 listing: no legacy outputSchema beside `outputVariants` (NO_OUTPUTSCHEMA_NEW),
    a schema on every structured variant (STRUCTURED_SCHEMA)."""
    out = []
    out.append(scenario(
        "should-no-outputschema-at-2026-12-01", "tools/list at 2026-12-01 carries no legacy outputSchema",
        [NO_OUTPUTSCHEMA_NEW],
        [list_step("list-ui", ui=True, checks=[check("every", "$.response.result.tools[*]",
                                                     "no tool carries `outputSchema` beside `outputVariants`",
                                                     checks=[check("absent", "$.outputSchema", "no `outputSchema`")])])]))
    out.append(scenario(
        "should-structured-variants-declare-schema", "Every structured variant declares the JSON Schema of its payload",
        [STRUCTURED_SCHEMA],
        [list_step("list-ui", ui=True, checks=[
            check("every", "$.response.result.tools[*].outputVariants[?@.format=='structured']",
                  "each structured variant carries a `schema` object",
                  checks=[check("type", "$.schema", "a `schema` object", value="object")], vacuous=True,
                  over="$.response.result.tools[*].outputVariants")])],
        note="The SEP allows omitting it when the payload is intentionally unconstrained or an extension defines the contract: a SHOULD."))
    return out



def result_shoulds() -> list[dict[str, Any]]:
    """SHOULDs of results: the legacy content at 2026-07-28 is the assistant/content output (LEGACY_CONTENT), and
    a failing call answers each requested selector with an error output (ERROR_OUTPUTS, ERROR_NOT_EMPTY,
    ERROR_SCHEMA)."""
    out = []
    out.append(scenario(
        "should-legacy-content-from-assistant-content", "The legacy content at 2026-07-28 is the assistant/content output",
        [LEGACY_CONTENT],
        [call_step([ASSISTANT_CONTENT], step_id="modern", checks=[is_result(), outputs_array()]),
         call_step(None, step_id="legacy", version="2026-07-28", checks=[
             is_result(),
             check("equalsOther", f"{R}.content", "the legacy `content` equals the assistant/content output of the same call at 2026-12-01",
                   otherPath="$.steps.modern.response.result.outputs[?@.audience=='assistant' && @.format=='content'].content",
                   fix="SEP-3279 asks this of a new tool; if {{tool}} already served older clients before it declared variants (a "
                       "migrated tool keeping the content it always sent them), pass --established {{tool}}")])],
        binding=bind(oneTool=True, newTool=True),
        note="The same call twice, at 2026-12-01 and at 2026-07-28; it needs a tool whose text does not change between two calls, "
             "so it runs with one tool (the first named with --call that fits), not each. Skipped when the server does not serve "
             "2026-07-28. Not with a tool named with --established: it keeps the content it always sent older clients "
             "(SEP-3279: a tool that already served them SHOULD keep its established behavior), where a new tool's is made "
             "from assistant/content."))
    out.append(scenario(
        "should-error-outputs-per-selector", "A failing call answers each requested selector with an error output",
        [ERROR_OUTPUTS, ERROR_NOT_EMPTY, ERROR_SCHEMA],
        [{**call_step("{{declaredCore}}", expect_success=False, checks=[
            check("minLength", OUTPUTS, "an isError result does not carry an empty outputs array", value=1),
            same_as_requested(), *output_shapes()]),
          "skipUnless": [check("equals", f"{R}.isError",
                               "the error call fails as a tool error (isError: true); configure one with --error-call TOOL=JSON",
                               value=True)]}],
        binding=bind(errorCall=True),
        note="Needs a call that fails inside the tool; the default for this server is execute_code with code 1/0."))
    return out

def apps_musts() -> list[dict[str, Any]]:
    """A server that lists a ui variant or names a ui:// view (`_meta.ui.resourceUri`) serves the Apps extension:
    server/discover advertises io.modelcontextprotocol/ui (NO_UNNEGOTIATED_LISTING, EXTENSION_ONLY_NEGOTIATED: the
    extension audience needs both sides to advertise it), and every view a listed tool names can be read. Not
    applicable to a server none of whose tools mentions the extension."""
    discover = {"id": "discover", "version": OUTPUTS_VERSION, "extensions": UI_EXTENSIONS, "method": "server/discover", "params": {},
                "checks": [is_result(),
                           check("exists", f"$.response.result.capabilities.extensions['{UI}']",
                                 f"server/discover advertises {UI} in capabilities.extensions (tools that list a ui variant or a "
                                 "ui:// view: {{tools}})")]}
    read = {"id": "read", "version": OUTPUTS_VERSION, "extensions": UI_EXTENSIONS, "method": "resources/read",
            "params": {"uri": "{{uri}}"},
            "checks": [check("exists", R, "the view {{uri}} (named in _meta.ui.resourceUri by {{tools}}) can be read: resources/read "
                                          "answers a result, not an error"),
                       check("minLength", f"{R}.contents", "resources/read returns the view's contents", value=1)]}
    return [
        scenario("must-apps-extension-advertised", "A server that lists a ui variant or a ui:// view advertises the Apps extension",
                 [NO_UNNEGOTIATED_LISTING, EXTENSION_ONLY_NEGOTIATED], [discover], binding={"apps": "advertised"},
                 note="Applies when a tool lists an io.modelcontextprotocol/ui variant or _meta.ui.resourceUri in either listing."),
        scenario("must-ui-view-readable", "Every ui:// view a listed tool names can be read",
                 [NO_UNNEGOTIATED_LISTING], [read], binding={"apps": "views"}, level="MUST",
                 note="One run per distinct view (_meta.ui.resourceUri, or the legacy _meta['ui/resourceUri']). A view that cannot be "
                      "read leaves every Apps host with a ui variant it cannot render."),
    ]


def server_vectors() -> list[dict[str, Any]]:
    """Every server scenario, in the order the scorecard lists them."""
    return plan_scenarios() + must_scenarios()
