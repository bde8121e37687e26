"""The official MCP conformance suite's "everything" server, on the SEP-3279 server API.

@modelcontextprotocol/conformance tests a server through fixtures it names: tools (test_simple_text, ...),
prompts (test_simple_prompt, ...) and resources (test://static-text, ...). This server has every one of them, so
the suite scores each scenario against this stack (the SDK's MCPServer, mcp_variants.sdk's projection and its
2026-12-01 bridge) instead of excusing it. The tasks extension's fixtures (SEP-2663: greet, slow_compute,
failing_job, protocol_error_job) run through `Tasks`, the server API's task machinery; those that ask for input
mid-task (confirm_delete, multi_input, test_tool_with_task) are not here. SEP-3279's own fixtures,
test_variants_all (every core variant) and test_variants_error (a tool error), serve the SEP's scenarios in the
suite's API (conformance-ts/).

- Every tool is a `Variants` tool: `assistant/content` is what the suite reads (and what any client before
  2026-12-01 gets as `content`); where a tool has data worth a program's while, a `programmatic/structured`
  variant carries it with its own schema.
- Prompts, resources, completions, logging, progress, sampling and elicitation are MCPServer's own; the
  handshake-era methods MCPServer does not serve (logging/setLevel, resources/subscribe) go on its low-level
  Server, as the SDK advises.
- At 2026-07-28 a server may not send requests mid-call: the test_input_required_result_* fixtures ask through
  `InputRequiredResult` (SEP-2322) instead, and MCPServer seals their `requestState`.

    python examples/everything.py                     # stdio
    python examples/everything.py --http --port 3000  # streamable HTTP at http://127.0.0.1:3000/mcp

tests/outside/test_official_conformance.py runs the suite against it (tests/outside/conformance-baseline-everything.yml
lists what still fails, and why).
"""

import asyncio
import base64
import json
import warnings
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer, Resolve, Sample, UserMessage
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    AudioContent,
    ClientCapabilities,
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    EmbeddedResource,
    ImageContent,
    InputRequest,
    InputRequiredResult,
    ListRootsRequest,
    ListRootsResult,
    MissingRequiredClientCapabilityErrorData,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, cli, variant
from mcp_variants.sdk.lowlevel import lowlevel_server
from mcp_variants.sdk.tasks import Tasks

# The fixtures exercise the handshake-era features 2026-07-28 deprecated (logging, sampling, roots) on purpose.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="  # 1x1, red
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="  # a minimal WAV file

variants = Variants()


# ---- structured outputs: one schema per variant ------------------------------------------------


class Text(BaseModel):
    text: str


class Progress(BaseModel):
    reported: list[float]
    total: float


class LogLines(BaseModel):
    level: str
    messages: list[str]


class Sampled(BaseModel):
    model: str
    text: str
    stop_reason: str | None = None


class Elicited(BaseModel):
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] = Field(default_factory=dict)


def said(label: str) -> Callable[[Elicited], str]:
    """`project` for an `Elicited` value: the sentence the suite reads in assistant/content."""
    return lambda e: f"{label}: action={e.action}, content={json.dumps(e.content)}"


# ---- tools: content of every kind --------------------------------------------------------------

# Tools that change nothing and need no arguments say so: `mcp-variants check` calls those unasked.
READ_ONLY = {"readOnlyHint": True}


@variants.tool("assistant/content", variant("programmatic/structured", Text, project=lambda t: Text(text=t)), annotations=READ_ONLY)
def test_simple_text() -> str:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


@variants.tool("assistant/content", "user/content", annotations=READ_ONLY)  # the same image for the model and the user
def test_image_content() -> ImageContent:
    """Tests image content response"""
    return ImageContent(type="image", data=PNG, mime_type="image/png")


@variants.tool("assistant/content", annotations=READ_ONLY)
def test_audio_content() -> AudioContent:
    """Tests audio content response"""
    return AudioContent(type="audio", data=WAV, mime_type="audio/wav")


@variants.tool("assistant/content", annotations=READ_ONLY)
def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response"""
    return EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."))


MIXED = {"type": "object", "required": ["test", "value"],
         "properties": {"test": {"type": "string"}, "value": {"type": "integer"}}}


# The data for the model as structured, too (before 2026-12-01: the tool's outputSchema and structuredContent).
@variants.tool("assistant/content", variant("assistant/structured", MIXED), annotations=READ_ONLY)
def test_multiple_content_types() -> Results:
    """Tests response with multiple content types (text, image, resource)"""
    data = {"test": "data", "value": 123}
    return Results({
        "assistant/content": [
            TextContent(type="text", text="Multiple content types test:"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            EmbeddedResource(type="resource", resource=TextResourceContents(
                uri="test://mixed-content-resource", mime_type="application/json", text=json.dumps(data))),
        ],
        "assistant/structured": data,
    })


@variants.tool("assistant/content")
def test_error_handling() -> str:
    """Tests error response handling"""
    raise ToolError(ErrorKind.TOOL_ERROR, "This tool intentionally returns an error for testing")


# ---- tools: SEP-3279's own fixtures (conformance-ts/: the SEP's scenarios in the suite's API) -----------

TOTAL = {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}
ROWS = {"type": "array", "items": {"type": "object", "required": ["name", "value"],
                                   "properties": {"name": {"type": "string"}, "value": {"type": "integer"}}}}


@variants.tool("assistant/content", variant("assistant/structured", TOTAL), "user/content", variant("user/structured", ROWS),
               variant("programmatic/structured", ROWS), annotations=READ_ONLY)
def test_variants_all() -> Results:
    """Every core variant, each in its own shape: two rows and their total"""
    rows = [{"name": "a", "value": 1}, {"name": "b", "value": 2}]
    return Results({"assistant/content": "Two rows, a = 1 and b = 2; their total is 3.", "assistant/structured": {"total": 3},
                    "user/content": "a: 1, b: 2", "user/structured": rows, "programmatic/structured": rows})


@variants.tool("assistant/content", variant("programmatic/structured", TOTAL))
def test_variants_error() -> Results:
    """Always fails as a tool error (isError: true), answering each requested variant"""
    raise ToolError(ErrorKind.TOOL_ERROR, "test_variants_error fails, as it always does")


# ---- tools: notifications during a call --------------------------------------------------------


@variants.tool("assistant/content", variant("programmatic/structured", Progress), annotations=READ_ONLY)
async def test_tool_with_progress(ctx: Context) -> Results:
    """Tests tool that reports progress notifications"""
    steps = [0.0, 50.0, 100.0]
    for step in steps:  # sent only when the call carries a progressToken
        await ctx.report_progress(step, 100, f"Completed step {step:g} of 100")
        if step < 100:
            await asyncio.sleep(0.05)
    return Results({"assistant/content": f"Progress reported: {', '.join(f'{s:g}' for s in steps)} of 100",
                    "programmatic/structured": Progress(reported=steps, total=100)})


@variants.tool("assistant/content", variant("programmatic/structured", LogLines), annotations=READ_ONLY)
async def test_tool_with_logging(ctx: Context) -> Results:
    """Tests tool that emits log messages during execution"""
    lines = ["Tool execution started", "Tool processing data", "Tool execution completed"]
    for i, line in enumerate(lines):
        if i:
            await asyncio.sleep(0.05)
        await ctx.info(line)  # at 2026-07-28, only when the request opted in with _meta's logLevel
    return Results({"assistant/content": "Tool with logging executed successfully",
                    "programmatic/structured": LogLines(level="info", messages=lines)})


@variants.tool("assistant/content")
async def test_logging_tool(ctx: Context) -> str:
    """Diagnostic logging validator tool: logs once, which 2026-07-28 delivers only to a request that asked for logs"""
    await ctx.info("Diagnostic trace logging activated")
    return "Logging evaluated"


@variants.tool("assistant/content")
async def test_streaming_elicitation(ctx: Context) -> str:
    """Diagnostic tool validating response progress streams: notifications only, never a request, on the call's stream"""
    await ctx.report_progress(50, 100)
    return "Streaming complete"


@variants.tool("assistant/content")
async def test_trigger_tool_change(ctx: Context) -> str:
    """Diagnostic hook: announces that the tool list changed"""
    await ctx.notify_tools_changed()  # to subscriptions/listen streams (2026-07-28)
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        await ctx.session.send_tool_list_changed()  # to this session (before 2026-07-28)
    return "Mutation triggered"


@variants.tool("assistant/content")
async def test_trigger_prompt_change(ctx: Context) -> str:
    """Diagnostic hook: announces that the prompt list changed"""
    await ctx.notify_prompts_changed()
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        await ctx.session.send_prompt_list_changed()
    return "Mutation triggered"


@variants.tool("assistant/content")
async def test_reconnection(ctx: Context) -> str:
    """Tests SSE stream disconnection and client reconnection (SEP-1699): closes this call's stream mid-call"""
    await ctx.close_sse_stream()  # a no-op unless the HTTP transport keeps an event store to resume from
    await asyncio.sleep(0.1)
    return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."


# ---- tools: asking the client mid-call (2025-11-25 and before) ---------------------------------


def mid_call(ctx: Context, capability: Literal["sampling", "elicitation"]) -> None:
    """A request to the client on this call's stream needs the capability, and a connection that can carry it."""
    declared = getattr(ctx.client_capabilities or ClientCapabilities(), capability) is not None
    if not (declared and ctx.session.can_send_request):
        raise ToolError(ErrorKind.TOOL_ERROR, f"This tool asks the client mid-call ({capability}): that needs a client that "
                        f"declares {capability} on a 2025-11-25 (or older) connection.")


@variants.tool("assistant/content", variant("programmatic/structured", Sampled))
async def test_sampling(prompt: Annotated[str, Field(description="The prompt to send to the LLM")], ctx: Context) -> Results:
    """Tests server-initiated sampling (LLM completion request)"""
    mid_call(ctx, "sampling")
    reply = await ctx.session.create_message([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                                             max_tokens=100, related_request_id=ctx.request_id)
    text = reply.content.text if isinstance(reply.content, TextContent) else str(reply.content)
    return Results({"assistant/content": f"LLM response: {text}",
                    "programmatic/structured": Sampled(model=reply.model, text=text, stop_reason=reply.stop_reason)})


async def elicit(ctx: Context, message: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> Elicited:
    mid_call(ctx, "elicitation")
    schema = {"type": "object", "properties": properties, "required": list(required)}
    answer = await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
    return Elicited(action=answer.action, content=answer.content or {})


ELICITED = variant("programmatic/structured", Elicited)


@variants.tool(variant("assistant/content", project=said("User response")), ELICITED)
async def test_elicitation(message: Annotated[str, Field(description="The message to show the user")], ctx: Context) -> Elicited:
    """Tests server-initiated elicitation (user input request)"""
    return await elicit(ctx, message, {"username": {"type": "string", "description": "User's response"},
                                       "email": {"type": "string", "description": "User's email address"}},
                        required=("username", "email"))


@variants.tool(variant("assistant/content", project=said("Elicitation completed")), ELICITED)
async def test_elicitation_sep1034_defaults(ctx: Context) -> Elicited:
    """Tests elicitation with default values per SEP-1034"""
    return await elicit(ctx, "Please review and update the form fields with defaults", {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    })


def titled(*pairs: str) -> list[dict[str, str]]:
    return [{"const": pairs[i], "title": pairs[i + 1]} for i in range(0, len(pairs), 2)]


@variants.tool(variant("assistant/content", project=said("Elicitation completed")), ELICITED)
async def test_elicitation_sep1330_enums(ctx: Context) -> Elicited:
    """Tests elicitation with enum schema improvements per SEP-1330"""
    options = ["option1", "option2", "option3"]
    return await elicit(ctx, "Please select options from the enum fields", {
        "untitledSingle": {"type": "string", "description": "Select one option", "enum": options},
        "titledSingle": {"type": "string", "description": "Select one option with titles",
                         "oneOf": titled("value1", "First Option", "value2", "Second Option", "value3", "Third Option")},
        "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                          "items": {"type": "string", "enum": options}},
        "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                        "items": {"anyOf": titled("value1", "First Choice", "value2", "Second Choice", "value3", "Third Choice")}},
    })


def ask_the_model() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="Say hello"))], max_tokens=20)


@variants.tool("assistant/content")
def test_missing_capability(reply: Annotated[CreateMessageResult, Resolve(ask_the_model)]) -> str:
    """Test tool requiring sampling: a client that did not declare it gets -32021 before the tool runs"""
    # MCPServer resolves `reply` in any era: a request mid-call before 2026-07-28, an InputRequiredResult from it on.
    return f"Success: the model said {reply.content.text if isinstance(reply.content, TextContent) else reply.content}"


# ---- tools: JSON Schema 2020-12 arguments, and an argument mirrored in an HTTP header ------------

CONTACT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


# The signature is what MCPServer binds; `input_schema` is what tools/list shows and each call is checked against.
@variants.tool("assistant/content", variant("programmatic/structured", CONTACT), input_schema=CONTACT)
def json_schema_2020_12_tool(name: str | None = None, address: dict[str, str] | None = None,
                             contactMethod: Literal["phone", "email"] | None = None,  # the suite's name
                             phone: str | None = None, email: str | None = None) -> Results:
    """Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)"""
    given = {k: v for k, v in {"name": name, "address": address, "contactMethod": contactMethod, "phone": phone,
                               "email": email}.items() if v is not None}
    return Results({"assistant/content": f"JSON Schema 2020-12 tool called with: {json.dumps(given)}",
                    "programmatic/structured": given})


@variants.tool("assistant/content", variant("programmatic/structured", Text, project=lambda t: Text(text=t)))
def test_custom_headers(region: Annotated[str, Field(description="Mirrored in the Mcp-Param-Region header (SEP-2243)",
                                                     json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """A tool with an x-mcp-header argument: at 2026-07-28 the server checks the header against the body"""
    return f"Region: {region}"


# ---- tools: asking the client through InputRequiredResult (2026-07-28, SEP-2322) ----------------

CAPABILITY = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}


def declares(ctx: Context, request: InputRequest) -> bool:
    return getattr(ctx.client_capabilities or ClientCapabilities(), CAPABILITY[request.method]) is not None


def input_required(ctx: Context, requests: dict[str, InputRequest], state: str | None = None) -> InputRequiredResult:
    """This round's answer: ask the client. It calls again with the answers under the same keys (ctx.input_responses)
    and `state` echoed (ctx.request_state); MCPServer seals `state` on the way out and rejects it tampered."""
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        raise ToolError(ErrorKind.TOOL_ERROR, f"This tool asks through InputRequiredResult (2026-07-28 and later); "
                        f"this connection speaks {ctx.protocol_version}.")
    missing = sorted({CAPABILITY[r.method] for r in requests.values() if not declares(ctx, r)})
    if missing:
        required = ClientCapabilities.model_validate({name: {} for name in missing})
        raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY, f"This tool needs the client's {', '.join(missing)}",
                       MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
                           by_alias=True, mode="json", exclude_none=True))
    return InputRequiredResult(input_requests=requests, request_state=state)


def form(message: str, field: str, kind: str = "string") -> ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def sampling(text: str, max_tokens: int) -> CreateMessageRequest:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
    return CreateMessageRequest(params=CreateMessageRequestParams(messages=[message], max_tokens=max_tokens))


def accepted(ctx: Context, key: str) -> dict[str, Any] | None:
    """The form the user accepted under `key`, if this round carries one."""
    answer = (ctx.input_responses or {}).get(key)
    return dict(answer.content or {}) if isinstance(answer, ElicitResult) and answer.action == "accept" else None


def sampled(ctx: Context, key: str) -> str | None:
    answer = (ctx.input_responses or {}).get(key)
    if isinstance(answer, CreateMessageResult):
        return answer.content.text if isinstance(answer.content, TextContent) else "(not text)"
    return None


def roots(ctx: Context, key: str) -> int | None:
    answer = (ctx.input_responses or {}).get(key)
    return len(answer.roots) if isinstance(answer, ListRootsResult) else None


@variants.tool("assistant/content")
def test_input_required_result_elicitation(ctx: Context) -> str | InputRequiredResult:
    """MRTR: returns InputRequiredResult with elicitation request"""
    user = accepted(ctx, "user_name")  # extra answers are ignored; a missing one is asked for again
    if user is None:
        return input_required(ctx, {"user_name": form("What is your name?", "name")})
    return f"Hello, {user.get('name', 'unknown')}!"


@variants.tool("assistant/content")
def test_input_required_result_sampling(ctx: Context) -> str | InputRequiredResult:
    """MRTR: returns InputRequiredResult with sampling request"""
    text = sampled(ctx, "sample_request")
    if text is None:
        return input_required(ctx, {"sample_request": sampling("What is the capital of France?", 100)})
    return f"Sampling result: {text}"


@variants.tool("assistant/content")
def test_input_required_result_list_roots(ctx: Context) -> str | InputRequiredResult:
    """MRTR: returns InputRequiredResult with roots/list request"""
    count = roots(ctx, "roots_request")
    if count is None:
        return input_required(ctx, {"roots_request": ListRootsRequest()})
    return f"Found {count} root(s)"


@variants.tool("assistant/content")
def test_input_required_result_request_state(ctx: Context) -> str | InputRequiredResult:
    """MRTR: returns InputRequiredResult with requestState"""
    confirmed = accepted(ctx, "confirm")
    if ctx.request_state == "awaiting-confirmation" and confirmed and confirmed.get("ok") is True:
        return "state-ok: requestState validated"
    return input_required(ctx, {"confirm": form("Please confirm", "ok", "boolean")}, state="awaiting-confirmation")


@variants.tool("assistant/content")
def test_input_required_result_tampered_state(ctx: Context) -> str | InputRequiredResult:
    """MRTR: integrity-protected requestState (a tampered one is refused with -32602 before the tool runs)"""
    if ctx.request_state == "tamper-test" and accepted(ctx, "confirm") is not None:
        return "integrity-ok: state verified"
    return input_required(ctx, {"confirm": form("Please confirm", "ok", "boolean")}, state="tamper-test")


@variants.tool("assistant/content")
def test_input_required_result_multiple_inputs(ctx: Context) -> str | InputRequiredResult:
    """MRTR: returns InputRequiredResult with multiple input requests"""
    user, greeting, count = accepted(ctx, "user_name"), sampled(ctx, "greeting"), roots(ctx, "client_roots")
    if ctx.request_state == "multiple-inputs" and user is not None and greeting is not None and count is not None:
        return f"Name: {user.get('name', 'unknown')}; Greeting: {greeting}; Roots: {count}"
    return input_required(ctx, {
        "user_name": form("What is your name?", "name"),
        "greeting": sampling("Generate a greeting", 50),
        "client_roots": ListRootsRequest(),
    }, state="multiple-inputs")


class Preferences(BaseModel):
    name: str
    color: str


@variants.tool(variant("assistant/content", project=lambda p: f"Multi-round complete for {p.name} who likes {p.color}"),
               variant("programmatic/structured", Preferences))
def test_input_required_result_multi_round(ctx: Context) -> Preferences | InputRequiredResult:
    """MRTR: multi-round InputRequiredResult workflow (name, then color; the state carries what round 1 learnt)"""
    state = json.loads(ctx.request_state or "{}")
    step1, step2 = accepted(ctx, "step1"), accepted(ctx, "step2")
    if state.get("round") == 2 and step2 is not None:
        return Preferences(name=state["name"], color=str(step2.get("color", "unknown")))
    if state.get("round") == 1 and step1 is not None:
        return input_required(ctx, {"step2": form("Step 2: What is your favorite color?", "color")},
                              state=json.dumps({"round": 2, "name": str(step1.get("name", "friend"))}))
    return input_required(ctx, {"step1": form("Step 1: What is your name?", "name")}, state=json.dumps({"round": 1}))


@variants.tool("assistant/content")
def test_input_required_result_capabilities(ctx: Context) -> str | InputRequiredResult:
    """MRTR: respects client capabilities in inputRequests (asks only what the client declared it can answer)"""
    if ctx.input_responses:
        return f"capabilities-ok: received {','.join(ctx.input_responses)}"
    asks = {key: request for key, request in {"elicit_input": form("Elicitation input", "value"),
                                              "sample_input": sampling("Sample request", 50)}.items() if declares(ctx, request)}
    return input_required(ctx, asks, state="capabilities") if asks else "No supported capabilities declared"


# ---- the tasks extension's fixtures (SEP-2663): long runs as tasks, through the server API's Tasks -------

tasks = Tasks()


@variants.tool("assistant/content", annotations=READ_ONLY)
def greet(name: str) -> str:
    """Sync only: never a task."""
    return f"Hello, {name}!"


@variants.tool("assistant/content", annotations=READ_ONLY)
async def slow_compute(seconds: float = 1.0, label: str = "") -> str:
    """Sleeps `seconds`, then answers; a task for a client that negotiated the extension."""
    await asyncio.sleep(seconds)
    return f"Computed {label or 'a result'} after {seconds:g} s"


@variants.tool("assistant/content")
async def failing_job() -> str:
    """Only ever a task; it ends with a tool error, so the task completes with isError."""
    await asyncio.sleep(1.0)
    raise ToolError(ErrorKind.TOOL_ERROR, "failing_job failed, as it always does")


@variants.tool("assistant/content")
async def protocol_error_job() -> str:
    """A task whose run ends in a protocol error: the task fails, carrying it."""
    await asyncio.sleep(0.2)
    raise MCPError(-32603, "protocol_error_job broke, as it always does")


tasks.supports("slow_compute")
tasks.supports("failing_job", "required")
tasks.supports("protocol_error_job")

mcp = MCPServer("mcp-conformance-test-server", version="1.0.0", extensions=[tasks, variants], middleware=[variants.middleware])


# ---- prompts -----------------------------------------------------------------------------------


@mcp.prompt(title="Simple Test Prompt")
def test_simple_prompt() -> str:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


@mcp.prompt(title="Prompt With Arguments")
def test_prompt_with_arguments(arg1: Annotated[str, Field(description="First test argument")],
                               arg2: Annotated[str, Field(description="Second test argument")]) -> str:
    """A prompt with required arguments"""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@mcp.prompt(title="Prompt With Embedded Resource")
def test_prompt_with_embedded_resource(
        resourceUri: Annotated[str, Field(description="URI of the resource to embed")]) -> list[UserMessage]:
    """A prompt that includes an embedded resource"""
    embedded = TextResourceContents(uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing.")
    return [UserMessage(EmbeddedResource(type="resource", resource=embedded)),
            UserMessage("Please process the embedded resource above.")]


@mcp.prompt(title="Prompt With Image")
def test_prompt_with_image() -> list[UserMessage]:
    """A prompt that includes image content"""
    return [UserMessage(ImageContent(type="image", data=PNG, mime_type="image/png")), UserMessage("Please analyze the image above.")]


@mcp.prompt()
def test_input_required_result_prompt(ctx: Context) -> str | InputRequiredResult:
    """MRTR: prompt that requires elicitation input"""
    answer = accepted(ctx, "user_context")
    if answer is None:
        return input_required(ctx, {"user_context": form("What context should the prompt use?", "context")})
    return f"Prompt with context: {answer.get('context', 'unknown')}"


@mcp.completion()
async def complete(ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument,
                   context: CompletionContext | None) -> Completion | None:
    if isinstance(ref, PromptReference) and ref.name == "test_prompt_with_arguments":
        values = [v for v in ("paris", "park", "party") if v.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    return None


# ---- resources ---------------------------------------------------------------------------------


@mcp.resource("test://static-text", name="static-text", title="Static Text Resource", mime_type="text/plain",
              description="A static text resource for testing")
def static_text() -> str:
    return "This is the content of the static text resource."


@mcp.resource("test://static-binary", name="static-binary", title="Static Binary Resource", mime_type="image/png",
              description="A static binary resource (image) for testing")
def static_binary() -> bytes:
    return base64.b64decode(PNG)


@mcp.resource("test://template/{id}/data", name="template", title="Resource Template", mime_type="application/json",
              description="A resource template with parameter substitution")
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@mcp.resource("test://watched-resource", name="watched-resource", title="Watched Resource", mime_type="text/plain",
              description="A resource clients may subscribe to (resources/subscribe, before 2026-07-28)")
def watched_resource() -> str:
    return "Watched resource content"


# ---- what 2026-07-28 removed, for handshake-era clients: logging/setLevel, resources/subscribe ---

subscribed: set[str] = set()


async def set_level(ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> dict[str, Any]:
    return {}  # accepted; this server logs only from its logging tools, at info


async def subscribe(ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> dict[str, Any]:
    subscribed.add(str(params.uri))
    return {}


async def unsubscribe(ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> dict[str, Any]:
    subscribed.discard(str(params.uri))
    return {}


legacy = lowlevel_server(mcp)
legacy.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
legacy.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
legacy.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)

if __name__ == "__main__":
    cli(mcp)
