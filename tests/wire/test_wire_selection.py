"""Selection of requested outputs, before the tool runs (SEP "Request-time selection";
issue 2 "The protocol core", Selection bullet; docs/choices.md "Error codes").

Every refusal is JSON-RPC -32602 whose data names the reason, the offending selector and
the variants this request may ask for; the tool never runs and nothing is substituted.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.wire import (
    INVALID_PARAMS,
    OLDER_VERSIONS,
    TOOLS,
    TRANSPORTS,
    UI,
    UI_EXTENSIONS,
    VERSIONS,
    check_output_shape,
    only_output,
    pairs,
    sel,
    unique,
    validate,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(90)]

ARGS = {"execute_code": {"code": "1 + 1"}, "list_files": {}, "list_kernels": {}}


def offered(client: Any, tool: str) -> list[dict[str, str]]:
    """The selectors tools/list advertises to this client for `tool` (schemas dropped)."""
    return [{"audience": v["audience"], "format": v["format"]} for v in client.tools()[tool]["outputVariants"]]


@pytest.mark.parametrize("ui", [False, True], ids=["plain", "ui"])
@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_absent_requested_outputs_is_exactly_assistant_content(outputs_client, transport, tool, ui):
    """No requestedOutputs -> exactly one output, assistant/content, even when the tool declares
    (and the request negotiated) more (SEP "Request-time selection": the fixed fallback)."""
    reply = outputs_client(transport, ui).call(tool, ARGS[tool])
    output = only_output(reply, "assistant", "content")
    check_output_shape(output)
    assert reply.result.get("isError") is not True
    assert "content" not in reply.result and "structuredContent" not in reply.result


# (id, tool, requestedOutputs, negotiate ui, reason, index of the offending item or None)
REFUSALS: list[Any] = [
    pytest.param("execute_code", [sel("user", "structured")], False, "undeclared", 0, id="undeclared-user-structured"),
    pytest.param("list_files", [sel("user", "content")], False, "undeclared", 0, id="undeclared-user-content"),
    pytest.param("execute_code", [sel("assistant", "content"), sel("user", "structured")], False, "undeclared", 1,
                 id="undeclared-after-a-good-one"),
    pytest.param("execute_code", [sel("programmatic", "content")], False, "not-a-core-combination", 0, id="non-core-programmatic-content"),
    pytest.param("execute_code", [sel(UI, "structured")], False, "extension-not-negotiated", 0, id="ui-not-negotiated"),
    pytest.param("list_kernels", [sel(UI, "structured")], False, "extension-not-negotiated", 0, id="ui-not-negotiated-listing"),
    pytest.param("execute_code", [sel(UI, "content")], True, "format-not-permitted-by-extension", 0, id="ui-content-not-permitted"),
    pytest.param("execute_code", [sel(UI, "content")], False, "extension-not-negotiated", 0, id="ui-content-not-negotiated"),
    pytest.param("execute_code", [sel("com.example/other", "structured")], False, "extension-not-negotiated", 0,
                 id="unknown-extension-audience"),
    pytest.param("execute_code", [sel("host", "content")], False, "extension-not-negotiated", 0, id="made-up-audience"),
    pytest.param("execute_code", [sel("assistant", "content"), sel("assistant", "content")], False, "duplicate", 1,
                 id="duplicate"),
    pytest.param("execute_code", [sel("programmatic", "structured"), {"audience": "programmatic", "format": "structured", "x": 1}],
                 False, "duplicate", 1, id="duplicate-with-extra-key"),
    pytest.param("execute_code", [], False, "empty", None, id="empty-list"),
    pytest.param("execute_code", {"audience": "assistant", "format": "content"}, False, "malformed", "whole", id="not-a-list"),
    pytest.param("execute_code", "assistant/content", False, "malformed", "whole", id="a-string"),
    pytest.param("execute_code", ["assistant/content"], False, "malformed", 0, id="item-not-an-object"),
    pytest.param("execute_code", [["assistant", "content"]], False, "malformed", 0, id="item-a-list"),
    pytest.param("execute_code", [{"audience": "assistant"}], False, "malformed", 0, id="missing-format"),
    pytest.param("execute_code", [{"format": "content"}], False, "malformed", 0, id="missing-audience"),
    pytest.param("execute_code", [{"audience": "assistant", "format": "markdown"}], False, "malformed", 0, id="bad-format"),
    pytest.param("execute_code", [{"audience": "assistant", "format": "Content"}], False, "malformed", 0, id="format-case"),
    pytest.param("execute_code", [{"audience": 7, "format": "content"}], False, "malformed", 0, id="audience-not-a-string"),
    pytest.param("execute_code", [{"audience": "", "format": "content"}], False, "malformed", 0, id="audience-empty"),
    pytest.param("execute_code", [sel("assistant", "content"), "x"], False, "malformed", 1, id="second-item-malformed"),
]


@pytest.mark.parametrize("tool,requested,ui,reason,culprit", REFUSALS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_selection_refusals_are_32602_naming_the_selector(outputs_client, root, transport, tool, requested, ui, reason, culprit):
    """Each invalid requestedOutputs at 2026-12-01 is -32602 with data.reason, data.selector (the
    offending item, or the whole value when it is not a list) and data.offered (what tools/list
    offers this request); the tool never runs (SEP "If the client requests an undeclared or
    unnegotiated variant, the server MUST reject ... MUST NOT silently substitute"; issue 2)."""
    client = outputs_client(transport, ui)
    marker = unique("ran-")
    args = {"code": f"open({marker!r}, 'w').close()"} if tool == "execute_code" else ARGS[tool]
    reply = client.call(tool, args, requested=requested)
    error = reply.error
    assert error["code"] == INVALID_PARAMS, error
    data = error["data"]
    assert data["reason"] == reason, data
    if culprit == "whole":
        assert data["selector"] == requested
    elif culprit is not None:
        assert data["selector"] == requested[culprit]
    assert data["offered"] == offered(client, tool)
    assert data.get("tool") == tool
    assert not (root / marker).exists(), "the tool ran although its selection was refused"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_null_requested_outputs_is_refused(outputs_client, transport):
    """`requestedOutputs: null` is not a list of selectors: -32602 malformed, never the fallback."""
    reply = outputs_client(transport).call("list_kernels", {}, requestedOutputs=None)
    assert reply.error["code"] == INVALID_PARAMS
    assert reply.error["data"]["reason"] == "malformed"
    assert "selector" in reply.error["data"] and reply.error["data"]["selector"] is None, "the null offender is named"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_selection_is_checked_before_arguments(outputs_client, transport):
    """A bad selector with bad arguments is -32602 (selection first), not an isError result
    (docs/choices.md "Error outputs": arguments are checked after selection)."""
    reply = outputs_client(transport).call("execute_code", {}, requested=[sel("user", "structured")])
    assert reply.error["code"] == INVALID_PARAMS
    assert reply.error["data"]["reason"] == "undeclared"


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_ui_selector_with_extension_negotiated_succeeds(outputs_client, variant_schemas, transport, tool):
    """The same io.modelcontextprotocol/ui/structured selector that is refused without the
    extension succeeds with it: one ui output, valid against the ui variant's schema (SEP
    "MCP Apps integration": an App-only call explicitly requesting the ui output)."""
    reply = outputs_client(transport, ui=True).call(tool, ARGS[tool], requested=[sel(UI, "structured")])
    output = only_output(reply, UI, "structured")
    check_output_shape(output)
    validate(variant_schemas[(tool, UI, "structured")], output["structuredContent"], f"{tool} ui output")


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_requested_outputs_before_2026_12_01_is_32602(connect, root, transport, version):
    """requestedOutputs on a request older than 2026-12-01 is -32602 (reason
    requestedOutputs-not-in-this-version), even for assistant/content, and the tool does not run
    (SEP: a client MUST NOT send it; issue 2 selection bullet)."""
    client = connect(transport, version)
    marker = unique("ran-")
    reply = client.call("execute_code", {"code": f"open({marker!r}, 'w').close()"}, requested=[sel("assistant", "content")])
    assert reply.error["code"] == INVALID_PARAMS, reply.message
    assert reply.error["data"]["reason"] == "requestedOutputs-not-in-this-version"
    assert not (root / marker).exists(), "the tool ran although requestedOutputs was refused"


@pytest.mark.parametrize("transport,version", pairs(versions=OLDER_VERSIONS))
def test_ui_negotiated_does_not_enable_requested_outputs_before_2026_12_01(connect, transport, version):
    """Negotiating the ui extension at an older version does not make a ui selector acceptable:
    still -32602 requestedOutputs-not-in-this-version (SEP "Backward compatibility")."""
    reply = connect(transport, version, UI_EXTENSIONS).call("list_kernels", {}, requested=[sel(UI, "structured")])
    assert reply.error["code"] == INVALID_PARAMS
    assert reply.error["data"]["reason"] == "requestedOutputs-not-in-this-version"


@pytest.mark.parametrize("transport,version", pairs(versions=VERSIONS))
def test_unknown_tool_is_32602(connect, transport, version):
    """tools/call of a tool that does not exist is -32602, at every version (docs/choices.md)."""
    reply = connect(transport, version).call(unique("no_such_tool_"), {})
    assert reply.error["code"] == INVALID_PARAMS, reply.message
    assert sorted(reply.error["data"]["available"]) == sorted(set(reply.error["data"]["available"]))
    assert set(TOOLS) <= set(reply.error["data"]["available"])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unknown_tool_with_requested_outputs_is_32602(outputs_client, transport):
    """An unknown tool with a selector is still -32602 (nothing to select from), never a result."""
    reply = outputs_client(transport).call(unique("no_such_tool_"), {}, requested=[sel("assistant", "content")])
    assert reply.error["code"] == INVALID_PARAMS
