"""The Jupyter server on the server API: the `mcp-variants` command line (cli.py: `serve`, and the entry of `demo`,
`check` and `check-client`) and its options (options.py), the tools wired on the low-level Server (app.py), the
resources and their subscriptions, each call's caller (callers.py), its span and audit line (observe.py, audit.py),
and JupyterHub token checks (hub_auth.py). The bridge and the transports are the server API's (mcp_variants.sdk)."""
