"""The SEP-3279 conformance suite: scenarios as golden vectors, a runner, a scorecard.

* `rules` quotes every SEP sentence a scenario checks, with its check id; `scenarios`
  (server side) and `client_vectors` (client side, in-process) define the scenarios as data: a vector
  with the quoted rules, the requests and declarative checks (`checks`).
* `runner.run(target, vectors, config)` interprets them against a `wire.StdioTarget` or
  `wire.HttpTarget` (raw JSON-RPC, no SDK) and returns the scorecard; every 2026-12-01
  message is validated against `wire_schema` (the 2026-12-01 JSON Schema in `vectors/schema/`).
* `client_scenarios`, `fixture` and `client_check` are client mode (`mcp-variants
  check-client`): any client, black-box, against a fixture server per scenario;
  `reference_client` is this project's client as a participant.
* `scorecards` writes scorecards in the official suite's `checks.json` layout; `traceability`
  measures `sep-3279.yaml` (a row for each of the SEP's normative sentences) against the
  check ids the scenarios emit (`coverage()`).
* `cli` is `mcp-variants check` (its options live in `options`, import-light);
  `vectors/` holds the vectors as JSON files.

docs/conformance.md explains how to run it against any server or client and replay the vectors.
Nothing is imported here, so that the server's CLI stays quick to start.
"""
