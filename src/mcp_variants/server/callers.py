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
from mcp_types import CLIENT_INFO_META_KEY

from ..call_info import Caller, CallInfo
from ..jupyter.runtime import Agent, agent_name
from ..sdk.lowlevel import request_version

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


def client_name(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The MCP client's own name, for people to see: the request's clientInfo (2026-07-28 on), else its connection's
    (initialize); its title where it gives one, else its name."""
    meta = (ctx.params or {}).get("_meta")
    info: Any = meta.get(CLIENT_INFO_META_KEY) if isinstance(meta, dict) else None
    if isinstance(info, dict):
        return str(info.get("title") or info.get("name") or "") or None
    params = ctx.session.client_params
    if params is None:
        return None
    return params.client_info.title or params.client_info.name


def agent_of(ctx: ServerRequestContext[Any, Any], session: str | None, template: str) -> Agent:
    """The agent people see for this request: its session's, or, stateless, its caller's with that client's name
    (one collaborator for every request it makes, not one each)."""
    name = client_name(ctx)
    key = session if session is not None else f"stateless:{caller_of(ctx).name}:{name}"
    return Agent(key, agent_name(template, name))


def call_info(ctx: ServerRequestContext[Any, Any], session: str | None) -> CallInfo:
    """The caller, the protocol version the client speaks (2026-12-01 where the bridge admitted it) and what it asked for."""
    params = ctx.params or {}
    requested = params.get("requestedOutputs")
    selectors = tuple(f"{s.get('audience')}/{s.get('format')}" for s in requested if isinstance(s, dict)) \
        if isinstance(requested, list) else ()
    return CallInfo(caller=caller_of(ctx), protocol_version=request_version(ctx), requested=selectors, session=session)
