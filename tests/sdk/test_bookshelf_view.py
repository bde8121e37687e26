"""The guide's MCP Apps view (examples/bookshelf.py's shelf page) in a real host: headless Chromium, the official
AppBridge on the browser tests' host page (apps/harness), the tool called by our reference client against the bookshelf
server over streamable HTTP. The view makes the ui/initialize handshake ext-apps' App makes, so the host delivers the
result; it reads its own data at 2026-12-01 and shows the legacy content before (one rule, docs/guides/python-servers.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from apps.harness import HostServers, HostState, Scenario
from mcp_variants.client import ClientSession
from mcp_variants.client.apps_host import AppsHost
from mcp_variants.client.http import HttpTransport
from support.apps import APPS, UI_CAPS, apps_installed, chromium, node
from support.servers import HttpServer

pytestmark = [pytest.mark.wire, pytest.mark.timeout(600)]

BOOKSHELF = Path(__file__).resolve().parents[2] / "examples" / "bookshelf.py"
SCENARIOS = {"shelf": Scenario("2026-12-01", "shelf_view", {}), "legacy-shelf": Scenario("2026-07-28", "shelf_view", {})}


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    apps_installed()
    node_bin = node(20)
    work = tmp_path_factory.mktemp("bookshelf-view")
    pages = work / "pages"
    subprocess.run([node_bin, str(APPS / "build.mjs"), "--harness", str(pages)], check=True, capture_output=True, timeout=120)
    server = HttpServer(work, log=work / "server.log", command=[sys.executable, str(BOOKSHELF)])
    clients: list[httpx.Client] = []
    sessions: list[ClientSession] = []
    servers: HostServers | None = None
    try:
        hosts = {}
        for version in {s.host for s in SCENARIOS.values()}:
            client = httpx.Client()
            clients.append(client)
            session = ClientSession(HttpTransport(server.url, client=client), version, extensions=UI_CAPS, timeout=60)
            session.open()
            sessions.append(session)
            hosts[version] = AppsHost(session)
        servers = HostServers(HostState(pages, hosts, SCENARIOS))
        config = {"chromium": str(chromium()), "userDataDir": str(work / "profile"), "timeoutMs": 60000,
                  "appsPackage": str(APPS / "package.json"), "scenarios": [{"name": n, "url": servers.url(n)} for n in SCENARIOS]}
        (work / "config.json").write_text(json.dumps(config))
        run = subprocess.run([node_bin, str(Path(__file__).with_name("view_driver.mjs")), str(work / "config.json")],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        yield json.loads(run.stdout)
    finally:
        if servers is not None:
            servers.close()
        for session in sessions:
            session.close()
        for client in clients:
            client.close()
        server.close()


def test_at_2026_12_01_the_view_shows_its_own_output_after_the_handshake(shown: dict[str, Any]) -> None:
    entry = shown["shelf"]
    assert entry["error"] is None and entry["host"]["state"] == "delivered", entry
    assert entry["items"] == ["Middlemarch", "Persuasion", "Emma"], entry  # the ui output's titles


def test_before_2026_12_01_the_view_shows_the_legacy_content(shown: dict[str, Any]) -> None:
    entry = shown["legacy-shelf"]
    assert entry["error"] is None and entry["host"]["state"] == "delivered", entry
    assert entry["items"] == ["Showing 3 books."], entry  # assistant/content, never read as view data
