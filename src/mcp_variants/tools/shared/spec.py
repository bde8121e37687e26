"""What a tool is to the server: a name, a run function and its projectors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ...images import ImagePolicy
from ...jupyter.hub import ClientState, Hub
from ...jupyter.runtime import Backend, ProgressCallback
from ...protocol.projection import Outcome, ToolProjectors


@dataclass(frozen=True)
class Limits:
    """Caps that keep responses and memory bounded."""

    default_timeout: float = 300.0
    assistant_text_bytes: int = 20_000  # per output, for assistant and user variants
    hard_cap_bytes: int = 4_000_000  # everything a run may keep, programmatic included
    progress_interval: float = 5.0


@dataclass
class ToolContext:
    limits: Limits
    hub: Hub
    client: ClientState
    progress: ProgressCallback | None = None
    images: ImagePolicy = field(default_factory=ImagePolicy)  # how content variants carry images (--images)

    @property
    def backend(self) -> Backend:
        return self.hub.backend(self.client)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    run: Callable[[ToolContext, dict[str, Any]], Awaitable[Outcome]]
    projectors: ToolProjectors
    task_support: Literal["optional", "required"] | None = None  # a long run may be a task (sdk/task_wire.py)
