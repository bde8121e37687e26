"""The Jupyter servers this project launches, on the child-process harness (processes.py).

- `TokenEndpoint`: where a Jupyter-style REST API answers, and its token.
- `TokenServerProcess`: a server whose REST API takes a token in the Authorization header (its URL and headers).
- `JupyterServerProcess`: a jupyter-server (or another Jupyter server app, JupyterLab with real-time
  collaboration say) on 127.0.0.1 in a folder of its own.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import httpx

from ..processes import LOOPBACK, ProcessExited, ServerProcess, free_port, tls_context
from ..tokens import token_headers

# The server extensions of real-time collaboration (jupyter-collaboration): the file ids its rooms
# are named by, and the rooms (jupyter-server-ydoc).
COLLABORATION_EXTENSIONS = ("jupyter_server_fileid", "jupyter_server_ydoc")


def installed(*modules: str) -> bool:
    """Whether every one of `modules` can be imported here (without importing it)."""
    return all(importlib.util.find_spec(module) is not None for module in modules)


@dataclass(frozen=True)
class TokenEndpoint:
    """Where a Jupyter-style REST API answers (base URL ending in a slash) and the token it takes."""

    url: str
    token: str

    @property
    def auth_headers(self) -> dict[str, str]:
        return token_headers(self.token)


class TokenServerProcess(ServerProcess):
    """A server whose REST API takes `token` in the Authorization header, as Jupyter's do (a Jupyter
    server, an Enterprise Gateway): its base URL and the headers to reach it."""

    token: str

    @property
    def url(self) -> str:
        """The server's base URL, ending in a slash (no token in it)."""
        return f"http://{self.host}:{self.port}/"

    @property
    def auth_headers(self) -> dict[str, str]:
        return token_headers(self.token)


class JupyterServerProcess(TokenServerProcess):
    """A Jupyter server this process launches on 127.0.0.1, isolated in `folder`:

    - `folder/root`: what it serves, and its kernels' working folder (and its own);
    - `folder/config`, `folder/data` and `folder/runtime`: JUPYTER_CONFIG_DIR, JUPYTER_DATA_DIR
      (its file ids, say) and JUPYTER_RUNTIME_DIR; no configuration of the user or of the
      environment is read (JUPYTER_NO_CONFIG), so only the server `extensions` named here are
      loaded, whatever else is installed;
    - `folder/tmp`: TMPDIR of the server and its kernels: with JUPYTER_NO_CONFIG, jupyter_core makes a blank config
      folder in TMPDIR in every process (server and each kernel) and never removes it; here it goes with `folder`;
    - `folder/jupyter_server_config.py`: `config`, extra configuration text (the sandboxes'
      TCP_NODELAY kernel-websocket class, say);
    - `folder/token`: its token (`token`, or a random one), read by the server through
      JUPYTER_TOKEN_FILE, so it is neither in its command line nor in its kernels' environment
      (JUPYTER_TOKEN and MCP_VARIANTS_TOKEN are removed from that environment);
    - `folder/server.log`: its output; `output()` masks the token.

    Ready once /api/status answers 200 to the token. `app` is the module run as `python -m` would (without
    jsonschema's `iri` checkers: iri_checker.py):
    jupyter_server, or another ServerApp-based one (`jupyterlab`, which loads itself);
    `extensions` are server extensions to load (COLLABORATION_EXTENSIONS for real-time
    collaboration); `args` are more command-line options, `env` more environment variables.
    It runs in a session of its own; as root it passes allow_root. `start()` retries on a
    fresh port when the server exits before it serves (a port taken between our probe and its bind).
    """

    PORT_ATTEMPTS = 3

    def __init__(self, folder: Path, *, token: str | None = None, config: str = "", app: str = "jupyter_server",
                 extensions: Sequence[str] = (), args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        self.folder = folder
        self.root = folder / "root"
        self.token = token or secrets.token_hex(32)  # hex: a token that starts with "-" reads as an option on a command line
        self.config = config
        self.app = app
        self.extensions = list(extensions)
        self.args = list(args)
        base = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_TOKEN", "JUPYTER_TOKEN_FILE", "MCP_VARIANTS_TOKEN")}
        base.update(JUPYTER_TOKEN_FILE=str(folder / "token"), JUPYTER_CONFIG_DIR=str(folder / "config"),
                    JUPYTER_DATA_DIR=str(folder / "data"), JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
                    JUPYTER_NO_CONFIG="1", TMPDIR=str(folder / "tmp"), **(env or {}))
        super().__init__([], 0, cwd=self.root, env=base, log=folder / "server.log", new_session=True)

    @property
    def collaborative(self) -> bool:
        return set(COLLABORATION_EXTENSIONS) <= set(self.extensions)

    def command(self, port: int) -> list[str]:
        command = [
            sys.executable, "-m", "mcp_variants.iri_checker", self.app,  # `-m app` without the `iri` checkers (iri_checker.py)
            f"--config={self.folder / 'jupyter_server_config.py'}",
            f"--ServerApp.ip={LOOPBACK}", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={self.root}", "--ServerApp.open_browser=False", "--ServerApp.terminals_enabled=False",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--ServerApp.allow_root=True")  # jupyter-server refuses root otherwise
        if self.extensions:
            command.append(f"--ServerApp.jpserver_extensions={dict.fromkeys(self.extensions, True)!r}")  # a Python literal
        return [*command, *self.args]

    def _prepare_folder(self) -> None:
        if (self.folder / "token").exists():
            return
        self.root.mkdir(parents=True, exist_ok=True)
        (self.folder / "data").mkdir(exist_ok=True)  # the file id database goes there: the folder must exist
        (self.folder / "tmp").mkdir(exist_ok=True)
        (self.folder / "jupyter_server_config.py").write_text(self.config)
        descriptor = os.open(self.folder / "token", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as token_file:
            token_file.write(self.token)  # no newline: the server reads the file as it is

    def spawn(self) -> Self:
        """Write its folder (once), take a free port, start it; returns at once."""
        self._prepare_folder()
        self.port = free_port()
        self.argv = self.command(self.port)
        return super().spawn()

    def restart(self, timeout: float = 60.0) -> Self:
        """Stop it and start it again on the same port and token: its URL stays, so its clients can
        connect again (what a Jupyter server restarted by its user looks like to them)."""
        self.stop()
        self.argv = self.command(self.port)
        ServerProcess.spawn(self)
        return self.wait_ready(timeout)

    def ready(self) -> bool:
        try:
            return httpx.get(f"{self.url}api/status", headers=self.auth_headers, timeout=2, verify=tls_context()).status_code == 200
        except httpx.HTTPError:
            return False

    def start(self, timeout: float = 60.0) -> Self:
        for attempt in range(1, self.PORT_ATTEMPTS + 1):
            try:
                return super().start(timeout)
            except ProcessExited:
                if attempt == self.PORT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def output(self) -> str:
        return super().output().replace(self.token, "***")
