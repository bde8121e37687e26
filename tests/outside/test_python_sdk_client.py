"""The official Python SDK's client (mcp 2.3.0, `mcp.Client`) calls our tools at its own versions.

Two of its connection modes, on both transports:

* `mode="auto"`, its default: it probes `server/discover` and adopts the newest version both
  sides know, 2026-07-28 (stateless: every request carries its version in `_meta`).
* `mode="legacy"`: the initialize handshake, 2025-11-25.

It is given a URL (streamable HTTP, our shared server) or StdioServerParameters (a server it
launches). Each call must give a valid legacy result: content, and structuredContent valid
against the tool's outputSchema (the SDK checks that too; so do we, with jsonschema). The SDK
parses results into its own models and drops unknown fields, so "no `outputs` on the wire" is
checked by the TypeScript test (raw messages) and tests/wire, not here.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from support.outside import (
    CALLS,
    FAILING_CALL,
    HANDSHAKE_VERSION,
    STATELESS_VERSION,
    HttpServer,
    check_legacy_success,
    check_legacy_tool_listing,
    check_tool_error,
    text_of,
)
from support.processes import wait_gone_from
from support.servers import serve_command

MODES = [
    pytest.param("auto", STATELESS_VERSION, id="default-auto-2026-07-28"),
    pytest.param("legacy", HANDSHAKE_VERSION, id="legacy-2025-11-25"),
]
CALL_TIMEOUT = 120.0


def dump(model: Any) -> dict[str, Any]:
    """An SDK model as its JSON wire form."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def session(target: Any, mode: str) -> dict[str, Any]:
    """Connect, list, call; return what the application saw, as JSON."""
    report: dict[str, Any] = {"calls": []}
    async with Client(target, mode=mode, read_timeout_seconds=CALL_TIMEOUT) as client:
        report["protocolVersion"] = client.protocol_version
        report["serverInfo"] = dump(client.server_info) if client.server_info else None
        report["tools"] = [dump(tool) for tool in (await client.list_tools()).tools]
        for name, arguments in [*CALLS, FAILING_CALL]:
            result = await client.call_tool(name, arguments)  # must not raise, the failing run included
            report["calls"].append({"name": name, "arguments": arguments, "result": dump(result)})
    return report


@pytest.fixture(scope="module")
def reports(server: HttpServer, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """reports(transport, mode) -> what the client saw; each pair runs once, when first asked for,
    so a broken transport or mode fails its own tests only."""
    made: dict[tuple[str, str], dict[str, Any] | BaseException] = {}

    def run(transport: str, mode: str) -> dict[str, Any]:
        if transport == "http":
            return anyio.run(session, server.url, mode)
        root = tmp_path_factory.mktemp(f"py-stdio-{mode}-root")
        command = serve_command(root)
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        report = anyio.run(session, params, mode)
        left = wait_gone_from(root, timeout=15)
        assert not left, f"kernels still running after the Python client closed its stdio server: {left}"
        return report

    def get(transport: str, mode: str) -> dict[str, Any]:
        if (transport, mode) not in made:
            try:
                made[(transport, mode)] = run(transport, mode)
            except Exception as exc:  # noqa: BLE001 -- remembered: its other tests fail alike, without a rerun
                made[(transport, mode)] = exc
        outcome = made[(transport, mode)]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return get


@pytest.fixture(params=["http", "stdio"])
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


def made_call(report: dict[str, Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return next(c["result"] for c in report["calls"] if c["name"] == name and c["arguments"] == arguments)


@pytest.mark.parametrize("mode,version", MODES)
def test_negotiates_its_own_version(reports: Any, transport: str, mode: str, version: str) -> None:
    report = reports(transport, mode)
    assert report["protocolVersion"] == version
    if report["serverInfo"] is not None:
        assert report["serverInfo"]["name"] == "mcp-variants"


@pytest.mark.parametrize("mode,version", MODES)
def test_calls_get_valid_legacy_results(reports: Any, transport: str, mode: str, version: str) -> None:
    report = reports(transport, mode)
    schemas = check_legacy_tool_listing(report["tools"])
    for name, arguments in CALLS:
        result = made_call(report, name, arguments)
        check_legacy_success(f"{name} ({transport}, {version})", result, schemas[name])
    execute = made_call(report, *CALLS[0])
    assert "2" in text_of(execute) and execute["structuredContent"]["kind"] == "code.execute", execute


@pytest.mark.parametrize("mode,version", MODES)
def test_failing_code_is_a_tool_error(reports: Any, transport: str, mode: str, version: str) -> None:
    check_tool_error(f"execute_code ({transport}, {version})", made_call(reports(transport, mode), *FAILING_CALL))


def test_sdk_is_the_pinned_one() -> None:
    from importlib.metadata import version

    assert version("mcp") == "2.3.0", "the SDK the project pins (pyproject.toml)"
