"""Real `mcp-variants serve` processes for the notebook tools, and the checks every result gets.

One stdio server per test module for stateless 2026-12-01 requests (with the MCP Apps
extension negotiated, so every declared variant may be requested), one initialized at
2025-11-25 for the legacy shape and a per-connection default, and one streamable HTTP
server where several clients (sessions, stateless requests) share one process.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest
from jsonschema import Draft202012Validator

from mcp_variants.client.http import parse_messages
from mcp_variants.client.stdio import StdioConnection, envelope
from support import servers
from support.jupyter import jupyter, jupyterlab  # noqa: F401 - the fixtures, for the remote runtime and live notebooks
from support.processes import Reaper

OUTPUTS_VERSION = "2026-12-01"
LEGACY_VERSION = "2025-11-25"
UI = "io.modelcontextprotocol/ui"
UI_EXTENSIONS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
CELL_META = "io.jupyter-mcp/cell_id"
CACHE_META = "io.modelcontextprotocol/cache"
REPO = Path(__file__).resolve().parents[2]

_error_shape = json.loads((REPO / "variants" / "shapes" / "error.json").read_text())
_error_shape.pop("$comment", None)
ERROR_VALIDATOR = Draft202012Validator(_error_shape)

# A 1x1 PNG, for a cell that displayed an image.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)).decode()


# ---- notebooks on disk ---------------------------------------------------------------------------


def write_notebook(path: Path, cells: list[dict[str, Any]], *, minor: int = 5) -> Path:
    """A notebook written as JupyterLab would; `minor` < 5 writes one without cell ids."""
    notebook = nbformat.v4.new_notebook()
    notebook.nbformat_minor = minor
    notebook.cells = [nbformat.from_dict(c) for c in cells]
    if minor < 5:
        for cell in notebook.cells:
            cell.pop("id", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    return path


def code(source: str, outputs: list[dict[str, Any]] | None = None, count: int | None = None) -> dict[str, Any]:
    cell = nbformat.v4.new_code_cell(source, outputs=outputs or [], execution_count=count)
    return dict(cell)


def markdown(source: str) -> dict[str, Any]:
    return dict(nbformat.v4.new_markdown_cell(source))


def sample_cells() -> list[dict[str, Any]]:
    """A markdown cell, a code cell with text, an image and a result, and a code cell never run."""
    return [
        markdown("# Sample\nSome prose."),
        code("print('hello')\nplot()", count=3, outputs=[
            {"output_type": "stream", "name": "stdout", "text": ["hello\n", "world\n"]},
            {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": ["<Figure>"]}, "metadata": {}},
            {"output_type": "execute_result", "data": {"text/plain": "42"}, "metadata": {}, "execution_count": 3},
        ]),
        code("x = 1\nx = 1"),
    ]


def read_valid(path: Path) -> nbformat.NotebookNode:
    """The notebook at `path`, which must be valid nbformat 4.5 with an id on every cell."""
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4 and notebook.nbformat_minor >= 5, path
    assert all(cell.get("id") for cell in notebook.cells), path
    return notebook


# ---- results ------------------------------------------------------------------------------------


def check_content(blocks: Any) -> None:
    assert isinstance(blocks, list) and blocks, blocks
    for block in blocks:
        assert block["type"] in ("text", "image", "resource_link"), block
        if block["type"] == "text":
            assert isinstance(block["text"], str) and block["text"], block
        elif block["type"] == "resource_link":  # --images link
            assert block["uri"].startswith("mcp-variants://images/") and block["name"] and block["mimeType"].startswith("image/"), block
        else:
            assert block["mimeType"].startswith("image/") and base64.b64decode(block["data"]), block


def text_of(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b["type"] == "text")


class Outputs(dict):
    """The outputs of one 2026-12-01 result, by 'audience/format'; `.result` is the whole result."""

    result: dict[str, Any]

    @property
    def is_error(self) -> bool:
        return bool(self.result.get("isError"))

    @property
    def meta(self) -> dict[str, Any]:
        return self.result.get("_meta") or {}


class StatelessClient:
    """Stateless 2026-12-01 requests on one stdio server, every result checked against its schemas."""

    def __init__(self, connection: StdioConnection) -> None:
        self.connection = connection
        listed = self.request("tools/list", {"_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)})
        self.tools: dict[str, dict[str, Any]] = {t["name"]: t for t in listed["result"]["tools"]}
        self.validators: dict[tuple[str, str], Draft202012Validator] = {}
        for name, tool in self.tools.items():
            for variant in tool.get("outputVariants", []):
                if "schema" in variant:
                    Draft202012Validator.check_schema(variant["schema"])
                    self.validators[(name, f"{variant['audience']}/{variant['format']}")] = Draft202012Validator(variant["schema"])

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.connection.request(method, params)

    def selectors(self, tool: str) -> list[dict[str, str]]:
        return [{"audience": v["audience"], "format": v["format"]} for v in self.tools[tool]["outputVariants"]]

    def call(self, tool: str, arguments: dict[str, Any], selectors: list[dict[str, str]] | None = None) -> Outputs:
        """tools/call requesting `selectors` (default: every declared variant); every output checked."""
        requested = selectors if selectors is not None else self.selectors(tool)
        response = self.request("tools/call", {
            "name": tool, "arguments": arguments, "requestedOutputs": requested,
            "_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS),
        })
        assert "result" in response, response
        result = response["result"]
        outputs = Outputs()
        outputs.result = result
        got = [(o["audience"], o["format"]) for o in result["outputs"]]
        assert got == [(s["audience"], s["format"]) for s in requested], "exactly the requested outputs, in order"
        for output in result["outputs"]:
            key = f"{output['audience']}/{output['format']}"
            if output["format"] == "content":
                check_content(output["content"])
                outputs[key] = output["content"]
                continue
            value = output["structuredContent"]
            validator = ERROR_VALIDATOR if result.get("isError") else self.validators[(tool, key)]
            problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(value)]
            assert not problems, f"{tool} {key} breaks its schema: {problems}\n{json.dumps(value)[:2000]}"
            outputs[key] = value
        return outputs


# ---- processes ----------------------------------------------------------------------------------


@pytest.fixture
def reaper() -> Iterator[Reaper]:
    """Every process a test watches is stopped by PID at its end, also when it fails."""
    reaper = Reaper()
    try:
        yield reaper
    finally:
        reaper.kill_all()


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("root")


def serve_args(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The options a test module serves with (its SERVE_ARGS, e.g. --compat), besides --root."""
    return tuple(getattr(request.module, "SERVE_ARGS", ()))


@pytest.fixture(scope="module")
def stateless(root: Path, request: pytest.FixtureRequest) -> Iterator[StatelessClient]:
    connection = servers.serve_stdio(root, *serve_args(request))
    try:
        yield StatelessClient(connection)
    finally:
        connection.close()


class LegacyClient:
    """One stdio connection initialized at 2025-11-25: a client with state (its default notebook)."""

    def __init__(self, connection: StdioConnection) -> None:
        self.connection = connection
        init = connection.initialize(LEGACY_VERSION)
        assert init["result"]["protocolVersion"] == LEGACY_VERSION
        self.tools = {t["name"]: t for t in connection.request("tools/list", {})["result"]["tools"]}

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """content, and structuredContent valid against outputSchema on success; content only on error."""
        result = self.connection.request("tools/call", {"name": tool, "arguments": arguments})["result"]
        assert "outputs" not in result
        check_content(result["content"])
        if result.get("isError"):
            assert "structuredContent" not in result
        else:
            schema = self.tools[tool]["outputSchema"]
            problems = [e.message for e in Draft202012Validator(schema).iter_errors(result["structuredContent"])]
            assert not problems, (tool, problems, result["structuredContent"])
        return result


@pytest.fixture(scope="module")
def legacy(root: Path, request: pytest.FixtureRequest) -> Iterator[LegacyClient]:
    connection = servers.serve_stdio(root, *serve_args(request))
    try:
        yield LegacyClient(connection)
    finally:
        connection.close()


class HttpServer(servers.HttpServer):
    """`serve --http` on a free loopback port; sessions at 2025-11-25 and stateless requests share it."""

    def __init__(self, root: Path, log: Path, *extra: str) -> None:
        super().__init__(root, *extra, log=log)
        self.http = httpx.Client(timeout=120)
        self._ids = itertools.count(1)

    def post(self, message: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        return self.http.post(self.url, content=json.dumps(message), headers={
            "Accept": "application/json, text/event-stream", "Content-Type": "application/json", **headers})

    def rpc(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        response = self.post({"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}, headers)
        assert response.status_code == 200, response.text
        messages = parse_messages(response)
        return [m for m in messages if "id" in m][-1]

    def session(self) -> HttpSession:
        response = self.post({"jsonrpc": "2.0", "id": next(self._ids), "method": "initialize", "params": {
            "protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "integration", "version": "0"}}}, {})
        assert response.status_code == 200, response.text
        session_id = response.headers["mcp-session-id"]
        headers = {"Mcp-Session-Id": session_id, "MCP-Protocol-Version": LEGACY_VERSION}
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers).status_code in (200, 202)
        return HttpSession(self, headers)

    def stateless_call(self, tool: str, arguments: dict[str, Any], selectors: list[dict[str, str]]) -> dict[str, Any]:
        headers = {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": tool}
        params = {"name": tool, "arguments": arguments, "requestedOutputs": selectors, "_meta": envelope(OUTPUTS_VERSION)}
        return self.rpc("tools/call", params, headers)["result"]

    def close(self) -> None:
        self.http.close()
        super().close()


class HttpSession:
    def __init__(self, server: HttpServer, headers: dict[str, str]) -> None:
        self.server = server
        self.headers = headers

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.server.rpc("tools/call", {"name": tool, "arguments": arguments}, self.headers)["result"]


@pytest.fixture(scope="module")
def http_server(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    server = HttpServer(root, tmp_path_factory.mktemp("http-logs") / "server.log")
    try:
        yield server
    finally:
        server.close()
