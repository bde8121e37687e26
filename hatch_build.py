"""The mcp-variants wheel depends on the two distributions whose files it leaves out (pyproject.toml's
`exclude`): mcp-variants-conformance and mcp-variants-sdk, at its own version. An editable install
(`make`, `pip install -e .`) puts the whole of src/ on the path instead, so it needs neither."""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PARTS = ("mcp-variants-conformance", "mcp-variants-sdk")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version == "standard":
            build_data["dependencies"].extend(f"{part}=={self.metadata.version}" for part in PARTS)
