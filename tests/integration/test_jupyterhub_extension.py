"""A real JupyterHub whose users' servers carry the extension (mcp-variants installed in their environment,
the extension on by its config file, nothing configured by hand): MCP at https://HUB/user/NAME/mcp.

The Hub's OAuth decides: alice's token with `access:servers!user=alice` reaches her server's MCP endpoint
through the Hub's proxy, and the calls run as alice (the audit trail in her home says so); bob's token, a
token of alice's without the scope and a wrong token reach nothing; while her server is stopped the Hub
answers and nothing runs, and once it is back the endpoint is too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.tokens import token_headers
from support.checked import OUTPUTS_VERSION, CheckedClient, text_of
from support.extension import ENDPOINT
from support.scale import START_TIMEOUT, HubProcess, hub_extension_env
from support.waiting import until

pytestmark = pytest.mark.timeout(400)
ALICE, BOB = "alice", "bob"
AC, PS = "assistant/content", "programmatic/structured"
AUDIT = "mcp-audit.jsonl"  # in each user's home: the single-user server's folder


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HubProcess]:
    folder = tmp_path_factory.mktemp("hub-extension")
    with HubProcess(folder, hub_extension_env(), singleuser_args=[f"--MCPVariants.audit_log={AUDIT}"]).start(START_TIMEOUT) as process:
        for name in (ALICE, BOB):
            process.add_user(name)
            process.start_server(name)
        yield process


def endpoint(hub: HubProcess, name: str) -> str:
    return hub.user_url(name) + ENDPOINT


def home(hub: HubProcess, name: str) -> Path:
    return hub.folder / "users" / name


@pytest.fixture(scope="module")
def alice_token(hub: HubProcess) -> str:
    return hub.user_token(ALICE, [f"access:servers!user={ALICE}"])


@pytest.fixture(scope="module")
def alice(hub: HubProcess, alice_token: str) -> Iterator[CheckedClient]:
    with CheckedClient.http(endpoint(hub, ALICE), token_headers(alice_token)) as client:
        yield client


def refused(url: str, headers: dict[str, str]) -> int:
    """The status a tools/call that would write a file gets; it must not be 200."""
    response = HttpTarget(url, headers=headers).exchange(OUTPUTS_VERSION, None, "tools/call",
                                                         {"name": "execute_code", "arguments": {"code": "open('ran', 'w')"}})
    assert response.status != 200 and b"jsonrpc" not in response.raw, (response.status, response.raw[:300])
    return response.status


def audit(hub: HubProcess, name: str) -> list[dict[str, Any]]:
    path = home(hub, name) / AUDIT
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_alices_hub_token_reaches_her_servers_mcp_and_runs_as_alice(alice: CheckedClient, hub: HubProcess) -> None:
    out = alice.call("execute_code", {"code": "import os; print(os.getcwd())"})
    assert not out.is_error, out.result
    assert text_of(out[AC]).strip().endswith(str(home(hub, ALICE))), "the kernel is her server's"
    line, *_ = until(lambda: [line for line in audit(hub, ALICE) if line["tool"] == "execute_code"], "the call in Alice's audit trail",
                     timeout=10)
    assert line["caller"] == ALICE and line["via"] == "jupyterhub" and line["kernels"] == [out[PS]["kernelId"]]


def test_no_other_credential_reaches_her_server(hub: HubProcess) -> None:
    bobs = hub.user_token(BOB, [f"access:servers!user={BOB}"])
    assert refused(endpoint(hub, ALICE), token_headers(bobs)) in (401, 403, 404), "bob's token reaches only bob's server"
    without_scope = hub.user_token(ALICE, [f"read:users:name!user={ALICE}"])
    assert refused(endpoint(hub, ALICE), token_headers(without_scope)) in (401, 403)
    assert refused(endpoint(hub, ALICE), token_headers("not-a-token")) in (401, 403)
    assert refused(endpoint(hub, ALICE), {}) in (302, 401, 403)
    assert not (home(hub, ALICE) / "ran").exists()
    with CheckedClient.http(endpoint(hub, BOB), token_headers(bobs)) as client:
        listed = client.call("list_kernels", {})
    assert not listed.is_error


def test_the_conformance_suite_passes_through_the_hub(hub: HubProcess, alice_token: str) -> None:
    done = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-url", endpoint(hub, ALICE),
                           "--header", f"Authorization: token {alice_token}", "-q"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_a_stopped_server_runs_nothing_and_comes_back(alice: CheckedClient, hub: HubProcess, alice_token: str) -> None:
    lines = len(audit(hub, ALICE))
    hub.stop_server(ALICE)
    # The Hub answers for a server that does not run (its proxy routes /user/alice/ to it): 403 to a POST (its
    # own XSRF check), 424 or 503 to other requests; nothing reaches a kernel.
    assert refused(endpoint(hub, ALICE), token_headers(alice_token)) in (403, 424, 503)
    assert not (home(hub, ALICE) / "ran").exists() and len(audit(hub, ALICE)) == lines
    hub.start_server(ALICE)

    def served_by_hers() -> bool:  # not the Hub's page, nor (seen once in CI) another user's server's 404
        return HttpTarget(endpoint(hub, ALICE), headers=token_headers(alice_token)).exchange(
            OUTPUTS_VERSION, None, "tools/list", {}).status == 200

    until(served_by_hers, "her endpoint served by her restarted server", timeout=START_TIMEOUT)
    out = alice.call("execute_code", {"code": "6 * 7"})
    assert not out.is_error and out[PS]["outputs"][0]["data"]["text/plain"] == "42", out.result
