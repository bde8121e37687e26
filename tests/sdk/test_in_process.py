"""The reference client on a server in the test's own process (`mcp_variants.sdk.InProcessTransport`,
`mcp_variants.fastmcp.InProcessTransport`): what it gets is what the same server gives over stdio, byte for byte,
at 2026-12-01 and before, for an MCPServer, a FastMCP server and a low-level Server; and no thread is left behind."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from mcp_variants import fastmcp as fastmcp_layer
from mcp_variants import sdk
from mcp_variants.client import (
    ClientError,
    ClientSession,
    RecordingTransport,
    SelectionError,
    StdioConnection,
    StdioTransport,
    Transport,
    TransportError,
    envelope,
)
from mcp_variants.client.results import as_selector
from mcp_variants.client.transport import routing_for
from mcp_variants.protocol.versions import OUTPUTS_VERSION, SUPPORTED_VERSIONS
from mcp_variants.sdk.lowlevel import serve_tools

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

HERE = Path(__file__).parent
OLDER = "2025-06-18"


def load(file: str) -> ModuleType:
    """A fixture server's module, imported in this process (its `if __name__ == "__main__"` does not run)."""
    spec = importlib.util.spec_from_file_location(f"in_process_{Path(file).stem}", HERE / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def raw(session: ClientSession, request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A request the client itself would refuse to send (an undeclared variant), sent through the session's transport."""
    if session.stateless:
        params = {**params, "_meta": envelope(session.version, session.extensions)}
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()
    return session.transport.request(body, routing_for(method, request_id, params, session.version, session.stateless), 30)


Calls = list[tuple[str, dict[str, Any], list[str] | None]]

SERVERS: dict[str, tuple[str, Callable[[Any], Transport], Calls]] = {
    "mcpserver": ("sample_server.py", lambda module: sdk.InProcessTransport(module.mcp), [
        ("lazy", {"a": 1, "b": 2}, ["programmatic/structured"]),
        ("close_ticket", {"id": 3, "by": "ana"}, ["assistant/content", "assistant/structured"]),
        ("fails", {"how": "ours"}, ["programmatic/structured"]),
        ("fails", {"how": "secret"}, None),
        ("legacy_fails", {"how": "ok"}, None),
        ("contents", {"kind": "list"}, None),
    ]),
    "fastmcp": ("fastmcp_sample_server.py", lambda module: fastmcp_layer.InProcessTransport(module.mcp), [
        ("add", {"a": 1, "b": 2}, ["programmatic/structured", "user/structured"]),
        ("close_ticket", {"id": 3}, ["assistant/structured"]),
        ("fail", {"how": "fastmcp"}, ["programmatic/structured"]),
        ("picture", {}, ["user/content"]),
        ("plain", {"x": 4}, None),
    ]),
    "lowlevel": ("lowlevel_server.py", lambda module: sdk.InProcessTransport(module.server), [
        ("add", {"a": 2, "b": 3}, ["assistant/content"]),
        ("add_as_text", {"a": 2, "b": 3}, None),
    ]),
}


def conversation(transport: Transport, version: str, calls: Calls) -> tuple[list[dict[str, Any]], list[str]]:
    """Every response to: opening, tools/list, each call (its selection only at 2026-12-01, where the tool offers
    it), and a tools/call asking for a variant no tool declares (the client refuses to send it; sent raw); and what
    the client raised on the way."""
    kept, raised = RecordingTransport(transport), []
    with ClientSession(kept, version, extensions={"io.modelcontextprotocol/ui": {}}) as session:
        try:
            index = session.list_tools()
        except ClientError as exc:  # lowlevel_server.py's Server gives no cache hints, which 2026-07-28 on require
            raised.append(f"{type(exc).__name__}: {exc}")
            index = None
        for name, arguments, outputs in calls:
            offered = index is not None and all(index.get(name).declares(as_selector(o)) for o in outputs or [])
            try:
                session.call(name, arguments, outputs if version == OUTPUTS_VERSION and offered else None)
            except ClientError as exc:
                raised.append(f"{type(exc).__name__}: {exc}")
        if version == OUTPUTS_VERSION:
            name, arguments, _ = calls[0]
            if index is not None:
                with pytest.raises(SelectionError):
                    session.call(name, arguments, ["user/content"])
            kept.received.append(raw(session, 900, "tools/call", {
                "name": name, "arguments": arguments, "requestedOutputs": [{"audience": "user", "format": "content"}]}))
    return kept.received, raised


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, ModuleType]]:
    file, _, _ = SERVERS[request.param]
    yield request.param, load(file)


@pytest.mark.parametrize("version", [OUTPUTS_VERSION, OLDER])
def test_in_process_answers_exactly_as_stdio(server: tuple[str, ModuleType], version: str) -> None:
    kind, module = server
    file, transport, calls = SERVERS[kind]
    over_stdio = conversation(StdioTransport(StdioConnection([sys.executable, str(HERE / file)])), version, calls)
    in_process = conversation(transport(module), version, calls)
    assert in_process == over_stdio
    if version == OUTPUTS_VERSION:
        refused = in_process[0][-1]
        assert refused["error"]["code"] == -32602 and "user/content" in refused["error"]["message"], refused


def test_the_test_in_docs_client_md_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/client.md's "In a test, in process", run as written, beside examples/world_clock.py."""
    text = (HERE.parents[1] / "docs" / "client.md").read_text()
    code = text.split("## In a test, in process", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.syspath_prepend(str(HERE.parents[1] / "examples"))
    monkeypatch.delitem(sys.modules, "world_clock", raising=False)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/client.md", "exec"), namespace)
    tests = [function for name, function in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    tests[0]()


def test_a_variant_at_2026_12_01_and_every_version_served() -> None:
    """The example of docs/client.md, and each version the client speaks opens and calls."""
    module = load("sample_server.py")
    with ClientSession(sdk.InProcessTransport(module.mcp)) as session:
        result = session.call("close_ticket", {"id": 7}, ["programmatic/structured"])
    assert result.output("programmatic/structured").value == {"id": 7, "assignee": None, "closedBy": None, "note": None}
    for version in SUPPORTED_VERSIONS:
        with ClientSession(sdk.InProcessTransport(module.mcp), version) as session:
            fallback = session.call("lazy", {"a": 1, "b": 1})
        blocks = fallback.output("assistant/content").value if version == OUTPUTS_VERSION else fallback.content
        assert blocks is not None and blocks[0]["text"] == "1 + 1 = 2", version


def test_a_low_level_server_given_a_listings_cache_hint_lists_and_calls_at_2026_12_01() -> None:
    """lowlevel_server.py's `Server("calc")` has no cache hint, and the SDK refuses its tools/list from 2026-07-28 on
    (on stdio as here, compared above); the same tools on a Server that has one."""
    from mcp.server.caching import CacheHint
    from mcp.server.lowlevel import Server

    server: Server[Any] = Server("calc", cache_hints={"tools/list": CacheHint()})
    serve_tools(server, load("lowlevel_server.py").tools, context=lambda ctx: None)
    with ClientSession(sdk.InProcessTransport(server)) as session:
        assert "add" in session.list_tools() and "add_as_text" in session.list_tools()
        result = session.call("add", {"a": 2, "b": 3}, ["assistant/content"])
    assert result.output("assistant/content").value == [{"type": "text", "text": "sum: 5"}]


def test_no_thread_is_left_behind_and_a_closed_transport_refuses_more() -> None:
    module = load("fastmcp_sample_server.py")
    before = set(threading.enumerate())
    transport = fastmcp_layer.InProcessTransport(module.mcp)
    session = ClientSession(transport)
    with session:
        assert transport.thread.is_alive() and transport.thread in threading.enumerate()
        session.call("plain", {"x": 1})
    assert not transport.thread.is_alive()
    started = set(threading.enumerate()) - before  # anyio's workers, which ran the sync tool: told to stop as the loop ended
    for thread in started:
        thread.join(timeout=10)
    assert not [thread for thread in started if thread.is_alive()]
    session.close()  # twice is harmless
    with pytest.raises(TransportError, match="closed"):
        session.call("plain", {"x": 1})


def test_a_server_that_stops_by_raising_says_why() -> None:
    """What the server raised (here: its lifespan, at start), in the client's error and as its cause."""

    @contextlib.asynccontextmanager
    async def no_database(server: Any) -> AsyncIterator[None]:
        raise LookupError("no database")
        yield

    transport = sdk.InProcessTransport(MCPServer("broken", lifespan=no_database))
    with pytest.raises(TransportError, match="no database") as raised:
        ClientSession(transport).open()
    assert raised.value.__cause__ is transport.failure and transport.failure is not None
    transport.close()
    assert not transport.thread.is_alive()
    with pytest.raises(TypeError, match="mcp_variants.fastmcp.InProcessTransport"):
        sdk.InProcessTransport(load("fastmcp_sample_server.py").mcp)


@pytest.mark.anyio
async def test_an_async_test_calls_it_as_it_is() -> None:
    """The reference client is synchronous; the server runs on its own loop in its own thread, so a call made from an
    async test (blocking it meanwhile) or handed to a worker thread is answered."""
    module = load("fastmcp_sample_server.py")
    with ClientSession(fastmcp_layer.InProcessTransport(module.mcp)) as session:
        direct = session.call("add", {"a": 2, "b": 2}, ["programmatic/structured"])
        in_a_thread = await anyio.to_thread.run_sync(lambda: session.call("add", {"a": 2, "b": 3}, ["programmatic/structured"]))
    assert direct.output("programmatic/structured").value == {"total": 4}
    assert in_a_thread.output("programmatic/structured").value == {"total": 5}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
