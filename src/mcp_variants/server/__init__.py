"""The Jupyter server on the server API: the CLI (`mcp-variants serve`), the tools wired on the low-level Server
(app.py), resources and subscriptions, callers, audit and Hub auth. The bridge and the transports are the server
API's (mcp_variants.sdk)."""
