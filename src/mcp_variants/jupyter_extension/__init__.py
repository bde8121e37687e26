"""The Jupyter server extension of mcp-variants: MCP at `{base_url}mcp` of `jupyter lab` / `jupyter server`.

Installed with the package and on by default (jupyter_server_config.d/mcp_variants.json); off with
`jupyter server extension disable mcp_variants.jupyter_extension`. docs/guides/jupyter.md has the guide.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from .app import MCPVariants  # imported when the server loads the extension, not when it lists them

    return [{"module": "mcp_variants.jupyter_extension.app", "app": MCPVariants}]
