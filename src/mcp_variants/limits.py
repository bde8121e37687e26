"""The server's limits, set by its command line (server/options.py) or the Jupyter extension's traits, read by every
tool call (`ToolContext.limits`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Caps that keep responses and memory bounded."""

    default_timeout: float = 300.0
    assistant_text_bytes: int = 20_000  # per output, for assistant and user variants
    hard_cap_bytes: int = 4_000_000  # everything a run may keep, programmatic included
    progress_interval: float = 5.0
