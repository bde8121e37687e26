"""tools/list per protocol era, server/discover, and version negotiation, on the wire.

Issue 2: "The server" bullets (tools/list shapes, cache hints, -32022, server/discover)
and SEP-3279 "Tool declaration" / "Backward compatibility" / "Extension audiences".
"""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from support.wire import (
    CONTENT_ONLY_VERSIONS,
    HANDSHAKE_VERSIONS,
    HEADER_MISMATCH,
    LEGACY_STRUCTURED_VERSIONS,
    OLDER_VERSIONS,
    OUTPUTS_VERSION,
    STATELESS_VERSIONS,
    TOOLS,
    TRANSPORTS,
    UI,
    UI_EXTENSIONS,
    UNSUPPORTED_VERSION,
    VERSIONS,
    WireClient,
    initialize_message,
    pairs,
    stdio_target,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(90)]

CORE_PAIRS = {("assistant", "content"), ("assistant", "structured"), ("user", "content"), ("user", "structured"),
              ("programmatic", "structured")}


def _selectors(tool: dict) -> list[tuple[str, str]]:
    return [(v["audience"], v["format"]) for v in tool["outputVariants"]]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_outputs_era_lists_output_variants_and_no_output_schema(connect, transport):
    """2026-12-01 tools/list: every tool has `outputVariants`, never `outputSchema`; each declares
    assistant/content, no pair twice, only core pairs (no extension audience un-negotiated), and
    every structured variant has a valid 2020-12 schema (SEP "Tool declaration"; issue 2 "The server")."""
    tools = connect(transport, OUTPUTS_VERSION).tools(fresh=True)
    assert set(TOOLS) <= set(tools)
    for name, tool in tools.items():
        assert "outputSchema" not in tool, name
        selectors = _selectors(tool)
        assert ("assistant", "content") in selectors, name
        assert len(selectors) == len(set(selectors)), f"{name} lists a pair twice: {selectors}"
        assert set(selectors) <= CORE_PAIRS, f"{name} lists a non-core pair without negotiation: {selectors}"
        for variant in tool["outputVariants"]:
            if variant["format"] == "structured":
                assert isinstance(variant.get("schema"), dict), (name, variant)
                Draft202012Validator.check_schema(variant["schema"])
            else:
                assert "schema" not in variant, (name, variant)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_ui_variants_listed_only_when_negotiated(connect, transport):
    """An extension audience appears in outputVariants only when the request negotiated the
    extension (SEP "Extension audiences"; issue 2: ui variants only when negotiated). The three
    tools declare io.modelcontextprotocol/ui/structured, so with the extension they list it."""
    plain = connect(transport, OUTPUTS_VERSION).tools(fresh=True)
    with_ui = connect(transport, OUTPUTS_VERSION, UI_EXTENSIONS).tools(fresh=True)
    other_ext = connect(transport, OUTPUTS_VERSION, {"com.example/other": {}}).tools(fresh=True)
    for name in TOOLS:
        assert (UI, "structured") not in _selectors(plain[name]), name
        assert (UI, "structured") not in _selectors(other_ext[name]), name
        assert (UI, "structured") in _selectors(with_ui[name]), name
        ui_variant = next(v for v in with_ui[name]["outputVariants"] if v["audience"] == UI)
        Draft202012Validator.check_schema(ui_variant["schema"])
        # Negotiating the extension adds the ui variant and changes nothing else.
        core = [v for v in with_ui[name]["outputVariants"] if v["audience"] != UI]
        assert core == plain[name]["outputVariants"], name
    for name, tool in with_ui.items():
        assert ("assistant", "content") in _selectors(tool), name


@pytest.mark.parametrize("transport,version", pairs(versions=LEGACY_STRUCTURED_VERSIONS))
def test_legacy_structured_eras_list_output_schema_of_assistant_structured(connect, transport, version, variant_schemas):
    """2025-06-18, 2025-11-25, 2026-07-28: `outputSchema` is the assistant/structured schema (object
    root), never a user/programmatic/ui one, and no `outputVariants` (SEP "Servers handling older
    requests"; issue 2 "Projection")."""
    tools = connect(transport, version).tools(fresh=True)
    for name in TOOLS:
        tool = tools[name]
        assert "outputVariants" not in tool, name
        expected = variant_schemas[(name, "assistant", "structured")]
        assert tool.get("outputSchema") == expected, name
        assert tool["outputSchema"].get("type") == "object", name
        others = [s for (t, a, f), s in variant_schemas.items() if t == name and (a, f) != ("assistant", "structured")]
        assert all(tool["outputSchema"] != s for s in others), f"{name}: outputSchema is another audience's schema"
    for name, tool in tools.items():
        assert "outputVariants" not in tool, name


@pytest.mark.parametrize("transport,version", pairs(versions=CONTENT_ONLY_VERSIONS))
def test_content_only_eras_list_neither_field(connect, transport, version):
    """2024-11-05 and 2025-03-26: tools carry neither `outputSchema` nor `outputVariants` (issue 2
    "Projection": content only, no outputSchema)."""
    tools = connect(transport, version).tools(fresh=True)
    assert set(TOOLS) <= set(tools)
    for name, tool in tools.items():
        assert "outputSchema" not in tool, name
        assert "outputVariants" not in tool, name
        assert tool["inputSchema"]["type"] == "object", name


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_older_eras_ignore_the_ui_extension_in_tools_list(connect, transport, version):
    """Negotiating io.modelcontextprotocol/ui (envelope or initialize capabilities) does not bring
    `outputVariants` to a version older than 2026-12-01, nor change its legacy listing (SEP: the
    requested protocol version, not a field or capability, decides the shape)."""
    plain = connect(transport, version).tools(fresh=True)
    with_ui = connect(transport, version, UI_EXTENSIONS).tools(fresh=True)
    for name in TOOLS:
        assert "outputVariants" not in with_ui[name], name
        assert with_ui[name].get("outputSchema") == plain[name].get("outputSchema"), name


@pytest.mark.parametrize("ui", [False, True], ids=["plain", "ui"])
@pytest.mark.parametrize("transport,version", pairs(versions=STATELESS_VERSIONS))
def test_stateless_list_results_carry_private_cache_hints(connect, transport, version, ui):
    """tools/list at 2026-07-28 and 2026-12-01 carries top-level `ttlMs` and `cacheScope: "private"`
    (the list depends on version and extensions) and `resultType: "complete"` (issue 2 "The server";
    SEP-2549)."""
    result = connect(transport, version, UI_EXTENSIONS if ui else None).list_tools().result
    assert isinstance(result.get("ttlMs"), int) and result["ttlMs"] > 0, result.keys()
    assert result.get("cacheScope") == "private"
    assert result.get("resultType") == "complete"


@pytest.mark.parametrize("transport,version", pairs(versions=STATELESS_VERSIONS))
def test_server_discover_lists_all_versions_and_ui_extension(connect, transport, version):
    """server/discover lists every supported version, 2026-12-01 included, and the server's
    extensions, io.modelcontextprotocol/ui among them (issue 2 "The server")."""
    result = connect(transport, version).request("server/discover", {}).result
    assert result["supportedVersions"] == list(VERSIONS)
    assert UI in result["capabilities"]["extensions"]
    assert "tools" in result["capabilities"]


@pytest.mark.parametrize("method", ["tools/list", "tools/call", "server/discover"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unsupported_version_is_32022_naming_all_six(connect, transport, method):
    """An unsupported version in the envelope (and header, on HTTP) is -32022 whose data.supported
    lists exactly the six served versions, 2026-12-01 included, and data.requested echoes it
    (issue 2 "The server"; field guide error codes)."""
    client = connect(transport, "2031-01-01")
    params = {"name": "list_kernels", "arguments": {}} if method == "tools/call" else {}
    error = client.request(method, params).error
    assert error["code"] == UNSUPPORTED_VERSION, error
    assert sorted(error["data"]["supported"]) == sorted(VERSIONS)
    assert len(error["data"]["supported"]) == len(VERSIONS)
    assert error["data"].get("requested") == "2031-01-01"


@pytest.mark.parametrize(
    "header,body", [("2026-07-28", OUTPUTS_VERSION), (OUTPUTS_VERSION, "2026-07-28")], ids=["07-28-header", "12-01-header"]
)
@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
def test_http_header_body_version_mismatch_is_32020(connect, header, body, method):
    """On streamable HTTP an MCP-Protocol-Version header that disagrees with the envelope's
    version is -32020, in both directions (the bridge must not hide the mismatch; field guide)."""
    client = connect("http", body)
    assert client.transport == "http"
    params = {"name": "list_kernels", "arguments": {}} if method == "tools/call" else {}
    reply = client.request(method, params, headers={"MCP-Protocol-Version": header})
    assert reply.error["code"] == HEADER_MISMATCH, reply.message
    assert "outputs" not in reply.raw.decode() and "outputVariants" not in reply.raw.decode()


@pytest.mark.parametrize(
    "headers",
    [{"Mcp-Method": "tools/call", "Mcp-Name": "list_files"}, {"Mcp-Method": "tools/list", "Mcp-Name": "list_kernels"},
     {"Mcp-Method": "tools/call"}, {"Mcp-Name": "list_kernels"}],
    ids=["wrong-name", "wrong-method", "no-name", "no-method"],
)
@pytest.mark.parametrize("version", STATELESS_VERSIONS)
def test_http_method_and_name_headers_must_match_the_body(pool, version, headers):
    """Mcp-Method / Mcp-Name that are missing or disagree with the body are -32020 at 2026-07-28
    and, through the bridge, at 2026-12-01 alike (field guide: the HTTP headers of 2026-07-28)."""
    server = pool.http_server()
    body = {"jsonrpc": "2.0", "id": server.next_id(), "method": "tools/call",
            "params": {"name": "list_kernels", "arguments": {},
                       "_meta": {"io.modelcontextprotocol/protocolVersion": version,
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}
    response = server.post(body, {"MCP-Protocol-Version": version, **headers})
    (message,) = response.messages
    assert message.get("error", {}).get("code") == HEADER_MISMATCH, message


@pytest.mark.parametrize(
    "version,values",
    [
        pytest.param("2026-07-28", ["2026-07-28", "2026-07-28"], id="07-28-twice"),
        pytest.param("2026-07-28", ["2026-07-28", OUTPUTS_VERSION], id="07-28-conflicting"),
        pytest.param(OUTPUTS_VERSION, [OUTPUTS_VERSION, OUTPUTS_VERSION], id="12-01-twice"),
        pytest.param(OUTPUTS_VERSION, [OUTPUTS_VERSION, "2026-07-28"], id="12-01-conflicting"),
    ],
)
def test_http_repeated_version_header_is_32020(pool, version, values):
    """A repeated MCP-Protocol-Version header is -32020, as the SDK answers at 2026-07-28: the bridge
    must not hide a header/body disagreement by keeping only the first copy (field guide -32020)."""
    server = pool.http_server()
    body = {"jsonrpc": "2.0", "id": server.next_id(), "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": version,
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}
    response = server.post(body, [("Mcp-Method", "tools/list")] + [("MCP-Protocol-Version", v) for v in values])
    (message,) = response.messages
    assert "error" in message, f"served despite {values}: {str(message)[:300]}"
    assert message["error"]["code"] == HEADER_MISMATCH, message


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_http_initialize_negotiates_each_handshake_version(pool, version):
    """initialize at each handshake version is answered with that version and a session id
    (issue 2: one server for 2024-11-05 ... 2025-11-25 by handshake, on HTTP)."""
    server = pool.http_server()
    response = server.post(initialize_message(server.next_id(), version, None))
    assert response.status == 200
    assert response.headers is not None and response.headers.get("mcp-session-id")
    (message,) = [m for m in response.messages if "id" in m]
    assert message["result"]["protocolVersion"] == version


def test_http_initialize_with_unknown_version_offers_a_supported_one(pool):
    """A handshake asking for an unknown version is answered with a version the server supports
    (MCP lifecycle: the server proposes its own), never the unknown one."""
    server = pool.http_server()
    response = server.post(initialize_message(server.next_id(), "2031-01-01", None))
    messages = [m for m in response.messages if "id" in m]
    assert len(messages) == 1
    assert messages[0]["result"]["protocolVersion"] in HANDSHAKE_VERSIONS, messages[0]


def test_stdio_initialize_with_unknown_version_offers_a_supported_one(tmp_path):
    """Same over stdio: an initialize for an unknown version gets a supported version back."""
    target = stdio_target(tmp_path)
    try:
        client = WireClient(target, "2031-01-01", None)  # an unknown version is no handshake version: no initialize yet
        reply = client.send(initialize_message(client.next_id(), "2031-01-01", None))
        assert reply.result["protocolVersion"] in HANDSHAKE_VERSIONS, reply.message
    finally:
        target.close()


@pytest.mark.parametrize("version", STATELESS_VERSIONS)
def test_stdio_stateless_connection_refuses_initialize_and_keeps_serving(connect, version):
    """A stdio connection whose first request was enveloped stays stateless: a later initialize
    is refused, and enveloped requests keep working (field guide: the first request fixes the era)."""
    client = connect("stdio", version)
    client.list_tools()
    reply = client.send(initialize_message(client.next_id(), version, None))
    assert "error" in reply.message, reply.message
    assert client.list_tools().result["tools"]


@pytest.mark.parametrize(
    "meta",
    [{"io.modelcontextprotocol/protocolVersion": "{v}"},
     {"io.modelcontextprotocol/protocolVersion": "{v}", "io.modelcontextprotocol/clientCapabilities": "not-an-object"}],
    ids=["no-capabilities", "capabilities-not-an-object"],
)
@pytest.mark.parametrize("transport,version", pairs(versions=STATELESS_VERSIONS))
def test_incomplete_envelope_is_refused_alike(connect, transport, version, meta):
    """An envelope without (or with a malformed) clientCapabilities is -32602 at 2026-07-28 and, through
    the bridge, at 2026-12-01 alike, never served (field guide: both envelope keys are required)."""
    meta = {k: v.replace("{v}", version) for k, v in meta.items()}
    reply = connect(transport, version).request("tools/list", {"_meta": meta}, bare=True)
    assert reply.error["code"] == -32602, reply.message
