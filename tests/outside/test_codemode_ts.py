"""Code mode in TypeScript: @cloudflare/codemode's codeMcpServer over codemode-ts/variants.mjs (the official MCP SDK's
HTTP transport at 2026-12-01), run with a Node executor in node:vm against `mcp-variants serve --http`, embedded and on
a live notebook in a remote JupyterLab (`--jupyter-url`).

The bindings are generated from the live server's programmatic/structured schemas (`python -m mcp_variants.client.stubs
--typescript`); tsc checks the fixed program (codemode-ts/program.js, as a model writes it for codemode) against them and
catches the same program with one field misread, before anything runs. The run then goes through codemode's own `code`
tool, as a model calls it; every tools/call it made asked for programmatic/structured; what the program got is what a
2026-12-01 client gets for that variant. An older server (the official SDK's MCPServer, bench/naive_server.py: no
2026-12-01, no outputVariants) gives the same adapter its legacy structuredContent, through the SDK's own Client.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.client import ClientSession
from mcp_variants.client.http import HttpTransport
from mcp_variants.processes import ServerProcess, free_port
from mcp_variants.protocol.types import PROGRAMMATIC_STRUCTURED
from support.jupyter import jupyterlab_server
from support.outside import HERE, node_env, unavailable
from support.servers import HttpServer

CODEMODE = HERE.parents[1] / "codemode-ts"
TSC = CODEMODE / "node_modules" / "typescript" / "bin" / "tsc"
TOKEN = "codemode-token"
WANTED = [{"audience": "programmatic", "format": "structured"}]


def data(root: Path) -> None:
    (root / "data").mkdir(exist_ok=True)
    for i in range(5):
        (root / "data" / f"part{i}.csv").write_text(f"x\n{i}\n")


@pytest.fixture(scope="module", params=["embedded", "live"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """`serve --http` on its embedded runtime, or on a JupyterLab with real-time collaboration (`--jupyter-url`):
    there the notebook is a live one and JupyterLab's kernel runs the cells."""
    root = tmp_path_factory.mktemp(f"codemode-ts-{request.param}")
    with ExitStack() as stack:
        extra: tuple[str, ...] = ()
        if request.param == "live":
            lab = stack.enter_context(jupyterlab_server(tmp_path_factory.mktemp("codemode-ts-lab")).start())
            data(lab.root)
            extra = ("--jupyter-url", lab.url, "--jupyter-token", lab.token)
        else:
            data(root)
        server = HttpServer(root, "--token", TOKEN, *extra, log=root.parent / f"codemode-ts-{request.param}.log")
        stack.callback(server.close)
        yield server


def tsc_errors(node_bin: Path, folder: Path, bindings: str, *programs: str) -> list[str]:
    """tsc (codemode-ts's tsconfig: strict, checkJs) on each program beside the bindings."""
    (folder / "codemode.d.ts").write_text(bindings)
    shutil.copy(CODEMODE / "tsconfig.json", folder / "tsconfig.json")
    for i, program in enumerate(programs):
        (folder / f"program{i}.js").write_text(program)
    done = subprocess.run([str(node_bin), str(TSC), "-p", "tsconfig.json"], cwd=folder, capture_output=True, text=True,
                          timeout=280, env=node_env())
    return [line for line in done.stdout.splitlines() if "error TS" in line]


def test_a_codemode_program_is_type_checked_then_gets_the_programmatic_records(
    node_bin: Path, served: HttpServer, tmp_path: Path
) -> None:
    if not TSC.exists():
        unavailable(f"{TSC.relative_to(HERE.parents[1])} is not installed (codemode-ts/install.sh)")
    generate = [sys.executable, "-m", "mcp_variants.client.stubs", "--typescript", "--url", served.url, "--token", TOKEN]
    bindings = subprocess.run(generate, check=True, capture_output=True, text=True, timeout=120).stdout
    program = (CODEMODE / "program.js").read_text()
    misread = program.replace("page.nextCursor !== undefined", "page.next_cursor !== undefined")
    assert misread != program
    errors = tsc_errors(node_bin, tmp_path, bindings, program, misread)
    assert errors and all(e.startswith("program1.js") and "'next_cursor' does not exist" in e for e in errors), errors

    config = {"url": served.url, "token": TOKEN, "program": str(CODEMODE / "program.js"), "bindings": str(tmp_path / "codemode.d.ts")}
    done = subprocess.run([str(node_bin), "run.mjs", json.dumps(config)], cwd=CODEMODE, capture_output=True, text=True,
                          timeout=240, env=node_env())
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["version"] == "2026-12-01"
    assert not report["result"].get("isError"), report["result"]
    answer = json.loads(report["result"]["content"][0]["text"])
    assert answer["notebooks"] == ["analysis.ipynb"]
    assert answer["files"] == [f"data/part{i}.csv" for i in range(5)]  # three pages of two
    assert answer["printed"] == "45\n" and answer["cell"] == answer["cellsBefore"]  # the first cell it added, at the end
    assert answer["pngSignature"] == "PNG" and base64.b64decode(answer["pngBase64"]).startswith(b"\x89PNG")
    assert answer["failure"] == "execution-error: ZeroDivisionError"
    # The model reads the generated types in the code tool's description, not codemode's `unknown`.
    assert "ListFilesResult" in report["description"] and '"nextCursor"?: string' in report["description"]

    calls = [m for m in report["sent"] if m["method"] == "tools/call"]
    assert len(calls) == 8  # use_notebook, list_notebooks, three pages, three cells (the last fails)
    assert all(c["params"]["requestedOutputs"] == WANTED for c in calls)
    assert all(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-12-01" for m in report["sent"])

    # What the program got is what a 2026-12-01 client gets for programmatic/structured.
    with ClientSession(HttpTransport(served.url, token=TOKEN), "2026-12-01") as session:
        files: list[str] = []
        arguments: dict[str, Any] = {"path": "data", "limit": 2}
        while True:
            page = session.call("list_files", arguments, [PROGRAMMATIC_STRUCTURED]).outputs[0].value
            files += [f["path"] for f in page["files"]]
            if "nextCursor" not in page:
                break
            arguments = {**arguments, "cursor": page["nextCursor"]}
        assert files == answer["files"]
        index = answer["cellsBefore"] + 1
        cell = session.call("read_cell", {"notebook": "analysis.ipynb", "cell_index": index}, [PROGRAMMATIC_STRUCTURED]).outputs[0].value
        stored = [o["data"]["image/png"] for o in cell["cell"]["outputs"] if o["output_type"] == "display_data"]
        assert stored == [answer["pngBase64"]]


LEGACY_CALL = """
import { connectVariants } from './variants.mjs';
const variants = await connectVariants({ url: process.argv[1] });
const value = await variants.call('list_files', {});
process.stdout.write(JSON.stringify({ version: variants.version, value, sent: variants.sent }));
await variants.close();
"""


def test_an_older_server_gives_the_same_adapter_its_legacy_structured_content(node_bin: Path, tmp_path: Path) -> None:
    if not TSC.exists():
        unavailable(f"{TSC.relative_to(HERE.parents[1])} is not installed (codemode-ts/install.sh)")
    (tmp_path / "a.csv").write_text("x\n")
    port = free_port()
    argv = [sys.executable, "-m", "bench.naive_server", "--root", str(tmp_path), "--port", str(port)]
    older = ServerProcess(argv, port, cwd=HERE.parents[1], log=tmp_path.parent / f"{tmp_path.name}-older.log")
    try:
        older.start(60)
        done = subprocess.run([str(node_bin), "--input-type=module", "-e", LEGACY_CALL, f"http://127.0.0.1:{port}/mcp"], cwd=CODEMODE,
                              capture_output=True, text=True, timeout=120, env=node_env())
    finally:
        older.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["version"] == "legacy"
    assert "a.csv" in json.dumps(report["value"])  # its structuredContent, the shape of its outputSchema
    assert not [m for m in report["sent"] if "requestedOutputs" in m.get("params", {})]
