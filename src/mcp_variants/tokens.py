"""How Jupyter's REST APIs and their websockets take a token (a jupyter-server, a user's server
behind JupyterHub, an Enterprise Gateway): the Authorization header, never the URL.

Beside processes.py rather than in jupyter/: the process harness, which the conformance suite
and the client use without the runtimes, needs it too.
"""

from __future__ import annotations


def token_headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"token {token}"} if token else {}
