"""The stream rules of each era on streamable HTTP (issue 37). Up to 2025-11-25 a response stream is resumable: its
events have ids, they are kept (sdk/_events.py), and a GET with `Last-Event-ID` replays them
(test_wire_resumable.py). From 2026-07-28 on, "Resumable SSE streams via Last-Event-ID are not supported": nothing
of such a request is kept, and closing its response stream is how a client cancels it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.servers import HttpServer
from support.wire import envelope, unique

from .test_wire_resumable import ACCEPT, events, session
from .test_wire_resumable import VERSION as RESUMABLE_VERSION

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]

STATELESS = "2026-07-28"


def stateless_headers(method: str, name: str | None = None) -> dict[str, str]:
    return {"Accept": ACCEPT, "MCP-Protocol-Version": STATELESS, "Mcp-Method": method, **({"Mcp-Name": name} if name else {})}


def stateless_request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": {
        **params.get("_meta", {}), **envelope(STATELESS, None)}}}


def execute(url: str, code: str, timeout: float = 60) -> dict[str, Any]:
    """The result of a 2026-07-28 execute_code, read to its end."""
    body = stateless_request(2, "tools/call", {"name": "execute_code", "arguments": {"code": code, "timeout": 30}})
    reply = httpx.post(url, json=body, headers=stateless_headers("tools/call", "execute_code"), timeout=timeout)
    messages = ([json.loads(e["data"]) for e in events(reply.text) if e.get("data")]
                if reply.headers["content-type"].startswith("text/event-stream") else [reply.json()])
    result: dict[str, Any] = next(m for m in messages if m.get("id") == 2)["result"]
    return result


def test_closing_a_stateless_response_stream_interrupts_the_run(pool):
    """A 2026-07-28 execute_code of a long sleep, its response stream closed once the run reported progress: the
    kernel is interrupted, not restarted. The next call runs at once on the same kernel (it reads what the
    cancelled run set before sleeping); had the sleep gone on, that call would have ended in its own timeout."""
    url = pool.http_server().url
    name, token = unique("cancelled_"), unique("kept-")
    body = stateless_request(1, "tools/call", {
        "name": "execute_code", "arguments": {"code": f"import time; {name} = {token!r}; time.sleep(600)", "progress_interval": 0.5},
        "_meta": {"progressToken": name}})
    with httpx.stream("POST", url, json=body, headers=stateless_headers("tools/call", "execute_code"), timeout=60) as reply:
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream"), reply.headers
        for line in reply.iter_lines():  # the run is under way once it reports progress
            if line.startswith("data:") and json.loads(line[5:]).get("method") == "notifications/progress":
                break
        else:
            raise AssertionError("the stream ended before the run reported progress")
    after = execute(url, f"print({name})")
    assert after.get("isError") is not True and token in json.dumps(after), after


def test_a_stateless_requests_events_are_not_kept(tmp_path: Path):
    """A server of its own, so that the only events its store holds are this test's. A 2025-11-25 request's
    events get consecutive ids from the store; a 2026-07-28 request in between carries no event id, and takes none:
    the next 2025-11-25 stream starts right after the first. A GET, with Last-Event-ID or not, is refused at 2026-07-28
    (405, POST only): there is no stream to resume."""
    with HttpServer(tmp_path, log=tmp_path / "server.log") as server:
        url = server.url
        headers = {"Accept": ACCEPT, "MCP-Protocol-Version": RESUMABLE_VERSION, "Mcp-Session-Id": session(url)}

        def listed(request_id: int) -> list[dict[str, str]]:
            reply = httpx.post(url, json={"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}, headers=headers, timeout=30)
            assert reply.headers["content-type"].startswith("text/event-stream"), reply.headers
            return events(reply.text)

        first = [int(e["id"]) for e in listed(10)]
        assert len(first) >= 2 and first == list(range(first[0], first[0] + len(first))), first  # priming, result

        stateless = httpx.post(url, json=stateless_request(11, "tools/list", {}), headers=stateless_headers("tools/list"), timeout=30)
        assert stateless.status_code == 200 and "result" in stateless.text, stateless.text
        if stateless.headers["content-type"].startswith("text/event-stream"):
            assert not any("id" in e for e in events(stateless.text)), stateless.text

        second = [int(e["id"]) for e in listed(12)]
        assert second[0] == first[-1] + 1, (first, second)

        last = str(first[0])
        refused = httpx.get(url, headers={**stateless_headers("tools/list"), "Last-Event-ID": last}, timeout=10)
        assert refused.status_code == 405 and refused.headers.get("allow") == "POST", (refused.status_code, refused.headers)
        with httpx.stream("GET", url, headers={**headers, "Accept": "text/event-stream", "Last-Event-ID": last}, timeout=10) as replay:
            assert replay.status_code == 200, replay.read()
            data = next(line for line in replay.iter_lines() if line.startswith("data:") and line[5:].strip())
            assert json.loads(data[5:])["id"] == 10, data
