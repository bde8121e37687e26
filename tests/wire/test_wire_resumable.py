"""A run survives a dropped stream without tasks (issue 21): streamable HTTP resumability. Every POST's SSE
stream starts with a priming event (an id, empty data, the `retry` field), every event has an id, and a GET
with `Last-Event-ID` replays what came after it, through the bridge (a tunnelled result unwrapped)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.wire, pytest.mark.timeout(60)]

VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


def events(body: str) -> list[dict[str, str]]:
    """An SSE body as its events: field → value."""
    parsed = []
    for block in body.replace("\r\n", "\n").strip().split("\n\n"):
        event: dict[str, str] = {}
        for line in block.split("\n"):
            key, _, value = line.partition(":")
            event[key] = value.removeprefix(" ")
        parsed.append(event)
    return parsed


def session(url: str) -> str:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "resume", "version": "0"}}}
    reply = httpx.post(url, json=init, headers={"Accept": ACCEPT, "MCP-Protocol-Version": VERSION})
    sid = reply.headers["mcp-session-id"]
    httpx.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
               headers={"Accept": ACCEPT, "MCP-Protocol-Version": VERSION, "Mcp-Session-Id": sid})
    return sid


def call(url: str, headers: dict[str, str], params: dict[str, Any]) -> list[dict[str, str]]:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    reply = httpx.post(url, json=body, headers={"Accept": ACCEPT, **headers}, timeout=30)
    assert reply.headers["content-type"].startswith("text/event-stream"), reply.headers
    return events(reply.text)


def replayed(url: str, headers: dict[str, str]) -> dict[str, Any]:
    """The first message a GET with Last-Event-ID replays (the stream stays open after it)."""
    with httpx.stream("GET", url, headers={"Accept": "text/event-stream", **headers}, timeout=10) as reply:
        assert reply.status_code == 200, reply.read()
        for line in reply.iter_lines():
            if line.startswith("data:") and line[5:].strip():
                message: dict[str, Any] = json.loads(line[5:])
                return message
    raise AssertionError("the replay ended without a message")


def test_the_stream_is_primed_and_replayed_after_last_event_id(pool):
    url = pool.http_server().url
    headers = {"MCP-Protocol-Version": VERSION, "Mcp-Session-Id": session(url)}
    sent = call(url, headers, {"name": "execute_code", "arguments": {"code": "print(6 * 7)"}})
    priming, *rest = sent
    assert priming.get("id") and priming.get("data") == "" and int(priming["retry"]) > 0, sent
    assert rest and all(e.get("id") for e in rest), sent
    assert replayed(url, {"Last-Event-ID": priming["id"], **headers}) == json.loads(rest[-1]["data"])


def test_a_tunnelled_result_is_replayed_unwrapped(pool):
    """2025-11-25's CreateTaskResult goes through the bridge's tunnel (sdk/_task_wire.py): replayed on a GET,
    it comes out of it too."""
    url = pool.http_server().url
    headers = {"MCP-Protocol-Version": VERSION, "Mcp-Session-Id": session(url)}
    priming, *rest = call(url, headers, {"name": "execute_code", "arguments": {"code": "1"}, "task": {}})
    again = replayed(url, {"Last-Event-ID": priming["id"], **headers})
    assert again == json.loads(rest[-1]["data"]) and "task" in again["result"], again
    assert "io.github.mcp-variants" not in json.dumps(again), again
