"""MCP Apps (the io.modelcontextprotocol/ui extension): the views and the host side.

* `resources`: the `ui://` views (built HTML under views/, from apps/ at the repo root),
  served by resources/list and resources/read, and the start-up checks of `_meta.ui`.
* `apps_host`: what an Apps host does around the reference client; what a view receives.

docs/apps.md is the page for Apps hosts.
"""
