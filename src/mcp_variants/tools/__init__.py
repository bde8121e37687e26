"""The Jupyter tools: each module defines one `TOOL`, a `VariantTool` of the server API (mcp_variants.sdk.lowlevel)
on its declaration in variants/: its projectors shape its result per audience. `TOOLS` holds them as they are
defined; `server/app.served` decorates each for serving (hints, observation, the drop-in's argument reading)."""

from __future__ import annotations

import importlib
import pkgutil

from ..sdk.lowlevel import VariantTool


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
