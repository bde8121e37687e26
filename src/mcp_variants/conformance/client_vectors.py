"""The host-side scenarios: the testing plan's items about clients and hosts, and the
client MUSTs, run against the reference client (mcp_variants.client) and a scripted server.

A client vector is language-neutral too. It gives

* `client`: the protocol version, the extensions the client advertises, and which sinks
  (consumers) the host has: `model`, `user`, `program`, `view`;
* `server`: the scripted server, one canned JSON-RPC answer (`result` or `error`) per
  method (`initialize`, `server/discover`, `tools/list`, `tools/call`);
* `act`: what the host does: `{"listTools": true}`, or a call of `tool` with `arguments`
  either in an execution `mode` (conversational, code, structured-model, user-display,
  apps) or with an explicit `requestedOutputs` selection;
* `checks` over the host record:

      {"sent": [every JSON-RPC message the client wrote],
       "outcome": "ok" | "refused" (the client declined to send) | "invalid-response"
                  (it rejected the server's answer) | "server-error" | "client-error",
       "problems": [what the client said],
       "delivered": {"model": [payloads], "user": [...], "program": [...], "view": [...]},
       "dropped": [what the router refused to deliver]}

  A payload is an output's `content` array or its `structuredContent` value.

Another SDK replays these by scripting its own client the same way and building the
same record; this module is that replayer for the reference client.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Mapping
from typing import Any

from .checks import CheckError, Verdict, evaluate
from .constants import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    LEGACY_VERSIONS,
    OUTPUTS_VERSION,
    PROGRAMMATIC_STRUCTURED,
    UI,
    UI_EXTENSIONS,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
)
from .rules import (
    ACCEPTS_LEGACY,
    APPS_ROUTING,
    EVERY_TOOL_AC,
    IGNORE_ANNOTATIONS,
    NO_AUDIENCE_FALLBACK,
    NO_DUPLICATE_SELECTOR,
    NO_ERROR_SUBSTITUTION,
    NO_META,
    NO_REQUESTED_OLD,
    NO_REQUESTED_OLD2,
    NO_UNNEGOTIATED_REQUEST,
    NOT_A_SIGNAL,
    ONLY_ADVERTISED,
    PROGRAMMATIC_NOT_IN_MODEL,
    REJECT_TOOL_WITHOUT_VARIANTS,
    ROUTES_BY_AUDIENCE,
    USER_NOT_IN_MODEL,
    VALIDATES_REQUESTED_SCHEMA,
    plan_rule,
)
from .scenarios import check

ALL_VERSIONS = [*LEGACY_VERSIONS, OUTPUTS_VERSION]
SINKS = ("model", "user", "program", "view")
TOOL = "search_customers"

META_MARKER = "META-ONLY-5c1e"
VIEW_MARKER = "VIEW-ONLY-3b7d"
MODEL_MARKER = "MODEL-ONLY-8a2f"
USER_MARKER = "USER-ONLY-4d9e"
PROGRAM_MARKER = "PROGRAM-ONLY-1f6a"
UNREQUESTED_MARKER = "UNREQUESTED-91c2"

SCHEMAS: dict[str, dict[str, Any]] = {
    "assistant": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
    "programmatic": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}},
                     "required": ["items"], "additionalProperties": False},
    "user": {"type": "array", "items": {"type": "object"}},
    UI: {"type": "object", "properties": {"rows": {"type": "array"}}, "required": ["rows"]},
}


def variants(*selectors: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for s in selectors:
        v: dict[str, Any] = dict(s)
        if s["format"] == "structured":
            v["schema"] = SCHEMAS[s["audience"]]
        out.append(v)
    return out


FULL = (ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, USER_CONTENT, USER_STRUCTURED, PROGRAMMATIC_STRUCTURED)


def tool_entry(*selectors: dict[str, str], name: str = TOOL) -> dict[str, Any]:
    return {"name": name, "description": "Search customer records.", "inputSchema": {"type": "object"},
            "outputVariants": variants(*selectors)}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def out_content(selector: dict[str, str], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {**selector, "content": blocks}


def out_structured(selector: dict[str, str], value: Any) -> dict[str, Any]:
    return {**selector, "structuredContent": value}


def server_script(version: str, tools: list[dict[str, Any]], call: dict[str, Any], *, server_extensions: bool = True) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"tools": {}}
    if server_extensions:
        capabilities["extensions"] = UI_EXTENSIONS
    script: dict[str, Any] = {}
    if version in LEGACY_VERSIONS[:4]:
        script["initialize"] = {"result": {"protocolVersion": version, "capabilities": capabilities,
                                           "serverInfo": {"name": "scripted", "version": "1"}}}
    else:
        script["server/discover"] = {"result": {"supportedVersions": ALL_VERSIONS, "capabilities": capabilities, "resultType": "complete"}}
    script["tools/list"] = {"result": {"tools": tools}}
    script["tools/call"] = call
    return script


def client_vector(sid: str, title: str, rules: list[dict[str, str]], *, version: str = OUTPUTS_VERSION, ui: bool = False,
                  sinks: tuple[str, ...] = SINKS, server: dict[str, Any], act: dict[str, Any], checks: list[dict[str, Any]],
                  plan: int | None = None, note: str | None = None) -> dict[str, Any]:
    levels = [r["level"] for r in rules]
    vector: dict[str, Any] = {"id": sid, "title": title, "kind": "client",
                              "level": "MUST" if "MUST" in levels else "PLAN" if "PLAN" in levels else "SHOULD",
                              "rules": rules}
    if plan is not None:
        vector["plan"] = plan
    if note:
        vector["note"] = note
    vector.update({"client": {"version": version, "extensions": UI_EXTENSIONS if ui else {}, "sinks": list(sinks)},
                   "server": server, "act": act, "checks": checks})
    return vector


def outcome(value: str, says: str) -> dict[str, Any]:
    return check("equals", "$.outcome", says, value=value)


def nowhere(marker: str, says: str) -> dict[str, Any]:
    return check("notContainsText", "$.delivered", says, value=marker)


def sink_has(sink: str, marker: str, says: str) -> dict[str, Any]:
    return check("containsText", f"$.delivered.{sink}", says, value=marker)


def sink_lacks(sink: str, marker: str, says: str) -> dict[str, Any]:
    return check("notContainsText", f"$.delivered.{sink}", says, value=marker)


NO_CALL_SENT = check("count", "$.sent[?@.method=='tools/call']", "no tools/call was sent", value=0)


def client_vectors() -> list[dict[str, Any]]:
    """Every client scenario: the testing plan's host items, then the client MUSTs and SHOULDs, in the order the
    scorecard lists them."""
    return [*rejects_tool_without_assistant_content(), *no_requested_outputs_before_2026_12_01(),
            *rejects_tool_without_output_variants(), *apps_routing(), *routing_musts(), *selection_musts(), *validation_shoulds()]


def rejects_tool_without_assistant_content() -> list[dict[str, Any]]:
    """Plan item 7 (EVERY_TOOL_AC): a listing with a tool that omits assistant/content is rejected, and nothing
    is called."""
    return [
        client_vector(
            "host-plan-07-rejects-tool-without-assistant-content", "The client rejects a tool declaration that omits assistant/content",
            [plan_rule(7, "rejection of any tool declaration that omits assistant/content"),
             EVERY_TOOL_AC],
            server=server_script(OUTPUTS_VERSION, [tool_entry(PROGRAMMATIC_STRUCTURED)], {"result": {"outputs": []}}),
            act={"listTools": True},
            checks=[outcome("invalid-response", "the listing is rejected as invalid"), NO_CALL_SENT], plan=7),
    ]


def no_requested_outputs_before_2026_12_01() -> list[dict[str, Any]]:
    """Plan item 12 (NO_REQUESTED_OLD, NO_REQUESTED_OLD2, NOT_A_SIGNAL, ACCEPTS_LEGACY): at 2026-07-28 and at
    2025-11-25 no request carries requestedOutputs, whatever the listing says."""
    return [
        client_vector(
            "host-plan-12-no-requestedoutputs-at-2026-07-28", "Code mode at 2026-07-28 sends no requestedOutputs",
            [plan_rule(12, "omission of requestedOutputs when calling under protocol version 2026-07-28 or earlier"),
             NO_REQUESTED_OLD, NO_REQUESTED_OLD2, NOT_A_SIGNAL, ACCEPTS_LEGACY],
            version="2026-07-28",
            server=server_script("2026-07-28", [{**tool_entry(*FULL), "outputSchema": SCHEMAS["assistant"]}],
                                 {"result": {"resultType": "complete", "content": [text(MODEL_MARKER)],
                                             "structuredContent": {"count": 1}}}),
            act={"tool": TOOL, "arguments": {"query": "Globex"}, "mode": "code"},
            checks=[check("count", "$.sent[?@.method=='tools/call']", "the call is sent", value=1),
                    check("absent", "$.sent[*].params.requestedOutputs", "no message carries requestedOutputs"),
                    check("oneOf", "$.sent[*].params._meta['io.modelcontextprotocol/protocolVersion']", "every request is at 2026-07-28",
                          values=["2026-07-28"]),
                    outcome("ok", "the legacy result is accepted")],
            plan=12, note="The scripted legacy listing also carries outputVariants: it is no negotiation signal."),
        client_vector(
            "host-plan-12-no-requestedoutputs-at-2025-11-25", "An Apps host at 2025-11-25 (initialize) sends no requestedOutputs",
            [plan_rule(12, "omission of requestedOutputs when calling under protocol version 2026-07-28 or earlier"),
             NO_REQUESTED_OLD, NO_REQUESTED_OLD2],
            version="2025-11-25", ui=True,
            server=server_script("2025-11-25", [tool_entry(*FULL, UI_STRUCTURED)],
                                 {"result": {"content": [text(MODEL_MARKER)]}}),
            act={"tool": TOOL, "arguments": {}, "mode": "apps"},
            checks=[check("count", "$.sent[?@.method=='initialize']", "the session opens with initialize", value=1),
                    check("count", "$.sent[?@.method=='tools/call']", "the call is sent", value=1),
                    check("absent", "$.sent[*].params.requestedOutputs", "no message carries requestedOutputs")],
            plan=12),
    ]


def rejects_tool_without_output_variants() -> list[dict[str, Any]]:
    """Plan item 14 (REJECT_TOOL_WITHOUT_VARIANTS): at 2026-12-01 a Tool without outputVariants makes tools/list
    invalid, with no silent switch to an older version."""
    return [
        client_vector(
            "host-plan-14-rejects-tool-without-outputvariants", "A Tool without outputVariants at 2026-12-01 makes tools/list invalid",
            [plan_rule(14, "rejection of a Tool without outputVariants under protocol version 2026-12-01"), REJECT_TOOL_WITHOUT_VARIANTS],
            server=server_script(OUTPUTS_VERSION, [{"name": TOOL, "inputSchema": {"type": "object"}, "outputSchema": SCHEMAS["assistant"]}],
                                 {"result": {"content": [text(MODEL_MARKER)]}}),
            act={"tool": TOOL, "arguments": {}, "mode": "conversational"},
            checks=[outcome("invalid-response", "the response is treated as invalid"), NO_CALL_SENT,
                    check("oneOf", "$.sent[*].params._meta['io.modelcontextprotocol/protocolVersion']",
                          "no request at an older version follows (no silent switch to legacy semantics)", values=[OUTPUTS_VERSION]),
                    check("count", "$.sent[?@.method=='initialize']", "no legacy handshake follows", value=0),
                    nowhere(MODEL_MARKER, "nothing is delivered")],
            plan=14),
    ]


def apps_routing() -> list[dict[str, Any]]:
    """Plan item 15 (NO_META, APPS_ROUTING, ROUTES_BY_AUDIENCE): the model gets only the assistant output,
    the View only the ui output, nobody the _meta nor an unrequested output."""
    apps_result = {"result": {"resultType": "complete", "outputs": [
        out_content(ASSISTANT_CONTENT, [text(f"{MODEL_MARKER}: 37 Globex records, shown in the table.")]),
        out_structured(UI_STRUCTURED, {"rows": [{"name": "Globex Retail", "note": VIEW_MARKER}]})],
        "_meta": {UI: {"datasetVersion": META_MARKER}, "com.example/trace": META_MARKER}}}
    return [
        client_vector(
            "host-plan-15-apps-routing-and-metadata", "An Apps call: the model gets only the assistant output, the View only the ui "
                                                      "output, nobody the _meta",
            [plan_rule(15, "confirmation that unrequested outputs and metadata do not reach the model or App View"), NO_META,
             APPS_ROUTING],
            ui=True,
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL, UI_STRUCTURED)], apps_result),
            act={"tool": TOOL, "arguments": {"query": "Globex"}, "mode": "apps"},
            checks=[outcome("ok", "the result is accepted"),
                    check("length", "$.delivered.model", "the model receives one payload", value=1),
                    sink_has("model", MODEL_MARKER, "the model receives the assistant output"),
                    sink_lacks("model", VIEW_MARKER, "the model does not receive the View data"),
                    check("length", "$.delivered.view", "the View receives one payload", value=1),
                    sink_has("view", VIEW_MARKER, "the View receives the ui output"),
                    sink_lacks("view", MODEL_MARKER, "the View does not receive the assistant output"),
                    nowhere(META_MARKER, "result _meta reaches no sink")],
            plan=15),
        client_vector(
            "host-plan-15-unrequested-output-not-routed", "An unrequested output (a mirror) reaches neither the model nor the View",
            [plan_rule(15, "confirmation that unrequested outputs and metadata do not reach the model or App View"),
             ROUTES_BY_AUDIENCE],
            ui=True,
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL, UI_STRUCTURED)], {"result": {"resultType": "complete", "outputs": [
                out_structured(PROGRAMMATIC_STRUCTURED, {"items": ["cust_1042"]}),
                out_content(ASSISTANT_CONTENT, [text(f"{UNREQUESTED_MARKER} mirror of the programmatic data")]),
                out_structured(UI_STRUCTURED, {"rows": [UNREQUESTED_MARKER]})]}}),
            act={"tool": TOOL, "arguments": {}, "mode": "code"},
            checks=[check("equals", "$.sent[?@.method=='tools/call'].params.requestedOutputs", "code mode asks for programmatic/structured "
                                                                                               "only",
                          value=[PROGRAMMATIC_STRUCTURED]),
                    sink_lacks("model", UNREQUESTED_MARKER, "the unrequested assistant output does not reach the model"),
                    sink_lacks("view", UNREQUESTED_MARKER, "the unrequested ui output does not reach the View"),
                    nowhere(UNREQUESTED_MARKER, "no unrequested output reaches any sink")],
            plan=15),
    ]


def routing_musts() -> list[dict[str, Any]]:
    """Where each output goes: user and programmatic outputs never to the model (USER_NOT_IN_MODEL,
    PROGRAMMATIC_NOT_IN_MODEL), block annotations re-route nothing (IGNORE_ANNOTATIONS), no other audience stands
    in for a missing sink (NO_AUDIENCE_FALLBACK), result _meta reaches no one (NO_META), an error output is not
    used for another audience (NO_ERROR_SUBSTITUTION)."""
    return [
        client_vector(
            "host-must-user-and-programmatic-stay-out-of-model", "user and programmatic outputs go to their sinks, never to the model",
            [USER_NOT_IN_MODEL, PROGRAMMATIC_NOT_IN_MODEL],
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL)], {"result": {"resultType": "complete", "outputs": [
                out_structured(USER_STRUCTURED, [{"name": USER_MARKER}]),
                out_structured(PROGRAMMATIC_STRUCTURED, {"items": [PROGRAM_MARKER]})]}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [USER_STRUCTURED, PROGRAMMATIC_STRUCTURED]},
            checks=[outcome("ok", "the result is accepted"),
                    check("count", "$.delivered.model[*]", "nothing reaches the model", value=0),
                    sink_has("user", USER_MARKER, "the user display gets user/structured"),
                    sink_lacks("user", PROGRAM_MARKER, "the user display does not get the programmatic output"),
                    sink_has("program", PROGRAM_MARKER, "the program gets programmatic/structured"),
                    sink_lacks("program", USER_MARKER, "the program does not get the user output")]),
        client_vector(
            "host-must-ignore-block-annotations", "Block annotations never re-route an output",
            [IGNORE_ANNOTATIONS],
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL)], {"result": {"resultType": "complete", "outputs": [
                out_content(ASSISTANT_CONTENT, [text(MODEL_MARKER, annotations={"audience": ["user"]})]),
                out_content(USER_CONTENT, [text(USER_MARKER, annotations={"audience": ["assistant"]})])]}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [ASSISTANT_CONTENT, USER_CONTENT]},
            checks=[sink_has("model", MODEL_MARKER, "the assistant output reaches the model despite its blocks' user annotation"),
                    sink_lacks("model", USER_MARKER, "the user output stays out of the model despite its blocks' assistant annotation"),
                    sink_has("user", USER_MARKER, "the user output reaches the user display")]),
        client_vector(
            "host-must-no-audience-fallback", "A host without a user display does not give a user output to the model",
            [NO_AUDIENCE_FALLBACK],
            sinks=("model", "program"),
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL)], {"result": {"resultType": "complete", "outputs": [
                out_content(USER_CONTENT, [text(USER_MARKER)])]}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [USER_CONTENT]},
            checks=[sink_lacks("model", USER_MARKER, "the user/content output is not handed to the model"),
                    nowhere(USER_MARKER, "it reaches no other sink either")]),
        client_vector(
            "host-must-not-forward-result-meta", "Result _meta reaches no consumer",
            [NO_META],
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL)], {"result": {"resultType": "complete", "outputs": [
                out_structured(PROGRAMMATIC_STRUCTURED, {"items": ["a"]}), out_content(ASSISTANT_CONTENT, [text("done")])],
                "_meta": {"com.example/secret": META_MARKER}}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED]},
            checks=[outcome("ok", "the result is accepted"), nowhere(META_MARKER, "no sink receives anything of _meta")]),
        client_vector(
            "host-must-not-substitute-error-outputs", "An error output for one audience is not used for another",
            [NO_ERROR_SUBSTITUTION],
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL)], {"result": {"resultType": "complete", "isError": True, "outputs": [
                out_content(ASSISTANT_CONTENT, [text(f"{UNREQUESTED_MARKER}: the query failed")])]}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [PROGRAMMATIC_STRUCTURED]},
            checks=[sink_lacks("program", UNREQUESTED_MARKER, "the program does not get the assistant error output"),
                    nowhere(UNREQUESTED_MARKER, "the unrequested error output reaches no sink")]),
    ]


def selection_musts() -> list[dict[str, Any]]:
    """What the client asks for: only advertised variants (ONLY_ADVERTISED), no extension the server did not
    negotiate (NO_UNNEGOTIATED_REQUEST), no selector twice (NO_DUPLICATE_SELECTOR)."""
    return [
        client_vector(
            "host-must-select-only-advertised", "The client does not request a variant the tool does not advertise",
            [ONLY_ADVERTISED],
            server=server_script(OUTPUTS_VERSION, [tool_entry(ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED)], {"result": {"outputs": []}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [USER_STRUCTURED]},
            checks=[NO_CALL_SENT, outcome("refused", "the client refuses to send the selection")]),
        client_vector(
            "host-must-not-request-unnegotiated-extension", "An Apps host does not request the ui variant when the server did not "
                                                            "advertise the extension",
            [NO_UNNEGOTIATED_REQUEST],
            ui=True,
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL, UI_STRUCTURED)], {"result": {"resultType": "complete", "outputs": [
                out_content(ASSISTANT_CONTENT, [text(MODEL_MARKER)])]}}, server_extensions=False),
            act={"tool": TOOL, "arguments": {}, "mode": "apps"},
            checks=[check("count", f"$.sent[*].params.requestedOutputs[?@.audience=='{UI}']", "no request names the ui "
                                                                                              "audience", value=0)],
            note="The scripted listing offers the ui variant although server/discover does not advertise the extension: only "
                 "the client's negotiation rule can keep it from asking."),
        client_vector(
            "host-must-not-send-duplicate-selectors", "The client never sends the same selector twice",
            [NO_DUPLICATE_SELECTOR],
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL)], {"result": {"outputs": []}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [PROGRAMMATIC_STRUCTURED, PROGRAMMATIC_STRUCTURED]},
            checks=[check("every", "$.sent[?@.method=='tools/call']", "no tools/call carries a duplicate selector",
                          checks=[check("uniqueSelectors", "$.params.requestedOutputs[*]", "each selector once")], vacuous=True,
                          over="$.sent")]),
    ]


def validation_shoulds() -> list[dict[str, Any]]:
    """A structured output is checked against the requested variant's schema only (VALIDATES_REQUESTED_SCHEMA)."""
    return [
        client_vector(
            "host-should-validate-against-requested-schema", "A structured output is checked against the requested variant's schema only",
            [VALIDATES_REQUESTED_SCHEMA],
            ui=True,
            server=server_script(OUTPUTS_VERSION, [tool_entry(*FULL, UI_STRUCTURED)], {"result": {"resultType": "complete", "outputs": [
                out_structured(PROGRAMMATIC_STRUCTURED, {"rows": [PROGRAM_MARKER]})]}}),
            act={"tool": TOOL, "arguments": {}, "requestedOutputs": [PROGRAMMATIC_STRUCTURED]},
            checks=[outcome("invalid-response", "the output breaks the programmatic schema (it fits only the ui one): rejected"),
                    nowhere(PROGRAM_MARKER, "nothing of it is delivered")]),
    ]


# ---- replay against the reference client ----------------------------------------------------------------------


class ScriptedTransport:
    """The scripted server of a client vector, as a reference-client Transport."""

    def __init__(self, script: Mapping[str, Any]) -> None:
        self.script = script
        self.sent: list[dict[str, Any]] = []

    def request(self, body: bytes, exchange: Any, timeout: float) -> dict[str, Any]:
        message = json.loads(body)
        self.sent.append(message)
        answer = self.script.get(message.get("method"))
        if answer is None:
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32601, "message": "Method not found"}}
        return {"jsonrpc": "2.0", "id": message.get("id"), **json.loads(json.dumps(answer))}

    def notify(self, body: bytes, exchange: Any) -> None:
        self.sent.append(json.loads(body))

    def close(self) -> None:
        pass


def reference_client_available() -> str | None:
    """None when mcp_variants.client has what the host scenarios drive; else why not."""
    try:
        from ..client import errors, minimal_host, modes, router, session  # noqa: F401
    except ImportError as exc:
        return f"pending: the reference client (mcp_variants.client session/router) is not importable: {exc}"
    return None


def replay(vector: Mapping[str, Any]) -> dict[str, Any]:
    """Run one client vector against the reference client; the host record."""
    from ..client.errors import ClientError, InvalidServerResponse, SelectionError, ServerError
    from ..client.minimal_host import Host
    from ..client.modes import Mode
    from ..client.router import HostRouter
    from ..client.session import ClientSession
    from ..protocol.types import Selector

    client = vector["client"]
    transport = ScriptedTransport(vector["server"])
    delivered: dict[str, list[Any]] = {name: [] for name in SINKS}
    sinks = {name: (lambda d, name=name: delivered[name].append(d.payload)) for name in client.get("sinks", SINKS)}
    router = HostRouter(**{name: sinks.get(name) for name in SINKS})
    session = ClientSession(transport, client["version"], extensions=client.get("extensions") or None)
    record: dict[str, Any] = {"sent": transport.sent, "outcome": "ok", "problems": [], "delivered": delivered, "dropped": []}
    act = vector["act"]
    try:
        if act.get("listTools"):
            session.list_tools()
        elif "mode" in act:
            call = Host(session, router).call(act["tool"], act.get("arguments") or {}, Mode(act["mode"]))
            record["dropped"] = list(call.report.dropped)
            if call.selection.fallback:
                record["problems"].append(call.selection.fallback)
        else:
            selectors = [Selector(s["audience"], s["format"]) for s in act["requestedOutputs"]]
            result = session.call(act["tool"], act.get("arguments") or {}, selectors)
            record["dropped"] = list(router.route(result).dropped)
    except SelectionError as exc:
        record.update(outcome="refused", problems=[str(exc)])
    except InvalidServerResponse as exc:
        record.update(outcome="invalid-response", problems=list(exc.problems))
    except ServerError as exc:
        record.update(outcome="server-error", problems=[str(exc)])
    except ClientError as exc:
        record.update(outcome="client-error", problems=[str(exc)])
    return record


def run_client_vector(vector: Mapping[str, Any]) -> dict[str, Any]:
    """A scorecard entry for one client vector."""
    started = time.monotonic()
    entry: dict[str, Any] = {"status": "pass", "reason": ""}
    pending = reference_client_available()
    if pending:
        entry.update(status="skip", reason=pending)
    else:
        try:
            record = replay(vector)
            verdicts = [evaluate(c, record) for c in vector["checks"]]
        except CheckError as exc:
            entry.update(status="fail", reason=f"the vector cannot be evaluated: {exc}")
            verdicts, record = [], {}
        except Exception as exc:  # noqa: BLE001 -- a crashing client is a failure to report, with its traceback
            entry.update(status="fail", reason=f"the reference client raised {type(exc).__name__}: {exc}")
            verdicts, record = [], {"traceback": traceback.format_exc(limit=6)}
        failed = [v for v in verdicts if not v.ok]
        if failed:
            entry.update(status="fail", reason=_reason(failed))
        entry["evidence"] = {"record": record, "checks": [v.to_json() for v in verdicts]}
    entry["durationMs"] = round((time.monotonic() - started) * 1000, 1)
    return entry


def _reason(failed: list[Verdict]) -> str:
    first = failed[0]
    more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
    return f"{first.says}: {first.detail}{more}"


__all__ = ["client_vectors", "reference_client_available", "replay", "run_client_vector"]
