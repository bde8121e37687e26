"""What every test folder needs to run real processes; the launchers themselves are the product's
(`mcp_variants.processes`), so the tests start servers as the client, the conformance suite and
the benchmarks do, the command line's interpreter a fork of the worker's fork server (`forkserver`).

- `servers`: our server's command line (`serve_command`) and `HttpServer`, `mcp-variants serve --http`
  on a free loopback port with a raw wire client of it (`conformance.wire.HttpTarget`).
- `jupyter`: the `jupyter` fixture (a stock jupyter-server, `JupyterServerProcess`), the `jupyterlab` fixture
  (JupyterLab with real-time collaboration), their kernels and sessions.
- `processes`: what a test checks about processes: `Reaper`, `gone`, `kernels_of`, `processes_in`, `started_by_exec`.
- `forkserver` / `forkserver_client`: the servers' fork server (servers.py's `python_command`), which pays
  `import mcp` once per worker instead of once per server.
- `waiting`: `until(check, what)`, the one way a test waits, and `marked_sleep`, a kernel run that says it began.
- `checked`: `CheckedClient`, tool calls over either raw client with every output checked against its schema.
- `wire` / `raw_wire`: the wire tests' clients and checks (`WireClient`, `ServerPool`), and the bytes-exact
  helpers of the hostile-input and fuzz tests.
- `oracles`: the unit tests' builders, independent oracles and hypothesis strategies.
- `apps` / `outside`: what the MCP Apps tests and the outside-client tests need from outside Python (Node, npm
  packages, Chromium), skipping or failing with the reason.

`pyproject.toml` puts tests/ on sys.path (`pythonpath`), so any test imports `support.…`.
"""
