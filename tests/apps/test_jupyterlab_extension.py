"""A person in a real browser and the agent through the Jupyter server extension, in the same notebook: JupyterLab
4.6 with real-time collaboration and mcp-variants' extension in one server, the notebook open in headless
Chromium (support.lab.LabPage), the agent's calls POSTed to that server's /mcp with its token.

The agent's edits are transactions on the room's own document, in the server's process; what the page types
with real key events reaches the same document. Both are kept, and the agent's cell and output show at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.apps import apps_installed, chromium, node
from support.checked import CheckedClient
from support.extension import ENDPOINT, extension_server
from support.lab import LabPage

from .test_jupyterlab_live import agents_cell_and_output_show_within_two_seconds, page_types_while_the_agent_edits

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    with extension_server(tmp_path_factory.mktemp("lab-with-extension"), lab=True).start(90) as process:
        yield process


@pytest.fixture(scope="module")
def mcp(lab: JupyterServerProcess) -> Iterator[CheckedClient]:
    with CheckedClient.http(lab.url + ENDPOINT, lab.auth_headers) as client:
        yield client


@pytest.fixture
def page(lab: JupyterServerProcess, tmp_path: Path) -> Iterator[LabPage]:
    apps_installed()
    lab_page = LabPage(node(20), chromium(), tmp_path / "chromium-profile")
    try:
        yield lab_page
    finally:
        lab_page.close()


def test_the_agents_cell_and_output_show_at_once(lab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    agents_cell_and_output_show_within_two_seconds(lab, page, mcp)


def test_the_page_types_while_the_agent_edits_and_both_are_kept(lab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    page_types_while_the_agent_edits(lab, page, mcp)
