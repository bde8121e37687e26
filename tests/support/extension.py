"""A Jupyter server with the mcp-variants extension, its MCP endpoint at `{url}` + `ENDPOINT`.

`extension_server(folder, ...)` is a JupyterServerProcess that loads `mcp_variants.jupyter_extension`
(the tests' servers read no configuration, so it is named, as the config file an install ships
names it). Tests speak to the endpoint as to any streamable HTTP server: `checked.CheckedClient.http(url,
headers)` (the server's token, a Hub token) or, for what a refused request gets, `conformance.wire.HttpTarget`.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_variants.jupyter.server_launcher import COLLABORATION_EXTENSIONS, JupyterServerProcess
from support.jupyter import LAB_SETTINGS

EXTENSION = "mcp_variants.jupyter_extension"
ENDPOINT = "mcp"


def extension_server(folder: Path, *options: str, lab: bool = False) -> JupyterServerProcess:
    """jupyter-server with the extension (`lab`: a JupyterLab with real-time collaboration too); `options` are traitlets."""
    if not lab:
        return JupyterServerProcess(folder, extensions=(EXTENSION,), args=options)
    settings = folder / "lab-settings"
    for name, values in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return JupyterServerProcess(folder, app="jupyterlab", extensions=(*COLLABORATION_EXTENSIONS, EXTENSION),
                                args=[f"--LabApp.user_settings_dir={settings}", "--LabApp.expose_app_in_browser=True", *options])
