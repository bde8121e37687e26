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

`pyproject.toml` puts tests/ on sys.path (`pythonpath`), so any test imports `support.…`.
"""
