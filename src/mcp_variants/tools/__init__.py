"""The Jupyter tools: each module defines one `TOOL`, a `VariantTool` of the server API (mcp_variants.sdk.lowlevel)
on its declaration in variants/: its projectors shape its result per audience."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace

from ..sdk.lowlevel import VariantTool
from .shared.hints import with_hints
from .shared.where import following_jupyter

# The tools that choose a runtime or look at sandboxes: they run where they are, even beside a Jupyter server that
# does not answer (shared/where.py refuses every other call then), so a client can still pick another runtime.
CHOOSE_THEIR_RUNTIME = frozenset({"connect_to_jupyter", "launch_sandbox", "use_sandbox", "list_sandboxes", "terminate_sandbox"})


def _discover() -> dict[str, VariantTool]:
    tools: dict[str, VariantTool] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:  # shared/: the tools' helpers
            continue
        tool = getattr(importlib.import_module(f"{__name__}.{module.name}"), "TOOL", None)
        if isinstance(tool, VariantTool) and tool.run is not None:
            run = tool.run if tool.name in CHOOSE_THEIR_RUNTIME else following_jupyter(tool.run)
            tools[tool.name] = replace(tool, run=with_hints(run))  # a runtime's refusals get the tool to call
    return tools


TOOLS: dict[str, VariantTool] = _discover()
