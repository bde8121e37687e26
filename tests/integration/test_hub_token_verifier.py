"""A standalone `serve --http --hub-api-url`: a JupyterHub's users reach it with their own Hub tokens.

A real JupyterHub registers the server as the service `mcp-variants` and gives alice and bob (not carol) the
scope to reach it, `access:services!service=mcp-variants`, as a deployment's role does. Each request's token
is checked with the Hub (`/hub/api/user`, the SDK's bearer middleware with our TokenVerifier); the calls run,
and are audited, as that user; a token without the scope, carol's, a wrong one and none get 401 and run
nothing; a session is the user's who opened it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_variants.conformance.wire import HttpTarget
from support.checked import OUTPUTS_VERSION, CheckedClient
from support.scale import START_TIMEOUT, HubProcess, hub_extension_env
from support.servers import HttpServer
from support.waiting import until

pytestmark = pytest.mark.timeout(300)
SERVICE = "mcp-variants"
SCOPE = f"access:services!service={SERVICE}"
PS = "programmatic/structured"
CONFIG = f'''
c.JupyterHub.services.append({{"name": "{SERVICE}"}})
c.JupyterHub.load_roles.append({{"name": "mcp-users", "scopes": ["{SCOPE}"], "users": ["alice", "bob"]}})
'''


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HubProcess]:
    with HubProcess(tmp_path_factory.mktemp("hub-verifier"), hub_extension_env(), config=CONFIG).start(START_TIMEOUT) as process:
        for name in ("alice", "bob", "carol"):
            process.add_user(name)
        yield process


@pytest.fixture(scope="module")
def server(hub: HubProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("hub-verified-root")
    process = HttpServer(root, "--hub-api-url", f"{hub.url}hub/api/", "--audit-log", str(root / "audit.jsonl"),
                         log=root.parent / "server.log")
    try:
        yield process
    finally:
        process.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def client(server: HttpServer, token: str) -> CheckedClient:
    return CheckedClient.http(server.url, bearer(token))


def audit(server: HttpServer) -> list[dict[str, Any]]:
    path = server.root / "audit.jsonl"  # made when the server starts
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_hub_user_calls_with_their_own_token_and_is_audited_as_themselves(hub: HubProcess, server: HttpServer) -> None:
    for name in ("alice", "bob"):
        out = client(server, hub.user_token(name, [SCOPE])).call("execute_code", {"code": f"print('{name}')"})
        assert not out.is_error, out.result
    def callers() -> list[tuple[str, str]]:
        return [(line["caller"], line["via"]) for line in audit(server) if line["tool"] == "execute_code"]

    until(lambda: len(callers()) >= 2, "both calls are in the audit trail")
    assert callers() == [("alice", "jupyterhub"), ("bob", "jupyterhub")]


def test_a_token_the_hub_does_not_grant_the_service_runs_nothing(hub: HubProcess, server: HttpServer) -> None:
    tokens = [hub.user_token("alice", ["access:servers!user=alice"]), hub.user_token("carol", ["read:users:name!user=carol"]),
              "not-a-hub-token"]
    before = len(audit(server))
    for headers in [*map(bearer, tokens), {}]:
        response = HttpTarget(server.url, headers=headers).exchange(OUTPUTS_VERSION, None, "tools/call",
                                                                    {"name": "execute_code", "arguments": {"code": "open('ran', 'w')"}})
        assert response.status == 401 and response.headers and "www-authenticate" in response.headers, (response.status, response.raw[:300])
    assert not (server.root / "ran").exists()
    assert len(audit(server)) == before


def test_a_session_belongs_to_the_user_who_opened_it(hub: HubProcess, server: HttpServer) -> None:
    alice, bob = hub.user_token("alice", [SCOPE]), hub.user_token("bob", [SCOPE])
    opened = server.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}, bearer(alice))
    assert opened.status == 200, opened.raw[:300]
    session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {}}
    assert server.post(ping, {**bearer(alice), **session}).status == 200
    assert server.post(ping, {**bearer(bob), **session}).status == 404, "another user's token finds no such session"
