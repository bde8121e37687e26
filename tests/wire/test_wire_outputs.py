"""Outputs as resources, on real kernels through the wire (issue 21 "Outputs on demand"; docs/choices.md
"Outputs as resources"): a capped answer names the resource holding the whole output, resources/read returns it
byte for byte, an image reads as a blob (test_wire_execute_code.py), another client reads none of it, a cell's
output resource is the cell's output now, and nothing outside the root is reached."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from support.wire import (
    INVALID_PARAMS,
    OUTPUTS_VERSION,
    TRANSPORTS,
    envelope,
    only_output,
    sel,
    text_of,
    unique,
    validate,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

HANDSHAKE = "2025-11-25"
BIG = "print('x' * 200_000)"
WHOLE = "x" * 200_000 + "\n"
RUN_URI = re.compile(r"mcp-variants://runs/[0-9a-f]{16}/outputs/\d+")
CUT = re.compile(r'\[\.\.\. (\d+) more bytes cut; line \d+ of \d+: read_output\(uri="([^"]+)", line=\d+\), '
                 r'or add pattern="<regex>" to find lines\]')


def cut_uri(text: str) -> tuple[int, str]:
    """The bytes a capped text says it cut, and the resource it names for the rest."""
    match = CUT.search(text)
    assert match, text[-400:]
    return int(match[1]), match[2]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_200_kb_print_is_read_whole_after_a_capped_answer(connect: Any, variant_schemas: Any, transport: str) -> None:
    """The assistant's text keeps the output's start and end within --output-cap (20,000 bytes) and names the run's
    output between them; resources/read returns all 200,001 bytes of it. At 2026-12-01, assistant/structured carries the
    URI in fullOutputs."""
    client = connect(transport, HANDSHAKE)
    text = text_of(client.call("execute_code", {"code": BIG}, timeout=120).result["content"])
    assert len(text.encode()) < 21_000
    more, uri = cut_uri(text)
    marker = CUT.search(text)[0]  # type: ignore[index]
    assert RUN_URI.fullmatch(uri) and more == len(WHOLE) - (len(text) - len(marker) - 2), "the bytes around '\\n<marker>\\n' kept"
    assert text.endswith("x\n") and text.startswith("x"), "the start and the end of the output"
    (content,) = client.request("resources/read", {"uri": uri}).result["contents"]
    assert content == {"uri": uri, "mimeType": "text/plain", "text": WHOLE}

    stateless = connect(transport, OUTPUTS_VERSION)
    reply = stateless.call("execute_code", {"code": BIG}, requested=[sel("assistant", "structured")], timeout=120)
    structured = only_output(reply, "assistant", "structured")["structuredContent"]
    validate(variant_schemas[("execute_code", "assistant", "structured")], structured, "assistant/structured")
    assert structured["truncated"] is True
    (full,) = structured["fullOutputs"]
    assert full["item"] == 0 and full["bytes"] == len(WHOLE) and full["uri"] in structured["outputs"][0]
    read = stateless.request("resources/read", {"uri": full["uri"]}, headers={"Mcp-Name": full["uri"]}).result
    assert read["contents"][0]["text"] == WHOLE and read["cacheScope"] == "private"


def _in_session(session: str | None) -> dict[str, str]:
    return {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": HANDSHAKE}


def test_another_client_cannot_read_a_run_output(pool: Any) -> None:
    """HTTP: the session that ran the code reads its output; another session, and a stateless request, get the
    not-found answer the other resources give, as for a URI that never was."""
    server = pool.http_server()
    mine, other = (server.target.open_session(HANDSHAKE, None)[0] for _ in range(2))
    call = {"name": "execute_code", "arguments": {"code": BIG}}
    ran = server.post({"jsonrpc": "2.0", "id": server.next_id(), "method": "tools/call", "params": call}, _in_session(mine))
    assert ran.response is not None, ran.raw[:300]
    _, uri = cut_uri(text_of(ran.response["result"]["content"]))

    def read(headers: dict[str, str], target: str = uri, meta: dict | None = None) -> dict:
        params = {"uri": target, **({"_meta": meta} if meta else {})}
        trip = server.post({"jsonrpc": "2.0", "id": server.next_id(), "method": "resources/read", "params": params}, headers)
        assert trip.response is not None, trip.raw[:300]
        return trip.response

    assert read(_in_session(mine))["result"]["contents"][0]["text"] == WHOLE
    stateless = {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "resources/read", "Mcp-Name": uri}
    never = uri.replace(uri.split("/")[3], "0" * 16)
    for refused in (read(_in_session(other)), read(stateless, meta=envelope(OUTPUTS_VERSION, None)), read(_in_session(mine), never)):
        error = refused["error"]
        assert error["code"] == INVALID_PARAMS and error["message"].startswith("Resource not found"), refused
        assert "not kept for this client" in error["message"]


def _notebook(path: Path, source: str, printed: str) -> str:
    """A notebook of one run code cell whose output is `printed`; the cell's id."""
    cell = nbformat.v4.new_code_cell(source, outputs=[nbformat.v4.new_output("stream", name="stdout", text=printed)],
                                     execution_count=1)
    notebook = nbformat.v4.new_notebook(cells=[cell])
    path.write_text(nbformat.writes(notebook))
    return str(cell.id)


def test_a_cell_output_resource_is_the_cells_output_now(connect: Any, root: Path, tmp_path: Path) -> None:
    """read_cell's capped text names the cell's output resource; it reads whole, and after the cell ran again it
    reads the new output. Paths outside the root, by `..` or by a link, are refused; so is an output not there."""
    name = f"{unique('outputs')}.ipynb"
    printed = "y" * 30_000 + "\n"
    cell_id = _notebook(root / name, "print('y' * 30_000)", printed)
    client = connect("stdio", HANDSHAKE)
    text = text_of(client.call("read_cell", {"notebook": name, "cell_id": cell_id}).result["content"])
    _, uri = cut_uri(text)
    assert uri == f"cell-output:///{name}/cells/{cell_id}/outputs/0"
    assert client.request("resources/read", {"uri": uri}).result["contents"] == [{"uri": uri, "mimeType": "text/plain", "text": printed}]
    assert client.request("resources/subscribe", {"uri": uri}).result == {}  # it hears of changes to the notebook
    assert client.request("resources/unsubscribe", {"uri": uri}).result == {}

    source = "print('z' * 25_000)"
    assert not client.call("overwrite_cell_source", {"notebook": name, "cell_id": cell_id, "source": source}).result.get("isError")
    ran = client.call("execute_cell", {"notebook": name, "cell_id": cell_id}, timeout=120).result
    assert not ran.get("isError") and cut_uri(text_of(ran["content"]))[1] == uri  # execute_cell names it too
    assert client.request("resources/read", {"uri": uri}).result["contents"][0]["text"] == "z" * 25_000 + "\n"

    outside = tmp_path / "outside.ipynb"
    _notebook(outside, "print(1)", "secret\n")
    link = root / f"{unique('link')}.ipynb"
    link.symlink_to(outside)
    for bad, kind in [(f"cell-output:///{name}/cells/{cell_id}/outputs/1", "not-found"),
                      (f"cell-output:///{name}/cells/nosuchcell/outputs/0", "not-found"),
                      ("cell-output:///../outside.ipynb/cells/a/outputs/0", None),
                      (f"cell-output://{outside}/cells/a/outputs/0", None),
                      (f"cell-output:///{link.name}/cells/{cell_id}/outputs/0", "path-outside-root")]:
        error = client.request("resources/read", {"uri": bad}).error
        assert error["code"] == INVALID_PARAMS and "secret" not in str(error), (bad, error)
        if kind:
            assert error["data"]["type"] == kind, (bad, error)


def test_the_templates_are_advertised_and_run_outputs_are_not_listed(connect: Any) -> None:
    client = connect("stdio", HANDSHAKE)
    templates = [t["uriTemplate"] for t in client.request("resources/templates/list", {}).result["resourceTemplates"]]
    assert "mcp-variants://runs/{run}/outputs/{index}" in templates
    assert "cell-output:///{+path}/cells/{cell}/outputs/{index}" in templates
    client.call("execute_code", {"code": "print('listed?')"})
    listed = client.request("resources/list", {}).result["resources"]
    assert not [r for r in listed if r["uri"].startswith(("mcp-variants://runs/", "cell-output:"))]
