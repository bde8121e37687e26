"""The SEP-3279 conformance suite: scenarios as golden vectors, a runner, a scorecard.

* `scenarios` (server side) and `host` (client side) define every scenario as data: a
  vector with the quoted rule, the requests and declarative checks (`checks`).
* `runner.run(target, vectors, config)` interprets them against a `wire.StdioTarget` or
  `wire.HttpTarget` (raw JSON-RPC, no SDK) and returns the scorecard.
* `cli` is `mcp-variants check` (its options live in `options`, import-light);
  `vectors/` holds the same vectors as JSON files.

docs/conformance.md explains how to run it against any server and replay the vectors.
Nothing is imported here, so that the server's CLI stays quick to start.
"""
