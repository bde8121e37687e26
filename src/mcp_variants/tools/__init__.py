"""The Jupyter tools: each module defines one `TOOL`, a `VariantTool` of the server API (mcp_variants.sdk.lowlevel)
on its declaration in variants/: its projectors shape its result per audience. `TOOLS` holds them as they are
defined; `server/app.served` decorates each for serving (following a Jupyter server found later, except the tools in
`CHOOSE_THEIR_RUNTIME`; hints, observation, the drop-in's argument reading)."""

from __future__ import annotations

import importlib
import pkgutil

from ..sdk.lowlevel import VariantTool

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
            tools[tool.name] = tool
    return tools


TOOLS: dict[str, VariantTool] = _discover()
