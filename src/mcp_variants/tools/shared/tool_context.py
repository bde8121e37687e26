"""What a Jupyter tool runs with (`ToolContext`) and how it runs (`ToolRun`): a tool itself is the server API's
`VariantTool`, its declaration, projectors and run (tools/<tool>.py `TOOL`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ...call_info import CallInfo
from ...images import ImagePolicy
from ...jupyter.registry import ClientState, RuntimeRegistry
from ...jupyter.runtime import Agent, Backend, ProgressCallback
from ...limits import Limits
from ...output_links import OutputKeeper
from ...protocol.projection import Outcome


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

