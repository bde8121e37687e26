"""What a tool is to the server: a name, a run function and its projectors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ...images import ImagePolicy
from ...jupyter.registry import ClientState, RuntimeRegistry
from ...jupyter.runtime import Agent, Backend, ProgressCallback
from ...output_links import OutputKeeper
from ...protocol.projection import Outcome, ToolProjectors


@dataclass(frozen=True)
class Limits:
    """Caps that keep responses and memory bounded."""

    default_timeout: float = 300.0
    assistant_text_bytes: int = 20_000  # per output, for assistant and user variants
    hard_cap_bytes: int = 4_000_000  # everything a run may keep, programmatic included
    progress_interval: float = 5.0


@dataclass(frozen=True)
class Caller:
    """Who made a call, as the transport's authentication knows them (server/callers.py)."""

    name: str  # a Jupyter or JupyterHub user name; the server's OS user on stdio and with --token; "anonymous"
    via: str  # how they were known: "stdio", "token", "http" (nobody checked), "jupyter", "jupyterhub"
    scopes: tuple[str, ...] = ()  # what their credential allows, where it says (a Hub token's scopes)


@dataclass(frozen=True)
class CallInfo:
    """What the audit trail and the spans say of a call besides its tool and arguments."""

    caller: Caller = Caller("unknown", "internal")
    protocol_version: str | None = None  # the client's: 2026-12-01 for a bridged request
    requested: tuple[str, ...] = ()  # requestedOutputs as "audience/format"; () for the default selection
    session: str | None = None  # the client's key (registry.ClientState.key): "stdio", "http:<session id>"; None when stateless


@dataclass
class ToolContext:
    limits: Limits
    registry: RuntimeRegistry
    client: ClientState
    progress: ProgressCallback | None = None
    images: ImagePolicy = field(default_factory=ImagePolicy)  # how content variants carry images (--images)
    call: CallInfo = field(default_factory=CallInfo)
    outputs: OutputKeeper = field(default_factory=OutputKeeper)  # keeps execute_code's outputs as resources, for this client
    agent: Agent | None = None  # who people see at work in a live notebook (jupyter/live/presence.py); None: nobody

    @property
    def backend(self) -> Backend:
        return self.registry.backend(self.client)


ToolRun = Callable[[ToolContext, dict[str, Any]], Awaitable[Outcome]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    run: ToolRun
    projectors: ToolProjectors
    task_support: Literal["optional", "required"] | None = None  # a long run may be a task (sdk/_task_wire.py)
