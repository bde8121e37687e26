"""Helpers of the outside tests (tests/outside): Node and its packages, our server as a process, result checks.

The Node side (Node 22, @modelcontextprotocol/sdk, @modelcontextprotocol/conformance) lives in
tests/outside/node_modules, installed by tests/outside/install.sh from package-lock.json.
`make test` runs install.sh and sets MCP_VARIANTS_OUTSIDE=required: then a missing install is a
test failure. Run by hand without the install, the Node tests skip and say how to install.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from support.processes import wait_gone_from
from support.servers import HttpServer

HERE = Path(__file__).resolve().parents[1] / "outside"  # tests/outside: its Node packages and scripts
EXAMPLES = HERE.parents[1] / "examples"  # servers on mcp_variants.sdk
EVERYTHING = EXAMPLES / "everything.py"  # the conformance suite's fixture server, on mcp_variants.sdk
NODE_MODULES = HERE / "node_modules"
NODE = NODE_MODULES / ".bin" / "node"
REQUIRED = os.environ.get("MCP_VARIANTS_OUTSIDE", "").lower() == "required"

TS_SDK_VERSION = "1.32.2"
HANDSHAKE_VERSION = "2025-11-25"  # what both SDK clients negotiate by initialize
STATELESS_VERSION = "2026-07-28"  # what the Python SDK client negotiates via server/discover
PRIVATE_PREFIX = "io.github.mcp-variants/"  # the bridge's private _meta keys: never on the wire

# Calls every outside client makes: (tool, arguments).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("execute_code", {"code": "print(1+1)"}),
    ("list_files", {}),
    ("list_kernels", {}),
]
FAILING_CALL: tuple[str, dict[str, Any]] = ("execute_code", {"code": "1/0"})


# ---- Node -----------------------------------------------------------------------------------------


def unavailable(reason: str) -> None:
    """Skip, or fail when the outside tests are required (make test, CI)."""
    message = f"{reason}. Install the Node side with tests/outside/install.sh (make test does)."
    if REQUIRED:
        pytest.fail(f"MCP_VARIANTS_OUTSIDE=required: {message}", pytrace=False)
    pytest.skip(message)


def node() -> Path:
    """tests/outside's Node 22, or skip/fail with the reason."""
    if not NODE.exists():
        unavailable(f"no Node at {NODE.relative_to(HERE.parents[1])}")
    try:
        version = subprocess.run([str(NODE), "--version"], check=False, capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError as exc:
        unavailable(f"{NODE} does not run: {exc}")
    match = re.match(r"v(\d+)\.", version)
    if not match or int(match.group(1)) < 22:
        unavailable(f"{NODE} is {version or 'unknown'}; the conformance suite needs Node 22 or newer")
    return NODE


def node_package(relative: str) -> Path:
    path = NODE_MODULES / relative
    if not path.exists():
        unavailable(f"{path.relative_to(HERE.parents[1])} is not installed")
    return path


def node_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(NO_COLOR="1", FORCE_COLOR="0")
    return env


# ---- our server ---------------------------------------------------------------------------------


@contextmanager
def http_server(root: Path, log: Path) -> Iterator[HttpServer]:
    """`mcp-variants serve --http --port <free>` rooted at `root`; stopped by PID afterwards, and then
    no kernel it started may be left working in `root`."""
    server = HttpServer(root, "--host", "127.0.0.1", log=log)
    try:
        yield server
    finally:
        server.close()
        kernels = wait_gone_from(root, timeout=10)
        assert not kernels, f"kernels left running under {root} after the HTTP server stopped: {kernels}"


# ---- result checks ------------------------------------------------------------------------------


def find_keys(node: Any, predicate: Any, path: str = "$") -> list[str]:
    """JSON paths of every dict key in `node` for which predicate(key) holds."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if predicate(key):
                found.append(f"{path}.{key}")
            found.extend(find_keys(value, predicate, f"{path}.{key}"))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.extend(find_keys(value, predicate, f"{path}[{i}]"))
    return found


def check_legacy_tool_listing(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Tools as a legacy (2025-06-18 .. 2026-07-28) client must see them; returns {name: outputSchema}."""
    schemas: dict[str, dict[str, Any]] = {}
    for tool in tools:
        name = tool.get("name")
        assert "outputVariants" not in tool, f"{name}: outputVariants listed to a legacy client"
        schema = tool.get("outputSchema")
        assert isinstance(schema, dict), f"{name}: no outputSchema: {json.dumps(tool)[:500]}"
        Draft202012Validator.check_schema(schema)
        schemas[name] = schema
    missing = {name for name, _ in CALLS} - schemas.keys()
    assert not missing, f"tools/list lacks {sorted(missing)}; it lists {sorted(schemas)}"
    return schemas


def check_legacy_success(tool: str, result: dict[str, Any], output_schema: dict[str, Any]) -> None:
    """A successful legacy result: content blocks, structuredContent valid against the
    tool's outputSchema, isError false (or absent: it defaults to false), no SEP-3279 fields."""
    shown = json.dumps(result)[:1500]
    assert result.get("isError", False) is False, f"{tool}: isError is {result.get('isError')!r}: {shown}"
    content = result.get("content")
    assert isinstance(content, list) and content, f"{tool}: no content: {shown}"
    for block in content:
        assert isinstance(block, dict) and isinstance(block.get("type"), str), f"{tool}: bad content block {block!r}"
        if block["type"] == "text":
            assert isinstance(block.get("text"), str), f"{tool}: text block without text: {block!r}"
    assert "structuredContent" in result, f"{tool}: no structuredContent although the tool has an outputSchema: {shown}"
    errors = sorted(Draft202012Validator(output_schema).iter_errors(result["structuredContent"]), key=str)
    assert not errors, f"{tool}: structuredContent breaks its outputSchema: {[e.message for e in errors[:5]]}: {shown}"
    check_no_sep3279_fields(tool, result)


def check_no_sep3279_fields(tool: str, result: dict[str, Any]) -> None:
    for field in ("outputs", "outputVariants"):
        assert field not in result, f"{tool}: `{field}` in a legacy result: {json.dumps(result)[:1000]}"
    leaks = find_keys(result, lambda key: isinstance(key, str) and key.startswith(PRIVATE_PREFIX))
    assert not leaks, f"{tool}: bridge-private keys reached a client at {leaks}"


def check_tool_error(tool: str, result: dict[str, Any]) -> None:
    """A tool that failed (ZeroDivisionError) comes back as a result with isError true."""
    shown = json.dumps(result)[:1500]
    assert result.get("isError") is True, f"{tool}: a failing run came back without isError true: {shown}"
    content = result.get("content")
    assert isinstance(content, list) and content, f"{tool}: an error result without content: {shown}"
    text = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    assert "ZeroDivisionError" in text, f"{tool}: the error does not name ZeroDivisionError: {shown}"
    check_no_sep3279_fields(tool, result)


def text_of(result: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in result.get("content", []) if isinstance(b, dict))
