"""The MCP endpoint as a Jupyter API handler: the server's authentication and authorization decide every request.

`prepare` (jupyter-server's) finds the user through the server's identity provider (its token, a login
cookie, or JupyterHub's OAuth with the scope `access:servers!user=NAME` under a Hub), checks Host and
Origin, and checks XSRF for a cookie-authenticated POST or DELETE (a token in the Authorization header is
exempt, as for every Jupyter API). `web.authenticated` refuses a request without a user (403) and
`authorized` asks the server's authorizer for what a kernel's websocket needs, `execute` on `kernels`:
the endpoint runs code, so it is guarded as the kernels are. Only then does the request reach the MCP app,
with the user as its principal (server/callers.py) and no credential in its headers.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from typing import Any, cast

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..server.callers import os_user, principal
from .asgi import AsgiApp

AUTH_RESOURCE = "kernels"
AUTH_ACTION = "execute"
READY_S = 30.0  # a request that comes as the server starts waits this long for the app's lifespan


Method = Callable[["MCPHandler"], Awaitable[None]]


def guarded(method: Method) -> Method:
    """A user (else 403), allowed by the server's authorizer to execute on kernels (else 403)."""
    return cast(Method, web.authenticated(authorized(AUTH_ACTION, AUTH_RESOURCE)(method)))


class MCPHandler(APIHandler):
    auth_resource = AUTH_RESOURCE

    def initialize(self, app: AsgiApp, ready: asyncio.Event, mcp_path: str) -> None:
        self.app = app
        self.ready = ready
        self.mcp_path = mcp_path
        self._disconnected = asyncio.Event()

    def on_connection_close(self) -> None:
        self._disconnected.set()

    async def _serve(self) -> None:
        try:
            await asyncio.wait_for(self.ready.wait(), READY_S)
        except TimeoutError:
            raise web.HTTPError(503, "the MCP endpoint is starting") from None
        await self.app.serve(self, path=self.mcp_path, disconnected=self._disconnected, extra={"user": self._principal()})

    def _principal(self) -> Any:
        """The user, as the server knows them. The server's one shared token names nobody (jupyter-server makes up an
        anonymous user for each request that carries it): its holder is the person who runs the server. So is
        everyone on a server with authentication turned off (no token, no password), where jupyter-server makes up
        a new anonymous user for every request without its cookie: a session could not outlive its first request."""
        user = self.current_user
        hub_user = getattr(user, "hub_user", None)  # JupyterHub's identity provider keeps the Hub's model of the user
        if hub_user is not None:
            return principal(user.username, "jupyterhub", hub_user.get("scopes") or [])
        if self._shared_token():
            return principal(os_user(), "jupyter-token")
        if not self.identity_provider.auth_enabled:
            return principal(os_user(), "jupyter-no-auth")
        return principal(user.username, "jupyter")

    def _shared_token(self) -> bool:
        given = self.identity_provider.get_token(self) if self.token else None
        return bool(given) and hmac.compare_digest(str(given), str(self.token))

    @guarded
    async def post(self) -> None:
        await self._serve()

    @guarded
    async def get(self) -> None:
        await self._serve()

    @guarded
    async def delete(self) -> None:
        await self._serve()
