"""The bridge's pure rewriting of requests (sdk/_bridge.py), and what every answer gets on its way out, bridge or
not: the tunnel opened and -32022 naming every version (sdk/_tunnel.py), by the HTTP guard too (sdk/_guard.py)."""

from __future__ import annotations

import asyncio
import copy
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_variants.protocol.jsonrpc import JsonRpcMessage, check_bytes
from mcp_variants.protocol.versions import VERSION_KEY, Era
from mcp_variants.sdk._bridge import SDK_VERSION, rewrite_http_request, rewrite_request
from mcp_variants.sdk._guard import MessageGuard, _json_body_as_sent, _sse_events_as_sent
from mcp_variants.sdk._requests import BRIDGE_MARK as MARKER_KEY
from mcp_variants.sdk._requests import finish, is_outputs_request
from mcp_variants.sdk._serve import bridge_needed
from mcp_variants.sdk._tunnel import TUNNEL_KEY, tunnel, unwrap_result
from mcp_variants.sdk._tunnel import as_sent as rewrite_response
from mcp_variants.sse import SseEvents
from support.oracles import PROPERTY

SIX = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"]


def call_params(version: str, **meta: Any) -> dict[str, Any]:
    return {"name": "execute_code", "arguments": {"code": "1+1"}, "_meta": {VERSION_KEY: version, **meta}}


# ---- rewrite_request -----------------------------------------------------------------------------


@pytest.mark.parametrize("header", [None, "2026-12-01"])
def test_outputs_envelope_is_presented_as_2026_07_28_with_marker(header: str | None) -> None:
    params = call_params("2026-12-01", other="kept")
    forwarded = rewrite_request(params, header)
    assert params["_meta"] == {VERSION_KEY: SDK_VERSION, MARKER_KEY: True, "other": "kept"}
    assert SDK_VERSION == "2026-07-28"
    assert forwarded == (None if header is None else "2026-07-28")
    assert is_outputs_request(params)
    assert params["name"] == "execute_code" and params["arguments"] == {"code": "1+1"}


@pytest.mark.parametrize("forged", [True, "yes", 1, {"x": 1}])
@pytest.mark.parametrize("header", [None, "2026-07-28"])
def test_forged_marker_on_2026_07_28_is_removed(forged: Any, header: str | None) -> None:
    params = call_params("2026-07-28", **{MARKER_KEY: forged})
    assert rewrite_request(params, header) == header
    assert params["_meta"] == {VERSION_KEY: "2026-07-28"}
    assert not is_outputs_request(params)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", None])
def test_forged_marker_is_removed_at_any_other_version(version: str | None) -> None:
    params: dict[str, Any] = {"_meta": {MARKER_KEY: True}}
    if version:
        params["_meta"][VERSION_KEY] = version
    rewrite_request(params)
    assert MARKER_KEY not in params["_meta"]


def test_forged_marker_on_a_real_outputs_request_is_replaced_by_ours() -> None:
    params = call_params("2026-12-01", **{MARKER_KEY: "forged"})
    rewrite_request(params, None)
    assert params["_meta"][MARKER_KEY] is True


@pytest.mark.parametrize(("header", "body"), [
    ("2025-06-18", "2026-12-01"),
    ("2026-07-28", "2026-12-01"),
    ("2026-12-01", "2026-07-28"),
    ("nonsense", "2026-12-01"),
])
def test_header_disagreeing_with_body_is_left_unchanged(header: str, body: str) -> None:
    params = call_params(body)
    before = copy.deepcopy(params)
    assert rewrite_request(params, header) == header
    assert params == before
    assert not is_outputs_request(params)


@pytest.mark.parametrize("params", [None, [], "x", {}, {"_meta": None}, {"_meta": "x"}, {"name": "t"}])
def test_requests_without_envelope_pass_through(params: Any) -> None:
    before = copy.deepcopy(params)
    assert rewrite_request(params, "2026-12-01") == "2026-12-01"
    assert rewrite_request(params, None) is None
    assert params == before


def test_is_outputs_request_needs_exactly_true() -> None:
    assert not is_outputs_request(None)
    assert not is_outputs_request({"_meta": {MARKER_KEY: 1}})
    assert is_outputs_request({"_meta": {MARKER_KEY: True}})


# ---- tunnel / unwrap_result --------------------------------------------------------------------------


def test_tunnel_placeholders() -> None:
    real = {"outputs": [{"audience": "assistant", "format": "content", "content": []}]}
    assert tunnel("tools/call", real) == {"content": [], "_meta": {TUNNEL_KEY: real}}
    assert tunnel("tools/list", {"tools": [{"name": "x"}]}) == {"tools": [], "_meta": {TUNNEL_KEY: {"tools": [{"name": "x"}]}}}


def test_unwrap_restores_result_keeping_sdk_envelope_and_merging_meta() -> None:
    real = {"outputs": [{"audience": "user", "format": "content", "content": []}], "isError": True,
            "_meta": {"io.modelcontextprotocol/cache": {"ttlMs": 1}, "shared": "real"}}
    sdk_result = {**tunnel("tools/call", real), "resultType": "complete", "ttlMs": 30000, "cacheScope": "private"}
    sdk_result["_meta"].update({"sdk": 1, "shared": "sdk"})
    restored = unwrap_result(sdk_result)
    assert restored == {
        "outputs": real["outputs"], "isError": True, "resultType": "complete", "ttlMs": 30000, "cacheScope": "private",
        "_meta": {"sdk": 1, "shared": "real", "io.modelcontextprotocol/cache": {"ttlMs": 1}},
    }
    assert "content" not in restored and TUNNEL_KEY not in restored["_meta"]


def test_unwrap_keeps_the_real_results_own_envelope_keys() -> None:
    real = {"tools": [], "ttlMs": 5}
    assert unwrap_result({**tunnel("tools/list", real), "ttlMs": 999, "resultType": "complete"}) == {
        "tools": [], "ttlMs": 5, "resultType": "complete",
    }


def test_unwrap_without_meta_adds_none() -> None:
    assert unwrap_result(tunnel("tools/call", {"outputs": []})) == {"outputs": []}


@pytest.mark.parametrize("result", [{"content": []}, {"content": [], "_meta": {"k": 1}}, {"_meta": "x"}, {}])
def test_untunnelled_results_are_untouched(result: dict[str, Any]) -> None:
    before = copy.deepcopy(result)
    assert unwrap_result(result) == before


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=10,
)


@PROPERTY
@given(
    method=st.sampled_from(["tools/call", "tools/list"]),
    real=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "_meta"), json_values, max_size=4),
)
def test_tunnel_round_trip(method: str, real: dict[str, Any]) -> None:
    tunnelled = tunnel(method, real)
    assert orjson.loads(orjson.dumps(tunnelled)) == tunnelled
    assert unwrap_result(orjson.loads(orjson.dumps(tunnelled))) == real


# ---- rewrite_response ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [
    {"supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"], "requested": "2026-12-01"},
    None,
    "not a dict",
    {},
])
def test_32022_names_all_six_versions(data: Any) -> None:
    error: dict[str, Any] = {"code": -32022, "message": "Unsupported protocol version"}
    if data is not None:
        error["data"] = data
    message = rewrite_response({"jsonrpc": "2.0", "id": 1, "error": error})
    assert message["error"]["data"]["supported"] == SIX
    assert message["error"]["code"] == -32022 and message["error"]["message"] == "Unsupported protocol version"
    if isinstance(data, dict) and "requested" in data:
        assert message["error"]["data"]["requested"] == "2026-12-01"


@pytest.mark.parametrize("code", [-32020, -32602, -32603, -32600])
def test_other_errors_are_untouched(code: int) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m", "data": {"supported": ["x"]}}}
    assert rewrite_response(copy.deepcopy(message)) == message


def test_response_result_is_unwrapped() -> None:
    message = {"jsonrpc": "2.0", "id": 7, "result": {**tunnel("tools/call", {"outputs": []}), "resultType": "complete"}}
    assert rewrite_response(message) == {"jsonrpc": "2.0", "id": 7, "result": {"outputs": [], "resultType": "complete"}}


def test_notifications_and_other_messages_pass() -> None:
    message = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    assert rewrite_response(copy.deepcopy(message)) == message


# ---- the HTTP helpers built on the same functions -----------------------------------------------------------


def _scope(header: str | None) -> dict[str, Any]:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"0")]
    if header is not None:
        headers.append((b"mcp-protocol-version", header.encode()))
    return {"type": "http", "method": "POST", "headers": headers}


def _inbound(body: bytes, scope: dict[str, Any]) -> Any:
    checked = check_bytes(body)
    assert isinstance(checked, JsonRpcMessage)
    return rewrite_http_request(checked, body, scope)


def test_http_inbound_rewrites_body_and_header() -> None:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call_params("2026-12-01")})
    new_body, scope = _inbound(body, _scope("2026-12-01"))
    decoded = orjson.loads(new_body)
    assert decoded["params"]["_meta"] == {VERSION_KEY: "2026-07-28", MARKER_KEY: True}
    headers = dict(scope["headers"])
    assert headers[b"mcp-protocol-version"] == b"2026-07-28"
    assert headers[b"content-length"] == str(len(new_body)).encode()


def test_http_inbound_leaves_mismatch_and_non_requests_alone() -> None:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call_params("2026-12-01")})
    scope = _scope("2026-07-28")  # the SDK answers a mismatch between stateless versions: -32020
    assert _inbound(body, scope) == (body, scope)
    response = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert _inbound(response, scope) == (response, scope)


def test_http_inbound_refuses_a_stateless_request_routed_as_a_handshake_one() -> None:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call_params("2026-12-01")})
    refused = _inbound(body, _scope("2025-06-18"))
    assert refused.code == -32020 and refused.data["expected"] == "2026-12-01"


def test_http_inbound_strips_a_forged_marker() -> None:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": call_params("2026-07-28", **{MARKER_KEY: True})})
    new_body, scope = _inbound(body, _scope("2026-07-28"))
    assert MARKER_KEY not in orjson.loads(new_body)["params"]["_meta"]
    assert dict(scope["headers"])[b"mcp-protocol-version"] == b"2026-07-28"


def test_once_the_app_returned_its_receive_no_longer_reaches_the_connection() -> None:
    """The SDK keeps a session's last message until the next one, with its request and so the `receive` it was
    given (issue 22): from then on that answers as uvicorn does after a response, a disconnect, and holds nothing
    of the connection (uvicorn's is not called again)."""
    body = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    from_connection = [{"type": "http.request", "body": body, "more_body": False}]
    kept: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        kept.append(receive)
        assert (await receive())["body"] == body
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict[str, Any]:
        return from_connection.pop(0)

    async def send(message: Any) -> None:
        pass

    async def scenario() -> Any:
        await MessageGuard(app)(_scope(None), receive, send)
        return await kept[0]()

    assert asyncio.run(scenario()) == {"type": "http.disconnect"}


def test_sse_event_is_unwrapped() -> None:
    payload = orjson.dumps({"jsonrpc": "2.0", "id": 3, "result": tunnel("tools/call", {"outputs": []})})
    chunk = b"event: message\r\ndata: " + payload + b"\r\n\r\n"
    rewritten = _sse_events_as_sent(chunk)
    data_line = next(line for line in rewritten.split(b"\n") if line.startswith(b"data:"))
    assert orjson.loads(data_line[5:].strip()) == {"jsonrpc": "2.0", "id": 3, "result": {"outputs": []}}


@PROPERTY
@given(cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12), line_end=st.sampled_from([b"\n", b"\r\n"]))
def test_sse_events_are_whole_however_the_stream_is_chunked(cuts: list[int], line_end: bytes) -> None:
    """An event split across chunks (a tunnelled result, the bridge's needle cut in two) is held until it is
    complete, then rewritten whole: the same events come out as from one chunk (issue 13: per event, not per chunk)."""
    events = b"".join(
        b"event: message" + line_end + b"data: "
        + orjson.dumps({"jsonrpc": "2.0", "id": i, "result": tunnel("tools/call", {"outputs": [{"n": "x" * 300}]})})
        + line_end + line_end
        for i in range(3))
    points = sorted({0, len(events), *(c for c in cuts if c < len(events))})
    splitter = SseEvents()
    out = b"".join(_sse_events_as_sent(splitter.feed(events[a:b])) for a, b in zip(points, points[1:], strict=False))
    out += _sse_events_as_sent(splitter.rest())
    assert out == _sse_events_as_sent(events)
    assert TUNNEL_KEY.encode() not in out


# ---- an SDK that serves 2026-12-01 itself -----------------------------------------------------------


def test_the_guard_opens_tunnels_names_every_version_and_puts_the_id_on_an_anonymous_error() -> None:
    tunnelled = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": tunnel("tools/call", {"outputs": []})})
    assert orjson.loads(_json_body_as_sent(tunnelled, 1))["result"] == {"outputs": []}
    unsupported = orjson.dumps({"jsonrpc": "2.0", "id": 2, "error": {"code": -32022, "message": "m", "data": {"supported": ["x"]}}})
    assert orjson.loads(_json_body_as_sent(unsupported, 2))["error"]["data"]["supported"] == SIX
    anonymous = orjson.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no session"}})
    assert orjson.loads(_json_body_as_sent(anonymous, 7))["id"] == 7
    plain = orjson.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": []}})
    assert _json_body_as_sent(plain, 3) is plain


@pytest.mark.parametrize(("sdk_version", "era", "tunnelled"), [
    ("2026-07-28", Era.OUTPUTS, True),    # the bridge presented a 2026-12-01 request as 2026-07-28
    ("2026-12-01", Era.OUTPUTS, False),   # an SDK that serves 2026-12-01 sieves it as it is
    ("2026-07-28", Era.LEGACY_ANY, False),
])
def test_finish_tunnels_only_a_result_the_sdk_would_sieve_as_another_version(sdk_version: str, era: Era, tunnelled: bool) -> None:
    ctx: Any = SimpleNamespace(protocol_version=sdk_version)
    result = finish(ctx, "tools/call", era, {"outputs": []})
    assert (TUNNEL_KEY in (result.get("_meta") or {})) is tunnelled
    assert result["resultType"] == "complete"


def test_the_installed_sdk_needs_the_bridge() -> None:
    """mcp 2.3.0 knows versions up to 2026-07-28 (tests/sdk/test_patched_sdk.py: one that knows 2026-12-01 does not)."""
    assert bridge_needed() is True
