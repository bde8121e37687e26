"""The MCP endpoint as a Jupyter API handler: the server's authentication and authorization decide every request.

`prepare` (jupyter-server's) finds the user through the server's identity provider (its token, a login
cookie, or JupyterHub's OAuth with the scope `access:servers!user=NAME` under a Hub), checks Host and
Origin, and checks XSRF for a cookie-authenticated POST or DELETE (a token in the Authorization header is
exempt, as for every Jupyter API). `web.authenticated` refuses a request without a user (403) and
`authorized` asks the server's authorizer for what a kernel's websocket needs, `execute` on `kernels`:
the endpoint runs code, so it is guarded as the kernels are. Only then does the request reach the MCP app,
with the user as its principal (server/callers.py) and no credential in its headers.

A POST without credentials, or with a token the server does not accept, fails the XSRF check first; its 403
then names the token (what such a client lacks), not `_xsrf` (what only a browser's cookie needs). The refusal
itself is jupyter-server's, unchanged: only its words are.
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


def token_refusal(authorization: str | None) -> str:
    """Why a request that carries no login cookie was refused: its token, wrong or missing."""
    pinned = ("the token changes at every start of the server unless pinned (JUPYTER_TOKEN, "
              "or c.IdentityProvider.token in jupyter_server_config.py)")
    if authorization:
        return f"the server did not accept the token in the Authorization header: send its current token; {pinned}"
    return f"no token: send the Jupyter server's token as 'Authorization: token <TOKEN>'; {pinned}"


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

    def check_xsrf_cookie(self) -> None:
        """jupyter-server's check; a refused request that carries no cookie is told about its token."""
        try:
            super().check_xsrf_cookie()
        except web.HTTPError as refused:
            if refused.status_code != 403 or "Cookie" in self.request.headers:
                raise
            raise web.HTTPError(403, token_refusal(self.request.headers.get("Authorization"))) from refused

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
