"""The reference client and host router against the real server, on stdio and streamable HTTP.

What these prove, on the wire: nothing meant for the user, the program or the view reaches
the model context; nothing but the ui output reaches the view; result `_meta` reaches no
sink; `requestedOutputs` is never written at an older version (the bytes are recorded
below the client: on the stdio pipe, in the HTTP request); every mode picks the right
selectors on the real tools.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_variants.client import (
    ClientSession,
    Delivery,
    Host,
    HostRouter,
    Mode,
    SelectionError,
    TransportError,
)
from mcp_variants.client.http import HttpTransport
from mcp_variants.client.modes import select
from mcp_variants.protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_EXTENSION,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    Selector,
)
from mcp_variants.protocol.versions import Era
from support.servers import HttpServer

from .conftest import OLDER_VERSIONS, TRANSPORTS, Live, LivePool

CALLS: dict[str, dict[str, Any]] = {
    "execute_code": {"code": "print('client-test marker')"},
    "list_files": {},
    "list_kernels": {},
}

# What each mode must pick on the three tools every version of the server has.
EXPECTED: dict[str, dict[Mode, tuple[Selector, ...]]] = {
    "execute_code": {Mode.USER_DISPLAY: (USER_CONTENT,)},  # no table: user/content
    "list_files": {Mode.USER_DISPLAY: (USER_STRUCTURED,)},  # a table: user/structured
    "list_kernels": {Mode.USER_DISPLAY: (USER_STRUCTURED,)},
}
for _tool in EXPECTED.values():
    _tool.update(
        {
            Mode.CONVERSATIONAL: (ASSISTANT_CONTENT,),
            Mode.CODE: (PROGRAMMATIC_STRUCTURED,),
            Mode.STRUCTURED_MODEL: (ASSISTANT_STRUCTURED,),
            Mode.APPS: (ASSISTANT_CONTENT, UI_STRUCTURED),
        }
    )

SINK_AUDIENCE = {"model": "assistant", "user": "user", "program": "programmatic", "view": UI_EXTENSION}


class Sinks:
    def __init__(self) -> None:
        self.got: dict[str, list[Delivery]] = {name: [] for name in SINK_AUDIENCE}

    def router(self) -> HostRouter:
        return HostRouter(**{name: items.append for name, items in self.got.items()})

    def dump(self, name: str | None = None) -> str:
        names = [name] if name else list(self.got)
        return json.dumps([d.payload for n in names for d in self.got[n]])


def assert_meta_reached_no_sink(meta: Any, sinks: Sinks) -> None:
    assert isinstance(meta, dict) and meta, "the server sent no result _meta: this check would prove nothing"
    everything = sinks.dump()
    for key, value in meta.items():
        assert key not in everything, f"result _meta key {key} reached a sink"
        assert json.dumps(value) not in everything
    assert all(d.payload is not meta for items in sinks.got.values() for d in items)


def assert_isolated(sinks: Sinks) -> None:
    """Every delivery sits in the sink of its own audience: model gets assistant outputs only,
    the view the ui output only, and so on."""
    for name, items in sinks.got.items():
        for delivery in items:
            assert delivery.selector is not None
            assert delivery.selector.audience == SINK_AUDIENCE[name], (name, delivery.selector)


# ---- modes choose the right selectors -------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_modes_pick_the_right_selectors_on_the_real_tools(live: Any, transport: str) -> None:
    session = live(transport, ui=True).session
    tools = session.list_tools()
    assert set(EXPECTED) <= {t.name for t in tools}
    for name, wanted in EXPECTED.items():
        for mode, selectors in wanted.items():
            chosen = Host(session, HostRouter()).selection(name, mode)
            assert (chosen.selectors, chosen.fallback) == (selectors, None), (name, mode)
    for info in tools:  # every tool, however many the server has today
        for mode in Mode:
            chosen = select(mode, info, session.era, session.negotiated)
            assert all(info.declares(s) for s in chosen.selectors), (info.name, mode, chosen)
            if chosen.fallback is not None:
                assert chosen.selectors == (ASSISTANT_CONTENT,), (info.name, mode)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_apps_mode_without_the_extension_falls_back_explicitly(live: Any, transport: str) -> None:
    lv = live(transport)
    assert UI_EXTENSION not in lv.session.negotiated
    assert all(not t.declares(UI_STRUCTURED) for t in lv.session.list_tools())  # not listed unnegotiated
    sinks = Sinks()
    call = Host(lv.session, sinks.router()).call("list_files", {}, Mode.APPS)
    assert call.selection.selectors == (ASSISTANT_CONTENT,) and "not negotiated" in (
        call.selection.fallback or ""
    )
    assert sinks.got["view"] == [] and [d.selector for d in sinks.got["model"]] == [ASSISTANT_CONTENT]


# ---- routing on real results ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(Mode), ids=lambda m: m.value)
@pytest.mark.parametrize("tool", list(CALLS))
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_each_mode_delivers_to_its_audience_only(live: Any, transport: str, tool: str, mode: Mode) -> None:
    lv: Live = live(transport, ui=True)
    sinks = Sinks()
    call = Host(lv.session, sinks.router()).call(tool, CALLS[tool], mode)
    assert call.report.ok, call.report.dropped
    assert call.result.requested == EXPECTED[tool][mode]
    assert sorted(str(d.selector) for items in sinks.got.values() for d in items) == sorted(
        map(str, EXPECTED[tool][mode])
    )
    assert_isolated(sinks)
    assert_meta_reached_no_sink(call.result.meta, sinks)


@pytest.mark.parametrize("tool", list(CALLS))
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_variant_at_once_each_reaches_only_its_sink(live: Any, transport: str, tool: str) -> None:
    """A host with every consumer active asks for every declared variant in one call."""
    lv: Live = live(transport, ui=True)
    declared = lv.session.list_tools().get(tool).selectors
    assert {ASSISTANT_CONTENT, UI_STRUCTURED, PROGRAMMATIC_STRUCTURED} <= set(declared)
    result = lv.session.call(tool, CALLS[tool], declared)
    sinks = Sinks()
    report = sinks.router().route(result)
    assert report.ok, report.dropped
    assert_isolated(sinks)
    by_audience = {
        name: [o.value for o in result.outputs if o.selector.audience == audience]
        for name, audience in SINK_AUDIENCE.items()
    }
    for name in SINK_AUDIENCE:  # identity: the model holds the assistant outputs and nothing else, etc.
        assert sorted(map(id, (d.payload for d in sinks.got[name]))) == sorted(map(id, by_audience[name])), (
            name
        )
    assert len(sinks.got["view"]) == 1 and sinks.got["view"][0].selector == UI_STRUCTURED
    for foreign in ("user", "program", "view"):
        for delivery in sinks.got[foreign]:
            assert all(delivery.payload is not d.payload for d in sinks.got["model"])
    assert_meta_reached_no_sink(result.meta, sinks)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_error_result_stays_with_the_requested_audience(live: Any, transport: str) -> None:
    sinks = Sinks()
    call = Host(live(transport, ui=True).session, sinks.router()).call(
        "execute_code", {"code": "1/0"}, Mode.CODE
    )
    assert call.result.is_error
    assert sinks.got["model"] == [] and sinks.got["user"] == [] and sinks.got["view"] == []
    (delivery,) = sinks.got["program"]
    assert delivery.is_error and delivery.payload["error"]["ename"] == "ZeroDivisionError"


# ---- what goes on the wire --------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_requested_outputs_is_written_at_2026_12_01(live: Any, transport: str) -> None:
    """Positive control for the test below: the recording does see the field when it is sent."""
    lv: Live = live(transport, ui=True)
    mark = len(lv.written)
    Host(lv.session, Sinks().router()).call("list_kernels", {}, Mode.APPS)
    (body,) = lv.bodies_since(mark)
    sent = json.loads(body)
    assert sent["params"]["requestedOutputs"] == [ASSISTANT_CONTENT.to_wire(), UI_STRUCTURED.to_wire()]
    assert sent["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-12-01"
    if transport == "http":
        headers = lv.headers[-1]
        assert headers["mcp-protocol-version"] == "2026-12-01"
        assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "list_kernels"
        assert "text/event-stream" in headers["accept"] and "application/json" in headers["accept"]


@pytest.mark.parametrize("version", OLDER_VERSIONS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_requested_outputs_never_written_at_older_versions(live: Any, transport: str, version: str) -> None:
    lv: Live = live(transport, version, ui=True)
    host_sinks = Sinks()
    host = Host(lv.session, host_sinks.router())
    for tool, arguments in CALLS.items():
        for mode in Mode:
            call = host.call(tool, arguments, mode)
            assert call.result.legacy and call.report.ok
            assert (call.selection.fallback is None) == (mode is Mode.CONVERSATIONAL)
    mark = len(lv.written)
    for selectors in ([PROGRAMMATIC_STRUCTURED], [ASSISTANT_CONTENT, UI_STRUCTURED], [USER_CONTENT]):
        with pytest.raises(SelectionError, match="has no requestedOutputs"):
            lv.session.call("list_files", {}, selectors)
    assert len(lv.written) == mark, "a refused selection still wrote bytes"
    assert lv.written, "nothing was recorded: this check would prove nothing"
    assert all(b"requestedOutputs" not in body for body in lv.written)
    # Legacy policy: content to the model, structuredContent to the program, nothing else.
    assert host_sinks.got["user"] == [] and host_sinks.got["view"] == []
    assert {d.legacy_field for d in host_sinks.got["model"]} == {"content"}
    has_structured = Era.CONTENT_ONLY is not lv.session.era
    assert bool(host_sinks.got["program"]) == has_structured
    assert {d.legacy_field for d in host_sinks.got["program"]} <= {"structuredContent"}
    if transport == "http":
        assert all(h.get("mcp-protocol-version") in (None, version) for h in lv.headers)
        if version != "2026-07-28":
            assert lv.session.transport.session_id is not None  # handshake session over HTTP


# ---- HTTP bearer token ------------------------------------------------------------------------------


def test_http_bearer_token(pool: LivePool, tmp_path: Any) -> None:
    server = HttpServer(pool.root, "--token", "s3cret-token", log=tmp_path / "token.log")
    try:
        good = ClientSession(HttpTransport(server.url, token="s3cret-token"))
        with good:
            assert "list_files" in good.list_tools()
        with pytest.raises(TransportError, match="HTTP 401"):
            ClientSession(HttpTransport(server.url)).open()
    finally:
        server.close()
