"""The Jupyter server extension: a real jupyter-server serving MCP at /mcp, behind its own authentication.

One server for the module (the extension loaded, an audit trail in its folder). Every call is a stateless
2026-12-01 request for every declared variant, each output checked against its schema, with the server's
token in the Authorization header, as a client configured with `jupyter server list`'s URL sends it. A
request without valid credentials (no token, a wrong one, a login cookie without the XSRF header) is
refused before anything runs; the audit trail says who ran what, and a test reads it back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.server.callers import os_user
from mcp_variants.server.observe import digest
from support.checked import AC, OUTPUTS_VERSION, PS, CheckedClient, text_of
from support.extension import ENDPOINT, extension_server
from support.jupyter import kernel_ids, sessions
from support.waiting import until

from .conftest import code, read_valid, write_notebook

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    folder = tmp_path_factory.mktemp("extension")
    with extension_server(folder, f"--MCPVariants.audit_log={folder / 'audit.jsonl'}").start(60) as process:
        yield process


@pytest.fixture(scope="module")
def client(server: JupyterServerProcess) -> Iterator[CheckedClient]:
    with CheckedClient.http(server.url + ENDPOINT, server.auth_headers) as client:
        yield client


def audit_lines(server: JupyterServerProcess, tool: str, wanted: Callable[[dict[str, Any]], bool] = lambda line: True,
                timeout: float = 10) -> list[dict[str, Any]]:
    """The audit trail's lines for `tool`, once one of them is `wanted` (a thread of its own writes the trail)."""
    def found() -> list[dict[str, Any]]:
        path = server.folder / "audit.jsonl"
        lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        mine = [line for line in lines if line.get("tool") == tool]
        return mine if any(wanted(line) for line in mine) else []

    return until(found, f"a wanted {tool} line in the audit trail", timeout)


def test_execute_code_runs_in_a_kernel_of_the_server(client: CheckedClient, server: JupyterServerProcess) -> None:
    out = client.call("execute_code", {"code": "import os; print(os.getcwd()); 6 * 7"})
    assert not out.is_error, out.result
    assert str(server.root) in text_of(out[AC]) and out[PS]["outputs"][-1]["data"]["text/plain"] == "42"
    assert out[PS]["kernelId"] in kernel_ids(server), "the kernel is the server's own, in its kernel manager"
    listed = client.call("list_kernels", {})
    assert out[PS]["kernelId"] in {k["id"] for k in listed[PS]["kernels"]}


def test_a_notebook_runs_in_its_session_kernel_and_is_saved_by_the_contents_manager(
        client: CheckedClient, server: JupyterServerProcess) -> None:
    write_notebook(server.root / "flow.ipynb", [code("x = 6")])
    first = client.call("execute_cell", {"notebook": "flow.ipynb", "cell_index": 0})
    assert not first.is_error, first.result
    inserted = client.call("insert_execute_code_cell", {"notebook": "flow.ipynb", "cell_index": 1, "source": "print(x * 7)"})
    assert not inserted.is_error and "42" in text_of(inserted[AC]), inserted.result
    cells = read_valid(server.root / "flow.ipynb").cells
    assert [c["source"] for c in cells] == ["x = 6", "print(x * 7)"] and cells[1]["outputs"][0]["text"] == "42\n"
    session = next(s for s in sessions(server) if s["path"] == "flow.ipynb")
    assert session["kernel"]["id"] == first[PS]["kernelId"], "the notebook's session (the server's session manager) holds its kernel"
    read = client.call("read_notebook", {"notebook": "flow.ipynb"})
    assert "print(x * 7)" in text_of(read[AC])
    listed = client.call("list_files", {"pattern": "*.ipynb"})
    assert "flow.ipynb" in {f["path"] for f in listed[PS]["files"]}


def test_a_notebook_runs_whole_and_its_variables_are_read_in_its_session_kernel(
        client: CheckedClient, server: JupyterServerProcess) -> None:
    """execute_notebook and list_variables / inspect_variable in process (issue 21): the session kernel, silently."""
    write_notebook(server.root / "run-all.ipynb", [code("rows = [1, 2, 3]"), code("total = sum(rows)\nprint(total)")])
    ran = client.call("execute_notebook", {"notebook": "run-all.ipynb"})
    assert not ran.is_error and [c["status"] for c in ran[PS]["cells"]] == ["ok", "ok"], ran.result
    assert read_valid(server.root / "run-all.ipynb").cells[1]["outputs"][0]["text"] == "6\n"
    listed = client.call("list_variables", {"notebook": "run-all.ipynb"})
    assert {v["name"] for v in listed[PS]["variables"]} == {"rows", "total"}
    assert listed[PS]["kernelId"] == next(s for s in sessions(server) if s["path"] == "run-all.ipynb")["kernel"]["id"]
    detail = client.call("inspect_variable", {"notebook": "run-all.ipynb", "name": "rows"})
    assert detail[PS]["variable"]["length"] == 3
    again = client.call("execute_cell", {"notebook": "run-all.ipynb", "cell_index": 1})
    assert again[PS]["executionCount"] == 3, "looking counted no execution"


def test_requests_without_valid_credentials_run_nothing(server: JupyterServerProcess) -> None:
    before = kernel_ids(server)
    url = server.url + ENDPOINT
    call = {"name": "execute_code", "arguments": {"code": "open('ran', 'w')"}}
    for headers in ({}, {"Authorization": "token not-the-token"}, {"Authorization": "Bearer not-the-token"}):
        for method, params in (("tools/call", call), ("tools/list", {})):
            response = HttpTarget(url, headers=headers).exchange(OUTPUTS_VERSION, None, method, params)
            assert response.status in (401, 403), (headers, response.status, response.raw[:300])
            assert b"jsonrpc" not in response.raw
            # A client without a cookie is told what it lacks, its token, not the browser's _xsrf (issue 49).
            assert b"token" in response.raw and b"_xsrf" not in response.raw, response.raw[:300]
            assert (b"did not accept the token" in response.raw) == bool(headers), response.raw[:300]
    assert kernel_ids(server) == before and not (server.root / "ran").exists()


def test_a_login_cookie_needs_the_xsrf_header(server: JupyterServerProcess) -> None:
    """A browser's credentials: the login cookie, from a page opened with the token; a POST needs its _xsrf too."""
    with httpx.Client(timeout=30, follow_redirects=True) as browser:
        assert browser.get(f"{server.url}tree?token={server.token}").status_code in (200, 404)
        browser.get(f"{server.url}login")  # sets the _xsrf cookie
        xsrf = browser.cookies.get("_xsrf")
        assert xsrf and any(name.startswith("username-") for name in browser.cookies), dict(browser.cookies)
        cookies = HttpTarget(server.url + ENDPOINT, headers={"Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())})
        call = {"name": "list_kernels", "arguments": {}}
        refused = cookies.exchange(OUTPUTS_VERSION, None, "tools/call", call)
        assert refused.status == 403 and b"_xsrf" in refused.raw
        allowed = cookies.exchange(OUTPUTS_VERSION, None, "tools/call", call, headers={"X-XSRFToken": xsrf})
        assert allowed.status == 200, allowed.raw[:300]
    lines = audit_lines(server, "list_kernels", lambda line: line["via"] == "jupyter")
    assert any(line["via"] == "jupyter" and line["caller"] != os_user() for line in lines), lines


def test_the_audit_trail_says_who_ran_what_without_the_code(client: CheckedClient, server: JupyterServerProcess) -> None:
    arguments = {"code": "secret_value = 'do-not-log-me'; print(len(secret_value))"}
    out = client.call("execute_code", arguments)
    assert not out.is_error
    line = next(line for line in audit_lines(server, "execute_code", lambda line: line["arguments"] == digest(arguments))
                if line["arguments"] == digest(arguments))
    assert line["caller"] == os_user() and line["via"] == "jupyter-token", "the server's one token: its holder, who runs it"
    assert line["outcome"] == "ok" and line["error"] is None and line["kernels"] == [out[PS]["kernelId"]]
    assert line["protocol"] == "2026-12-01" and PS in line["requested"] and line["duration_ms"] > 0
    failed = client.call("execute_code", {"code": "1/0"})
    assert failed.is_error
    errors = audit_lines(server, "execute_code", lambda line: line["outcome"] == "error")
    assert any(line["outcome"] == "error" and line["error"] == failed[PS]["error"]["type"] for line in errors)
    text = (server.folder / "audit.jsonl").read_text()
    assert "do-not-log-me" not in text and server.token not in text


def test_the_conformance_suite_passes_through_the_extension(server: JupyterServerProcess) -> None:
    done = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-url", server.url + ENDPOINT,
                           "--header", f"Authorization: token {server.token}", "-q"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " 0 fail" in done.stdout, done.stdout[-1500:]


def test_spans_configured_the_standard_way_say_who_ran_what(tmp_path: Path) -> None:
    """OTEL_TRACES_EXPORTER=console (the otel extra installed): the server's log has a span per tool call and per execution."""
    env = {"OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "jupyter-under-test", "OTEL_BSP_SCHEDULE_DELAY": "50"}
    server = JupyterServerProcess(tmp_path, extensions=("mcp_variants.jupyter_extension",), env=env)
    with server.start(60):
        with CheckedClient.http(server.url + ENDPOINT, server.auth_headers) as client:
            out = client.call("execute_code", {"code": "1+1"})
        log = until(lambda: '"name": "kernel execute"' in server.output() and server.output(), "the kernel's span in the log", 10)
    assert '"name": "tool execute_code"' in log and '"name": "kernel execute"' in log, log[-3000:]
    assert f'"jupyter.kernel.id": "{out[PS]["kernelId"]}"' in log and '"mcp.protocol.version": "2026-12-01"' in log
    assert f'"enduser.id": "{os_user()}"' in log and '"service.name": "jupyter-under-test"' in log


def test_a_run_past_its_timeout_is_interrupted_and_a_dead_kernel_is_replaced(client: CheckedClient, server: JupyterServerProcess) -> None:
    kept = client.call("execute_code", {"code": "kept = 41"})
    slow = client.call("execute_code", {"code": "import time; time.sleep(60)", "timeout": 2})
    assert slow.is_error and slow[PS]["error"]["type"] == "timeout", slow.result
    after = client.call("execute_code", {"code": "kept + 1"})
    assert after[PS]["outputs"][0]["data"]["text/plain"] == "42", "an interrupt, not a restart: the state is kept"
    died = client.call("execute_code", {"code": "import os; os._exit(1)"})
    assert died.is_error and died[PS]["error"]["type"] == "kernel-died", died.result
    fresh = client.call("execute_code", {"code": "'kept' in globals()"})
    assert fresh[PS]["outputs"][0]["data"]["text/plain"] == "False" and fresh[PS]["kernelRestarted"] is True
    assert fresh[PS]["kernelId"] != kept[PS]["kernelId"]
    # The dead kernel's shutdown is the server's kernel manager's, after the replacement answered: wait for it.
    until(lambda: kept[PS]["kernelId"] not in kernel_ids(server), "the dead kernel leaves the server's kernel list")


def test_restart_notebook_restarts_its_session_kernel(client: CheckedClient, server: JupyterServerProcess) -> None:
    write_notebook(server.root / "restart.ipynb", [code("y = 1")])
    ran = client.call("execute_cell", {"notebook": "restart.ipynb", "cell_index": 0})
    restarted = client.call("restart_notebook", {"notebook": "restart.ipynb"})
    assert not restarted.is_error, restarted.result
    check = client.call("insert_execute_code_cell", {"notebook": "restart.ipynb", "cell_index": 1, "source": "'y' in globals()"})
    assert "False" in text_of(check[AC]) and check[PS]["kernelId"] == ran[PS]["kernelId"], "the same session kernel, restarted"
