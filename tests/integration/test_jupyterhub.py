"""A user's server behind a real JupyterHub (`--jupyter-url https://HUB/user/NAME/` and that user's API token).

One Hub for the module (support.scale: configurable-http-proxy from npm, DummyAuthenticator,
SimpleLocalProcessSpawner), user `alice`, and a token with the one scope our server needs,
`access:servers!user=alice`. Every call is a stateless 2026-12-01 request for every declared
variant, each output checked against its schema. The notebook flow runs through the Hub's
proxy (REST with the token in a header: no XSRF cookie needed); the Hub stops alice's server
while a run is in flight (a clear `unreachable` error, the Hub's own words, within seconds),
calls made while it is stopped say so, and once it is back the next call works, in a new kernel
that says state was lost. A token without the scope is refused clearly; no token reaches a
response or stderr.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.client.stdio import StdioConnection
from support.checked import CheckedClient, Outputs, text_of
from support.scale import HubProcess, jupyterhub_fixture  # noqa: F401 - the `jupyterhub` fixture
from support.servers import serve_command, serve_stdio
from support.waiting import marked_sleep, until

from .conftest import code, read_valid, write_notebook

pytestmark = pytest.mark.timeout(300)

AC, AS, PS = "assistant/content", "assistant/structured", "programmatic/structured"
USER = "alice"
SCOPES = [f"access:servers!user={USER}"]  # the one our server needs: reach the user's server through the Hub's proxy


@pytest.fixture(scope="module")
def hub(jupyterhub: HubProcess) -> HubProcess:
    jupyterhub.add_user(USER)
    jupyterhub.start_server(USER)
    return jupyterhub


@pytest.fixture(scope="module")
def token(hub: HubProcess) -> str:
    return hub.user_token(USER, SCOPES)


@pytest.fixture(scope="module")
def home(hub: HubProcess) -> Path:
    return hub.folder / "users" / USER  # the spawner's home_dir_template: the single-user server's root


@pytest.fixture(scope="module")
def connection(hub: HubProcess, token: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioConnection]:
    connection = serve_stdio(tmp_path_factory.mktemp("hub-client"), "--jupyter-url", hub.user_url(USER),
                             "--jupyter-token", token, stderr_keep=None)
    try:
        yield connection
    finally:
        connection.close()
    assert token not in connection.stderr_tail.decode(errors="replace")


@pytest.fixture(scope="module")
def client(connection: StdioConnection) -> CheckedClient:
    return CheckedClient(connection, stateless=True)


def test_the_notebook_flow_through_the_hub(client: CheckedClient, home: Path) -> None:
    write_notebook(home / "flow.ipynb", [code("x = 6")])
    listed = client.call("list_files", {"pattern": "*.ipynb"})
    assert not listed.is_error, listed.result
    assert "flow.ipynb" in {f["path"] for f in listed[PS]["files"]}

    first = client.call("execute_cell", {"notebook": "flow.ipynb", "cell_index": 0})
    assert not first.is_error, first.result
    inserted = client.call("insert_execute_code_cell", {"notebook": "flow.ipynb", "cell_index": 1, "source": "print(x * 7)"})
    assert not inserted.is_error and "42" in text_of(inserted[AC]), inserted.result
    added = client.call("insert_cell", {"notebook": "flow.ipynb", "cell_index": 2, "cell_type": "markdown", "source": "# done"})
    assert not added.is_error, added.result
    read = client.call("read_notebook", {"notebook": "flow.ipynb"})
    assert not read.is_error and "print(x * 7)" in text_of(read[AC])

    cells = read_valid(home / "flow.ipynb").cells  # what the user's server wrote, in the user's home
    assert [c["source"] for c in cells] == ["x = 6", "print(x * 7)", "# done"]
    assert cells[1]["outputs"][0]["text"] == "42\n"
    kernels = client.call("list_kernels", {})
    assert first[PS]["kernelId"] in {k["id"] for k in kernels[PS]["kernels"]}


def test_execute_code_every_variant_through_the_hub(client: CheckedClient, home: Path) -> None:
    out = client.call("execute_code", {"code": "import os; print(os.getcwd())"})
    assert not out.is_error, out.result
    assert text_of(out[AC]).strip().endswith(str(home)), "the kernel runs in the user's server"
    assert out[AS]["kind"] == "code.execute"


def test_the_hub_stops_the_server_mid_run_then_it_recovers(client: CheckedClient, hub: HubProcess, home: Path) -> None:
    before = client.call("execute_code", {"code": "kept = 41"})
    assert not before.is_error, before.result
    outcome: dict[str, Any] = {}

    def slow_run() -> None:
        began = time.monotonic()
        outcome["result"] = client.call("execute_code", {"code": marked_sleep(home / "run-in-flight", 120)})
        outcome["seconds"] = time.monotonic() - began

    runner = threading.Thread(target=slow_run)
    runner.start()
    until((home / "run-in-flight").exists, "the run in flight")
    stopped_at = time.monotonic()
    hub.stop_server(USER)
    runner.join(60)
    assert not runner.is_alive(), "the run ended when its server went away"
    during: Outputs = outcome["result"]
    assert during.is_error and during[PS]["error"]["type"] in ("unreachable", "kernel-died"), during.result
    assert time.monotonic() - stopped_at < 20
    assert len(text_of(during[AC])) > 20

    while_stopped = client.call("execute_code", {"code": "1"})
    assert while_stopped.is_error and while_stopped[PS]["error"]["type"] == "unreachable"
    message = text_of(while_stopped[AC])
    assert "is not running" in message and "no longer running" in message and f"/hub/spawn/{USER}" in message, message

    hub.start_server(USER)
    after = client.call("execute_code", {"code": "'kept' in globals()"})
    assert not after.is_error, after.result
    assert after[PS]["outputs"][0]["data"]["text/plain"] == "False"
    assert after[PS]["kernelRestarted"] is True and after[PS]["kernelId"] != before[PS]["kernelId"]
    assert "restarted" in text_of(after[AC])

    write_notebook(home / "after.ipynb", [code("print(6 * 7)")])
    cell = client.call("execute_cell", {"notebook": "after.ipynb", "cell_index": 0})
    assert not cell.is_error and "42" in text_of(cell[AC]), cell.result


def test_a_token_without_the_scope_is_refused_clearly(hub: HubProcess, tmp_path: Path) -> None:
    """A token of the user's without `access:servers!user=NAME`: the server does not start, and says which option is
    wrong (checked at start since issue 22), without printing the token."""
    weak = hub.user_token(USER, [f"read:users:name!user={USER}"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER_", "MCP_VARIANTS_"))}
    done = subprocess.run(serve_command(tmp_path, "--jupyter-url", hub.user_url(USER), "--jupyter-token", weak),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert f"--jupyter-token is not accepted by {hub.user_url(USER)}" in done.stderr, done.stderr
    assert weak not in done.stderr + done.stdout
