"""The runtime of the Jupyter server extension: the server this code runs inside, in process.

Its kernels through its kernel manager and session manager (`kernels`), its files through its contents
manager (`contents`), and, where jupyter-collaboration is loaded, its notebooks as the rooms' own shared
documents (`documents`), all behind the seam the other runtimes implement (jupyter/runtime.py). Nothing
goes over HTTP or a websocket to the server itself.
"""

from __future__ import annotations

from typing import Any

from ..live.contents import JupyterContents
from ..runtime import Backend
from .contents import ServerContents
from .documents import ServerRooms
from .kernels import ServerKernels

SERVER = "server"  # the backend key of the server the extension runs in


def inprocess_backend(serverapp: Any, *, kernel_name: str, hard_cap_bytes: int) -> Backend:
    """A Backend on `serverapp` (a jupyter_server ServerApp), in process."""
    kernels = ServerKernels(serverapp, kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
    contents = JupyterContents(ServerContents(serverapp.contents_manager), ServerRooms(serverapp))
    return Backend(SERVER, "this Jupyter server", kernels, contents)
