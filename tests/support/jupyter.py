"""Real Jupyter servers for the tests that need one: a stock jupyter-server (the remote runtime's
REST path, connect_to_jupyter) and a JupyterLab with real-time collaboration (live notebooks)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import httpx
import nbformat
import pytest

from mcp_variants.jupyter.server_launcher import COLLABORATION_EXTENSIONS, JupyterServerProcess
from support.waiting import until

# JupyterLab settings for pages a test drives: no news or update prompts over the notebook, and
# every cell in the DOM (JupyterLab 4 renders only the cells in view by default).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    """A stock jupyter-server (no TCP_NODELAY tuning, no server extension) on 127.0.0.1 with a token
    of its own, for one test module; stopped by PID at the end, with any kernel a failed test left behind."""
    with JupyterServerProcess(tmp_path_factory.mktemp("jupyter")).start() as server:
        yield server


def jupyterlab_server(folder: Path, args: Sequence[str] = ()) -> JupyterServerProcess:
    """JupyterLab with jupyter-collaboration's server extensions, its settings in `folder/lab-settings`; `args`: more options."""
    settings = folder / "lab-settings"
    for name, values in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return JupyterServerProcess(folder, app="jupyterlab", extensions=COLLABORATION_EXTENSIONS,
                                args=[f"--LabApp.user_settings_dir={settings}", "--LabApp.expose_app_in_browser=True", *args])


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    """A real JupyterLab 4 with real-time collaboration on 127.0.0.1, for one test module."""
    with jupyterlab_server(tmp_path_factory.mktemp("jupyterlab")).start() as server:
        yield server


def kernel_ids(server: JupyterServerProcess) -> set[str]:
    """The ids of the kernels the server runs now (its REST API)."""
    response = httpx.get(f"{server.url}api/kernels", headers=server.auth_headers, timeout=10)
    response.raise_for_status()
    return {kernel["id"] for kernel in response.json()}


def sessions(server: JupyterServerProcess) -> list[dict[str, object]]:
    """The server's kernel sessions (GET /api/sessions): what JupyterLab runs notebooks in."""
    response = httpx.get(f"{server.url}api/sessions", headers=server.auth_headers, timeout=10)
    response.raise_for_status()
    return list(response.json())


def on_disk(lab: JupyterServerProcess, path: str, check: Callable[[nbformat.NotebookNode], bool],
            timeout: float = 10) -> nbformat.NotebookNode:
    """The notebook file once the server saved it with `check` true (JupyterLab saves a room about a second after a
    change). A read in the middle of a save can find the file empty or cut (jupyter-server's "atomic" save writes it
    in place beside a backup copy): that is not there yet."""
    def saved() -> nbformat.NotebookNode | None:
        try:
            notebook = nbformat.read(lab.root / path, as_version=4)
            if not check(notebook):
                return None
            nbformat.validate(notebook)
            return notebook
        except (OSError, ValueError):
            return None

    return until(saved, f"{path} on disk", timeout, every=0.1)
