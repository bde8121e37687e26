"""Who made a tool call, and how: what server/callers.py learns from the transport and the request, handed to
each call (`ToolContext.call`) for the audit trail and the spans."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Caller:
    """Who made a call, as the transport's authentication knows them (server/callers.py)."""

    name: str  # a Jupyter or JupyterHub user name; the server's OS user on stdio and with --token; "anonymous"
    via: str  # how they were known: "stdio", "token", "http" (nobody checked), "jupyter", "jupyterhub"
    scopes: tuple[str, ...] = ()  # what their credential allows, where it says (a JupyterHub token's scopes)


@dataclass(frozen=True)
class CallInfo:
    """What the audit trail and the spans say of a call besides its tool and arguments."""

    caller: Caller = Caller("unknown", "internal")
    protocol_version: str | None = None  # the client's: 2026-12-01 for a bridged request
    requested: tuple[str, ...] = ()  # requestedOutputs as "audience/format"; () for the default selection
    session: str | None = None  # the client's key (registry.ClientState.key): "stdio", "http:<session id>"; None when stateless
