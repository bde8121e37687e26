"""The Backends on Jupyter's servers, assembled from `remote/` and `live/`.

`http_server_backend` is the one assembly on a Jupyter server (`--jupyter-url`, connect_to_jupyter,
sandboxes): its kernels are `SessionKernels` (a notebook runs in its JupyterLab session's kernel),
its contents `JupyterContents` (shared documents where the server has real-time collaboration, files
otherwise). `gateway_backend` pairs an Enterprise Gateway's kernels with `--root` or `--jupyter-url`'s
contents.

They sit beside `remote/` and `live/` rather than inside `remote/`: `live/` is built on `remote/`'s
modules, so `remote/` importing `live/` left each of them unable to be imported first.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .live.contents import JupyterContents, LiveDocument
from .live.document import SharedNotebook
from .live.lobby import Lobby
from .live.rooms import Rooms
from .live.sessions import SessionKernels
from .local_contents import LocalContents
from .remote.contents import RemoteContents
from .remote.gateway import GatewayKernels
from .remote.server_client import JupyterServerClient, split_url
from .runtime import Backend

REMOTE = "remote"  # the backend key of --jupyter-url
GATEWAY = "gateway"  # the backend key of --gateway-url without --jupyter-url


def remote_key(url: str) -> str:
    """The backend key of a server connect_to_jupyter reached: one backend per distinct URL."""
    return f"{REMOTE}:{hashlib.sha256(url.encode()).hexdigest()[:12]}"


class RoomDocuments:
    """A Jupyter server's rooms, joined over websockets (live/rooms.py)."""

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self.lobby: Lobby | None = Lobby(rooms)

    @property
    def available(self) -> bool | None:
        return self.rooms.available

    async def open(self, path: str) -> LiveDocument | None:
        session = await self.rooms.session(path)
        if session is None:
            return None
        document = SharedNotebook(path, self.rooms, session)
        await document.open()
        return document


def remote_contents(server: JupyterServerClient) -> JupyterContents:
    """The contents of a Jupyter server reached by URL: its rooms over websockets, its files through /api/contents."""
    return JupyterContents(RemoteContents(server), RoomDocuments(Rooms(server)))


def http_server_backend(key: str, server: JupyterServerClient, *, label: str, hard_cap_bytes: int,
                   kernel_name: str = "python3") -> Backend:
    """A Backend on one Jupyter server: its kernels (notebooks in their sessions' kernels) and its contents
    (shared documents where it has real-time collaboration) share the one client."""
    return Backend(key, label, SessionKernels(server, kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes),
                   remote_contents(server))


def remote_backend(key: str, url: str, token: str | None, *, hard_cap_bytes: int, kernel_name: str = "python3") -> Backend:
    """A Backend on the Jupyter server at `url`; a `?token=` in the URL is used when no token is given."""
    base, url_token = split_url(url)
    return http_server_backend(key, JupyterServerClient(base, token or url_token), label=f"the Jupyter server at {base}",
                          hard_cap_bytes=hard_cap_bytes, kernel_name=kernel_name)


def gateway_backend(gateway_url: str, gateway_token: str | None, *, root: Path, jupyter_url: str | None, jupyter_token: str | None,
                    kernel_name: str, hard_cap_bytes: int) -> Backend:
    """Kernels on the gateway; notebooks and files on the Jupyter server at `jupyter_url` ("remote"), or under `root` ("gateway")."""
    kernels = GatewayKernels(gateway_url, gateway_token, kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
    if not jupyter_url:
        return Backend(GATEWAY, f"the kernels of {kernels.server.name}", kernels, LocalContents(root))
    base, url_token = split_url(jupyter_url)
    server = JupyterServerClient(base, jupyter_token or url_token)
    # Its notebooks as on any Jupyter server: shared documents where it has real-time collaboration, else files.
    contents = remote_contents(server)
    return Backend(REMOTE, f"the kernels of {kernels.server.name}, the files of {server.name}", kernels, contents)
