"""The remote runtime: the kernels and files of a Jupyter server, reached by URL and token.

`server_client` speaks its REST API; `kernels` runs code on its kernels, whose messages come
over each kernel's websocket (`websocket`); `contents` keeps files and notebooks there. When
the server has real-time collaboration, notebooks are its shared documents and run in their
JupyterLab sessions' kernels (`..live`); without it, they are files (`contents`).
Importing it does not import jupyter_client: the websocket client is imported on first use.
"""

from __future__ import annotations

import hashlib

from ..live.contents import LiveContents, LiveDocument
from ..live.document import SharedNotebook
from ..live.rooms import Rooms
from ..live.sessions import SessionKernels
from ..runtime import Backend
from .contents import RemoteContents
from .server_client import JupyterServerClient, split_url

REMOTE = "remote"  # the backend key of --jupyter-url


def remote_key(url: str) -> str:
    """The backend key of a server connect_to_jupyter reached: one backend per distinct URL."""
    return f"{REMOTE}:{hashlib.sha256(url.encode()).hexdigest()[:12]}"


class RoomDocuments:
    """A Jupyter server's rooms, joined over websockets (live/rooms.py)."""

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms

    @property
    def available(self) -> bool | None:
        return self.rooms.available

    async def open(self, path: str) -> LiveDocument | None:
        if await self.rooms.session(path) is None:
            return None
        document = SharedNotebook(path, self.rooms)
        await document.open()
        return document


def remote_contents(server: JupyterServerClient) -> LiveContents:
    """The contents of a Jupyter server reached by URL: its rooms over websockets, its files through /api/contents."""
    return LiveContents(RemoteContents(server), RoomDocuments(Rooms(server)))


def server_backend(key: str, server: JupyterServerClient, *, label: str, hard_cap_bytes: int,
                   kernel_name: str = "python3") -> Backend:
    """A Backend on one Jupyter server: its kernels (notebooks in their sessions' kernels) and its contents
    (shared documents where it has real-time collaboration) share the one client."""
    return Backend(key, label, SessionKernels(server, kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes),
                   remote_contents(server))


def remote_backend(key: str, url: str, token: str | None, *, hard_cap_bytes: int, kernel_name: str = "python3") -> Backend:
    """A Backend on the Jupyter server at `url`; a `?token=` in the URL is used when no token is given."""
    base, url_token = split_url(url)
    return server_backend(key, JupyterServerClient(base, token or url_token), label=f"the Jupyter server at {base}",
                          hard_cap_bytes=hard_cap_bytes, kernel_name=kernel_name)
