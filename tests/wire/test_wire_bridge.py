"""The 2026-12-01 bridge (sdk/_bridge.py) seen from the wire, on both transports.

Issue 2 "The server": the SDK does not know 2026-12-01; whatever bridges that lives in one
module and is covered by wire tests on both transports. From outside the bridge must be
invisible: its private `_meta` marker cannot be forged by a client, and neither the marker
nor the tunnel key ever reaches a client. (Every message the harness decodes is also checked
for those keys; these tests aim at the places a leak or a forgery would show first.)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from support.wire import (
    MARKER_KEY,
    OLDER_VERSIONS,
    OUTPUTS_VERSION,
    PRIVATE_KEYS,
    TRANSPORTS,
    TUNNEL_KEY,
    UI,
    UI_EXTENSIONS,
    envelope,
    only_output,
    pairs,
    sel,
    text_of,
    unique,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(90)]


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_forged_marker_does_not_unlock_outputs_in_tools_call(connect, transport, version):
    """A client at an older version that puts the bridge's marker in params._meta still gets the
    legacy result: content (+ structuredContent where the era has it), never `outputs`."""
    reply = connect(transport, version).call("execute_code", {"code": "print('forged')"}, meta={MARKER_KEY: True})
    result = reply.result
    assert "outputs" not in result, f"a forged marker unlocked 2026-12-01 outputs at {version}"
    assert "forged" in text_of(result["content"])
    assert (version in ("2024-11-05", "2025-03-26")) == ("structuredContent" not in result)


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_forged_marker_does_not_unlock_output_variants_in_tools_list(connect, transport, version):
    """The same forged marker on tools/list: legacy tools, no `outputVariants`."""
    result = connect(transport, version).request("tools/list", {}, meta={MARKER_KEY: True}).result
    for tool in result["tools"]:
        assert "outputVariants" not in tool, f"a forged marker unlocked outputVariants at {version}"


@pytest.mark.parametrize("value", [True, "true", 1, {"v": True}], ids=["true", "string", "one", "object"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_forged_marker_with_requested_outputs_is_still_refused(connect, transport, value):
    """At 2026-07-28 a forged marker plus requestedOutputs is -32602
    (requestedOutputs-not-in-this-version): the forged request is not treated as 2026-12-01."""
    reply = connect(transport, "2026-07-28").call(
        "list_kernels", {}, requested=[sel("programmatic", "structured")], meta={MARKER_KEY: value}
    )
    assert reply.error["code"] == -32602, reply.message
    assert reply.error["data"]["reason"] == "requestedOutputs-not-in-this-version"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_marker_sent_at_2026_12_01_changes_nothing(outputs_client, transport):
    """A client copy of the marker at 2026-12-01 (with `false`) neither breaks nor changes the
    request: the bridge owns that key."""
    reply = outputs_client(transport).call("list_kernels", {}, requested=[sel("assistant", "content")], meta={MARKER_KEY: False})
    only_output(reply, "assistant", "content")


def _no_private_bytes(raw: bytes) -> None:
    for key in PRIVATE_KEYS:
        assert key.encode() not in raw, f"{key} reached the wire: {raw[:1500]!r}"


@pytest.mark.parametrize("transport,version", pairs())
def test_no_private_key_on_the_wire(connect, transport, version):
    """No response bytes, at any version, contain "io.github.mcp-variants/bridged" or
    "io.github.mcp-variants/tunnel": success, tool error, protocol error and listings."""
    client = connect(transport, version, UI_EXTENSIONS)
    requested = [sel("assistant", "content"), sel(UI, "structured")] if version == OUTPUTS_VERSION else None
    replies = [
        client.list_tools(),
        client.call("execute_code", {"code": "print(1)"}, requested=requested),
        client.call("execute_code", {"code": "1/0"}, requested=requested),
        client.call("list_files", {}, requested=requested),
        client.call("execute_code", {"code": "1"}, requested=[sel("user", "structured")]),  # -32602 at every version
        client.call("list_kernels", {}, meta={MARKER_KEY: True}),
    ]
    if version in ("2026-07-28", OUTPUTS_VERSION):
        replies.append(client.request("server/discover", {}))
    for reply in replies:
        _no_private_bytes(reply.raw)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_result_meta_survives_the_tunnel(outputs_client, transport):
    """At 2026-12-01 the real result's `_meta` (the listing cache hint) and the SDK's envelope keys
    (`resultType`) come back after the tunnel is unwrapped; the tunnel itself does not."""
    result = outputs_client(transport).call("list_files", {}, requested=[sel("assistant", "content")]).result
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/cache"]["ttlMs"] == 30000
    assert TUNNEL_KEY not in result["_meta"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tool_output_mentioning_the_private_keys_is_delivered_verbatim(outputs_client, transport):
    """Printed text that happens to contain the bridge's key names is data: it comes back intact
    in the requested output and does not confuse the unwrapping."""
    token = unique("k-")
    text = f"{TUNNEL_KEY} {MARKER_KEY} -32022 {token}"
    reply = outputs_client(transport).call("execute_code", {"code": f"print({text!r})"}, requested=[sel("programmatic", "structured")])
    data = only_output(reply, "programmatic", "structured")["structuredContent"]
    assert {"output_type": "stream", "name": "stdout", "text": text + "\n"} in data["outputs"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_overlapping_requests_keep_their_own_era(connect, transport):
    """Requests of different eras in flight at the same time each get their own shape: the
    bridge's per-request marking never bleeds from a 2026-12-01 request into a 2026-07-28 one
    or back (SEP: the requested protocol version decides the shape)."""
    slow = {"name": "execute_code", "arguments": {"code": "import time; time.sleep(1); print('slow')"},
            "requestedOutputs": [sel("programmatic", "structured")]}
    legacy = {"name": "list_kernels", "arguments": {}}
    plan = [("2026-12-01", None, "tools/call", slow), ("2026-07-28", None, "tools/call", legacy),
            ("2026-12-01", UI_EXTENSIONS, "tools/list", {}), ("2026-07-28", UI_EXTENSIONS, "tools/list", {}),
            ("2026-12-01", None, "tools/call", legacy)]
    if transport == "stdio":
        client = connect("stdio", OUTPUTS_VERSION)
        messages = [{"jsonrpc": "2.0", "id": client.next_id(), "method": method,
                     "params": {**params, "_meta": envelope(version, ext)}} for version, ext, method, params in plan]
        replies = client.send_many(messages)
    else:
        with ThreadPoolExecutor(len(plan)) as pool:
            futures = [pool.submit(connect("http", version, ext).request, method, params) for version, ext, method, params in plan]
            replies = [f.result() for f in futures]
    slow_r, legacy_r, list12, list07, fallback = (r.result for r in replies)
    assert [o["audience"] for o in slow_r["outputs"]] == ["programmatic"] and "content" not in slow_r
    assert "outputs" not in legacy_r and "structuredContent" in legacy_r
    assert all("outputVariants" in t and "outputSchema" not in t for t in list12["tools"])
    assert any(v["audience"] == UI for t in list12["tools"] for v in t["outputVariants"])
    assert all("outputVariants" not in t for t in list07["tools"])
    assert [(o["audience"], o["format"]) for o in fallback["outputs"]] == [("assistant", "content")]
