"""MCP Apps (the io.modelcontextprotocol/ui extension): the views this server ships, the server side only.

* `resources`: the `ui://` views (built HTML under views/, from apps/ at the repo root),
  served by resources/list and resources/read, and the start-up checks of `_meta.ui`.

The host side (what an Apps host does around the reference client; what a view receives) is the client's:
mcp_variants.client.apps_host.

docs/apps.md is the page for Apps hosts.
"""
