"""Progress keep-alives during a long 2026-12-01 call, on both transports (issue 2: the
bridge is covered on both transports; field guide: clients give up after minutes of
silence). Slow: the first test sleeps 6 s in a kernel (the server reports progress every 5 s by default)."""

from __future__ import annotations

import pytest

from support.wire import (
    TRANSPORTS,
    only_output,
    output_for,
    outputs_of,
    sel,
    text_of,
    unique,
)

pytestmark = [pytest.mark.wire, pytest.mark.slow, pytest.mark.timeout(120)]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_progress_notifications_precede_the_result(outputs_client, transport):
    """A 2026-12-01 call with params._meta.progressToken whose code sleeps 6 s gets at least one
    notifications/progress carrying that token before its response, with increasing progress;
    the response then carries the requested outputs, including a 1 MB programmatic output that
    (on HTTP) travels in the same SSE stream as the notifications."""
    token = unique("progress-")
    end = unique("end-")
    reply = outputs_client(transport).call(
        "execute_code",
        {"code": f"import time; time.sleep(6); print({end!r}); print('x' * 1_000_000)"},
        requested=[sel("assistant", "content"), sel("programmatic", "structured")],
        meta={"progressToken": token},
        timeout=60,
    )
    progress = reply.progress(token)
    assert progress, f"no progress for {token!r}; notifications: {reply.notifications}"
    values = [n["params"]["progress"] for n in progress]
    assert values == sorted(values) and all(isinstance(v, (int, float)) for v in values)
    if transport == "http":
        assert reply.headers is not None and reply.headers["content-type"].startswith("text/event-stream")
    outputs = outputs_of(reply)
    assert reply.result.get("isError") is not True
    assert end in text_of(output_for(outputs, "assistant", "content")["content"])
    printed = "".join(o.get("text", "") for o in output_for(outputs, "programmatic", "structured")["structuredContent"]["outputs"])
    assert printed.count("x") >= 1_000_000


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_integer_progress_token(outputs_client, transport):
    """An integer progressToken is echoed as that integer (JSON-RPC: string or number). A keep-alive every 0.5 s
    (`progress_interval`): the default's 5 s is the test above's."""
    token = int(unique("")[:8], 16)
    reply = outputs_client(transport).call(
        "execute_code", {"code": "import time; time.sleep(1.5)", "progress_interval": 0.5},
        requested=[sel("assistant", "content")], meta={"progressToken": token}, timeout=60,
    )
    assert reply.progress(token), reply.notifications
    only_output(reply, "assistant", "content")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_stream_sends_what_a_run_prints_while_it_runs(outputs_client, transport):
    """With `stream` (the default, as in jupyter-mcp-server), what the code prints reaches the client as a
    progress notification before the run ends; with `stream: false` and `progress_interval: 0`, nothing does."""
    client = outputs_client(transport)
    printed = unique("streamed-")
    code = f"import time; print({printed!r}, flush=True); time.sleep(2)"
    token = unique("stream-")
    reply = client.call("execute_code", {"code": code}, requested=[sel("assistant", "content")], meta={"progressToken": token}, timeout=60)
    messages = [n["params"].get("message", "") for n in reply.progress(token)]
    assert any(printed in m for m in messages), messages
    assert printed in text_of(only_output(reply, "assistant", "content")["content"])

    quiet = unique("quiet-")
    reply = client.call("execute_code", {"code": code, "stream": False, "progress_interval": 0}, requested=[sel("assistant", "content")],
                        meta={"progressToken": quiet}, timeout=60)
    assert reply.progress(quiet) == [], reply.notifications
