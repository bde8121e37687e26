"""The TypeScript SDK's client (@modelcontextprotocol/sdk 1.32.2) calls our tools at its own version.

ts_sdk_client.mjs connects with StreamableHTTPClientTransport (our shared HTTP server) or
StdioClientTransport (a server it launches itself), negotiates 2025-11-25 by initialize, lists
the tools and calls execute_code, list_files, list_kernels and a failing execute_code. The SDK
validates structuredContent against the outputSchema itself and throws when a tool with an
outputSchema answers without structuredContent; here every result is checked again in Python,
on the SDK's return value and on the raw JSON-RPC messages the transport saw.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.outside import (
    CALLS,
    FAILING_CALL,
    HANDSHAKE_VERSION,
    HERE,
    TS_SDK_VERSION,
    HttpServer,
    check_legacy_success,
    check_legacy_tool_listing,
    check_no_sep3279_fields,
    check_tool_error,
    node_env,
    node_package,
    text_of,
)
from support.processes import wait_gone_from
from support.servers import serve_command

SCRIPT = HERE / "ts_sdk_client.mjs"
TIMEOUT = 180


def run_ts_client(node_bin: Path, config: dict[str, Any]) -> dict[str, Any]:
    node_package("@modelcontextprotocol/sdk/dist/esm/client/index.js")
    config = {**config, "calls": [list(call) for call in [*CALLS, FAILING_CALL]]}
    done = subprocess.run(
        [str(node_bin), str(SCRIPT), json.dumps(config)], check=False,
        capture_output=True, text=True, timeout=TIMEOUT, env=node_env(), cwd=HERE,
    )
    assert done.returncode == 0, f"ts_sdk_client.mjs exited {done.returncode}:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def http_report(node_bin: Path, server: HttpServer) -> dict[str, Any]:
    return run_ts_client(node_bin, {"transport": "http", "url": server.url})


@pytest.fixture(scope="module")
def stdio_report(node_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("ts-stdio-root")
    command = serve_command(root)
    report = run_ts_client(node_bin, {
        "transport": "stdio", "command": command[0], "args": command[1:],
        # The SDK passes only a few safe variables by default; the server needs this
        # environment (PYTHONPATH included, when a test run sets it).
        "env": dict(os.environ),
    })
    left = wait_gone_from(root, timeout=15)
    assert not left, f"kernels still running after the TS client closed its stdio server: {left}"
    return report


@pytest.fixture(params=["http", "stdio"])
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    return request.getfixturevalue(f"{request.param}_report")


def call(report: dict[str, Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    for made in report["calls"]:
        if made["name"] == name and made["arguments"] == arguments:
            return made
    raise AssertionError(f"no call {name}({arguments}) in the report")


def wire_result(report: dict[str, Any], method: str, name: str | None, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The raw JSON-RPC result of the request (method, tool name, arguments) the SDK sent."""
    for sent in report["wire"]["sent"]:
        params = sent.get("params") or {}
        if sent.get("method") != method or "id" not in sent:
            continue
        if name is not None and (params.get("name") != name or params.get("arguments") != arguments):
            continue
        for received in report["wire"]["received"]:
            if received.get("id") == sent["id"] and "method" not in received:
                assert "result" in received, f"{method} {name}: {json.dumps(received)[:1500]}"
                return received["result"]
    raise AssertionError(f"no response to {method} {name} on the wire")


def test_negotiates_its_own_version(report: dict[str, Any]) -> None:
    assert report["sdkVersion"] == TS_SDK_VERSION
    assert report["protocolVersion"] == HANDSHAKE_VERSION
    assert report["serverInfo"]["name"] == "mcp-variants"
    assert "tools" in report["capabilities"]
    # The client never sends SEP-3279's requestedOutputs, so nothing asks for variants.
    assert not any("requestedOutputs" in (m.get("params") or {}) for m in report["wire"]["sent"])


def test_lists_legacy_tools(report: dict[str, Any]) -> None:
    check_legacy_tool_listing(report["tools"]["tools"])
    check_legacy_tool_listing(wire_result(report, "tools/list", None, None)["tools"])


@pytest.mark.parametrize("name,arguments", CALLS, ids=[name for name, _ in CALLS])
def test_tool_call_gets_a_valid_legacy_result(report: dict[str, Any], name: str, arguments: dict[str, Any]) -> None:
    made = call(report, name, arguments)
    assert made["ok"], f"the SDK threw on {name}: {made.get('error')}"
    schemas = check_legacy_tool_listing(wire_result(report, "tools/list", None, None)["tools"])
    check_legacy_success(name, made["result"], schemas[name])  # what the application got
    check_legacy_success(name, wire_result(report, "tools/call", name, arguments), schemas[name])  # the bytes
    if name == "execute_code":
        assert "2" in text_of(made["result"]), made["result"]
        assert made["result"]["structuredContent"]["kind"] == "code.execute"


def test_failing_code_is_a_tool_error_not_an_exception(report: dict[str, Any]) -> None:
    name, arguments = FAILING_CALL
    made = call(report, name, arguments)
    assert made["ok"], f"the SDK threw on a failing run instead of returning isError: {made.get('error')}"
    check_tool_error(name, made["result"])
    check_tool_error(name, wire_result(report, "tools/call", name, arguments))


def test_nothing_of_sep3279_reaches_the_legacy_client(report: dict[str, Any]) -> None:
    for message in report["wire"]["received"]:
        result = message.get("result")
        if isinstance(result, dict):
            check_no_sep3279_fields(str(message.get("id")), result)
            for tool in result.get("tools", []):
                assert "outputVariants" not in tool, tool.get("name")


def test_runs_on_the_pinned_node(node_bin: Path) -> None:
    version = subprocess.run([str(node_bin), "--version"], check=True, capture_output=True, text=True).stdout.strip()
    assert version.startswith("v22."), version
