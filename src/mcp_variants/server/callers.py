"""Who makes a request: one principal per HTTP request, in the SDK's own form, whoever authenticated it.

A request's ASGI scope carries `user`, an `AuthenticatedUser` of mcp.server.auth, set by whatever checked
its credential: the SDK's bearer middleware with a token verifier (a JupyterHub's tokens: hub_auth.py), or
the Jupyter server extension (the Jupyter user). The SDK binds each HTTP session to that principal (a
session is refused to another one), and every tool call reads its caller from it. On stdio the caller is
the user the server runs as; with `--token`, that one person too.
"""

from __future__ import annotations

import functools
import getpass
from collections.abc import Sequence
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext

from ..protocol.versions import OUTPUTS_VERSION
from ..sdk._bridge import is_outputs_request
from ..tools.shared.spec import Caller, CallInfo

VIA_CLAIM = "io.github.mcp-variants/via"  # how the principal was authenticated: "jupyter", "jupyterhub"


def principal(name: str, via: str, scopes: Sequence[str] = (), *, token: str = "", client_id: str | None = None) -> AuthenticatedUser:
    """A request's principal, as the SDK's bearer middleware would make it from a verified token."""
    return AuthenticatedUser(AccessToken(token=token, client_id=client_id or name, scopes=list(scopes), subject=name,
                                         claims={VIA_CLAIM: via}))


@functools.cache
def os_user() -> str:
    """The user this server runs as. Asked once: getpass reads the environment, then the password database
    (a file read), which was a tenth of a tools/call's own time on stdio."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container's)
        return "unknown"


def caller_of(ctx: ServerRequestContext[Any, Any]) -> Caller:
    if ctx.request is None:
        return Caller(os_user(), "stdio")
    user = ctx.request.scope.get("user")
    if isinstance(user, AuthenticatedUser):
        token = user.access_token
        via = str((token.claims or {}).get(VIA_CLAIM, "bearer"))
        return Caller(token.subject or token.client_id, via, tuple(token.scopes))
    if ctx.request.headers.get("authorization"):  # only --token's BearerAuth lets a request with one through unverified
        return Caller(os_user(), "token")
    return Caller("anonymous", "http")


def call_info(ctx: ServerRequestContext[Any, Any], session: str | None) -> CallInfo:
    """The caller, the protocol version the client speaks (2026-12-01 where the bridge admitted it) and what it asked for."""
    params = ctx.params or {}
    requested = params.get("requestedOutputs")
    selectors = tuple(f"{s.get('audience')}/{s.get('format')}" for s in requested if isinstance(s, dict)) \
        if isinstance(requested, list) else ()
    version = OUTPUTS_VERSION if is_outputs_request(params) else ctx.protocol_version
    return CallInfo(caller=caller_of(ctx), protocol_version=version, requested=selectors, session=session)
