"""execute_code on real kernels, through the wire, at every version (issue 2 "Tools in this
issue" and "Errors"; SEP "User-visible media" and "Errors")."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest

from support.wire import (
    LEGACY_STRUCTURED_VERSIONS,
    OLDER_VERSIONS,
    TRANSPORTS,
    UI,
    WireClient,
    check_output_shape,
    only_output,
    output_for,
    outputs_of,
    pairs,
    sel,
    selectors_of,
    text_of,
    unique,
    validate,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]

PLOT = (
    "import matplotlib; matplotlib.use('module://matplotlib_inline.backend_inline'); "
    "import matplotlib.pyplot as plt; plt.plot([1,2,3]); plt.show()"
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PNG_B64_PREFIX = "iVBORw0KGgo"  # base64 of the PNG signature
ALL_EXECUTE = [("assistant", "content"), ("assistant", "structured"), ("programmatic", "structured"), ("user", "content"),
               (UI, "structured")]


def legacy_text(result: dict[str, Any]) -> str:
    return text_of(result["content"])


def error_shape(value: dict[str, Any], what: str) -> dict[str, Any]:
    """The declared error shape (variants/shapes/error.json): error.type and error.message."""
    error = value.get("error")
    assert isinstance(error, dict), f"{what}: no `error` object in {json.dumps(value)[:800]}"
    assert isinstance(error.get("type"), str) and error["type"], what
    assert isinstance(error.get("message"), str) and error["message"], what
    return error


# ---- print ------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport,version", pairs())
def test_print_output_comes_back(connect, transport, version):
    """What the code prints is in the assistant's representation at every version: the
    assistant/content output at 2026-12-01, `content` before (issue 2: execute_code proves the
    core end to end)."""
    token = unique("printed-")
    reply = connect(transport, version).call("execute_code", {"code": f"print({token!r})"})
    text = text_of(only_output(reply, "assistant", "content")["content"]) if version == "2026-12-01" else legacy_text(reply.result)
    assert token in text
    assert reply.result.get("isError") is not True


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_state_persists_between_calls(outputs_client, transport):
    """Kernel state persists between calls on one client, as in a notebook (tool description)."""
    client = outputs_client(transport)
    name = unique("v_")
    client.call("execute_code", {"code": f"{name} = 41"})
    reply = client.call("execute_code", {"code": f"print({name} + 1)"}, requested=[sel("programmatic", "structured")])
    outputs = only_output(reply, "programmatic", "structured")["structuredContent"]["outputs"]
    assert {"output_type": "stream", "name": "stdout", "text": "42\n"} in outputs


# ---- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_plot_comes_back_as_png_for_the_user_and_by_reference_for_the_assistant(outputs_client, variant_schemas, transport):
    """A matplotlib plot: user/content has an image block (image/png, base64 that decodes to a
    PNG); assistant/structured references it by mimeType and byte count and holds no base64;
    programmatic/structured keeps the whole mime bundle (issue 2 tools bullet; docs/choices.md
    "Output budgets"; SEP "User-visible media")."""
    reply = outputs_client(transport).call(
        "execute_code", {"code": PLOT},
        requested=[sel("user", "content"), sel("assistant", "structured"), sel("programmatic", "structured")],
        timeout=120,
    )
    assert reply.result.get("isError") is not True, json.dumps(reply.result)[:2000]
    outputs = outputs_of(reply)
    assert selectors_of(outputs) == [("assistant", "structured"), ("programmatic", "structured"), ("user", "content")]

    user = output_for(outputs, "user", "content")
    check_output_shape(user)
    images = [b for b in user["content"] if b["type"] == "image"]
    assert len(images) == 1, user["content"]
    assert images[0]["mimeType"] == "image/png"
    png = base64.b64decode(images[0]["data"], validate=True)
    assert png.startswith(PNG_MAGIC)

    assistant = output_for(outputs, "assistant", "structured")["structuredContent"]
    validate(variant_schemas[("execute_code", "assistant", "structured")], assistant, "assistant/structured")
    refs = [i for i in assistant["outputs"] if isinstance(i, dict) and i.get("type") == "image"]
    assert [{k: v for k, v in ref.items() if k != "uri"} for ref in refs] == [{"type": "image", "mimeType": "image/png", "bytes": len(png)}]
    assert assistant["images"] == 1
    assert PNG_B64_PREFIX not in json.dumps(assistant), "base64 image data in assistant/structured"
    # the image is its output's resource: read whole, as a blob, by the client that ran it (docs/choices.md "Outputs as resources")
    assert refs[0]["uri"].startswith("mcp-variants://runs/"), refs
    (read, *others) = outputs_client(transport).request("resources/read", {"uri": refs[0]["uri"]},
                                                            headers={"Mcp-Name": refs[0]["uri"]}).result["contents"]
    assert read["mimeType"] == "image/png" and base64.b64decode(read["blob"]) == png
    assert [c["mimeType"] for c in others] == ["text/plain"]  # the bundle's other types follow the richest

    programmatic = output_for(outputs, "programmatic", "structured")["structuredContent"]
    validate(variant_schemas[("execute_code", "programmatic", "structured")], programmatic, "programmatic/structured")
    bundles = [o["data"] for o in programmatic["outputs"] if o["output_type"] in ("display_data", "execute_result")]
    assert any(base64.b64decode(b.get("image/png", "")).startswith(PNG_MAGIC) for b in bundles)


@pytest.mark.parametrize("transport,version", pairs(versions=LEGACY_STRUCTURED_VERSIONS))
def test_plot_structured_content_references_the_image_without_base64(connect, transport, version):
    """Legacy structuredContent is assistant/structured: the plot is referenced by mimeType and
    bytes, never inlined (docs/choices.md "Output budgets")."""
    result = connect(transport, version).call("execute_code", {"code": PLOT}, timeout=120).result
    assert result.get("isError") is not True
    structured = result["structuredContent"]
    assert [i["mimeType"] for i in structured["outputs"] if isinstance(i, dict)] == ["image/png"]
    assert PNG_B64_PREFIX not in json.dumps(structured)


# ---- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_raising_cell_is_is_error_with_one_output_per_selector(outputs_client, variant_schemas, transport):
    """1/0 is a tool error: isError true with one output per requested selector (never an empty
    outputs array); structured ones follow the declared error shape (error.type, error.message,
    error.ename ZeroDivisionError), content ones say what was raised (SEP "Errors"; issue 2
    "Errors"; docs/choices.md "Error outputs")."""
    reply = outputs_client(transport, ui=True).call(
        "execute_code", {"code": "1/0"}, requested=[sel(a, f) for a, f in ALL_EXECUTE]
    )
    result = reply.result
    assert result.get("isError") is True
    assert "content" not in result and "structuredContent" not in result
    outputs = outputs_of(reply)
    assert selectors_of(outputs) == sorted(ALL_EXECUTE)
    for output in outputs:
        check_output_shape(output)
        where = f"{output['audience']}/{output['format']}"
        if output["format"] == "structured":
            error = error_shape(output["structuredContent"], where)
            assert error["type"] == "execution-error", where
            assert error.get("ename") == "ZeroDivisionError", where
            assert "division by zero" in error["message"], where
        else:
            assert "ZeroDivisionError" in text_of(output["content"]), where


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_raising_cell_is_is_error_in_legacy_eras(connect, transport, version):
    """Before 2026-12-01 a raising cell is `isError: true` with content naming the exception and
    no `outputs` (issue 2 "Errors"; docs/choices.md: legacy errors carry content only)."""
    result = connect(transport, version).call("execute_code", {"code": "1/0"}).result
    assert result.get("isError") is True
    assert "outputs" not in result
    assert "ZeroDivisionError" in legacy_text(result)
    assert "structuredContent" not in result


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_output_before_the_error_is_kept(outputs_client, transport):
    """What a failing cell printed before raising is in its error outputs, for every audience
    (docs/choices.md "Error outputs")."""
    token = unique("before-")
    reply = outputs_client(transport).call(
        "execute_code", {"code": f"print({token!r}); raise ValueError('boom')"},
        requested=[sel("assistant", "content"), sel("programmatic", "structured")],
    )
    assert reply.result["isError"] is True
    outputs = outputs_of(reply)
    assert token in text_of(output_for(outputs, "assistant", "content")["content"])
    programmatic = output_for(outputs, "programmatic", "structured")["structuredContent"]
    assert programmatic["error"]["ename"] == "ValueError"
    assert token in json.dumps(programmatic["outputs"])


def _timeout_then_alive(client: WireClient, requested: Any) -> tuple[Any, float, Any]:
    started = time.monotonic()
    reply = client.call("execute_code", {"code": "import time; time.sleep(30)", "timeout": 1}, requested=requested, timeout=40)
    elapsed = time.monotonic() - started
    token = unique("alive-")
    after = client.call("execute_code", {"code": f"print({token!r})"})
    return reply, elapsed, (after, token)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_timeout_interrupts_and_the_kernel_survives(outputs_client, transport):
    """timeout=1 on a 30 s sleep: isError with error.type "timeout" within a few seconds, and
    the kernel runs the next call (issue 2 tools; docs/choices.md error types)."""
    client = outputs_client(transport)
    reply, elapsed, (after, token) = _timeout_then_alive(
        client, [sel("assistant", "structured"), sel("assistant", "content"), sel("programmatic", "structured")]
    )
    assert elapsed < 10, f"the timeout took {elapsed:.1f} s"
    assert reply.result.get("isError") is True
    outputs = outputs_of(reply)
    assert len(outputs) == 3
    for output in outputs:
        if output["format"] == "structured":
            assert error_shape(output["structuredContent"], output["audience"])["type"] == "timeout"
        else:
            assert text_of(output["content"])
    assert token in text_of(only_output(after, "assistant", "content")["content"])


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_timeout_in_legacy_eras(connect, transport, version):
    """The same timeout before 2026-12-01: isError with content, quickly, kernel alive after."""
    reply, elapsed, (after, token) = _timeout_then_alive(connect(transport, version), None)
    assert elapsed < 10, f"the timeout took {elapsed:.1f} s"
    assert reply.result.get("isError") is True
    assert "outputs" not in reply.result
    assert "timed out" in legacy_text(reply.result).lower()
    assert token in legacy_text(after.result)


@pytest.mark.parametrize(
    "arguments",
    [{}, {"code": 5}, {"code": "1", "timeout": -1}, {"code": "1", "bogus": True}],
    ids=["missing-code", "code-not-a-string", "negative-timeout", "unknown-argument"],
)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_invalid_arguments_are_a_tool_error(outputs_client, root, transport, arguments):
    """Arguments that break inputSchema are isError true with error.type "invalid-arguments" in
    every requested structured output, not a protocol error (docs/choices.md "Error outputs")."""
    reply = outputs_client(transport).call(
        "execute_code", arguments, requested=[sel("assistant", "structured"), sel("programmatic", "structured"), sel("assistant",
                                                                                                                     "content")]
    )
    assert reply.result.get("isError") is True, reply.message
    outputs = outputs_of(reply)
    assert len(outputs) == 3
    for output in outputs:
        if output["format"] == "structured":
            assert error_shape(output["structuredContent"], output["audience"])["type"] == "invalid-arguments"
        else:
            assert "code" in text_of(output["content"]) or "argument" in text_of(output["content"]).lower()


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_invalid_arguments_in_legacy_eras(connect, transport, version):
    """Missing `code` before 2026-12-01: isError true with a content message, no outputs."""
    result = connect(transport, version).call("execute_code", {}).result
    assert result.get("isError") is True
    assert "outputs" not in result
    assert "code" in legacy_text(result)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_long_output_is_capped_for_the_model_and_whole_for_programs(outputs_client, transport):
    """A 60 KB print: assistant/content is capped (default 20,000 bytes) with a marker that names the
    resource holding the rest (test_wire_outputs.py reads it); programmatic/structured in the same call has all of it (docs/choices.md
    "Output budgets"; SEP: each output tailored to its audience)."""
    reply = outputs_client(transport).call(
        "execute_code", {"code": "print('y' * 60000)"},
        requested=[sel("assistant", "content"), sel("programmatic", "structured")],
    )
    outputs = outputs_of(reply)
    text = text_of(output_for(outputs, "assistant", "content")["content"])
    assert len(text.split("\n", 1)[0]) <= 20000, "assistant text over the default 20,000-byte cap"
    assert 'read_output(uri="mcp-variants://runs/' in text, "the marker names the call that reads the rest"
    programmatic = output_for(outputs, "programmatic", "structured")["structuredContent"]
    assert "".join(o.get("text", "") for o in programmatic["outputs"]).count("y") == 60000
    assert programmatic["truncatedBytes"] == 0
