"""The Jupyter tools: each module defines one `TOOL`; projectors shape its result per audience."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace

from .shared.hints import with_hints
from .shared.spec import ToolSpec


def _discover() -> dict[str, ToolSpec]:
    tools: dict[str, ToolSpec] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:  # shared/: the tools' helpers
            continue
        spec = getattr(importlib.import_module(f"{__name__}.{module.name}"), "TOOL", None)
        if isinstance(spec, ToolSpec):
            tools[spec.name] = replace(spec, run=with_hints(spec.run))  # a runtime's refusals get the tool to call
    return tools


TOOLS: dict[str, ToolSpec] = _discover()
