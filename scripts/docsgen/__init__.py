"""The documentation generator: docs/examples/ and docs/api/ recorded from the live server.

`scripts/gen_docs.py` is its entry point (`make docs-examples`; tests/docs runs it with
`--check`). One module a job:

- `selection`: the protocol version, the Apps extension and the output selectors it asks for.
- `jsontext`: JSON as the server writes it (compact) and as the pages show it (pretty).
- `recording`: our server on stdio and HTTP, through the conformance suite's raw wire client.
- `sample_files`: the root folder the server runs on (files, notebooks, the committed chart.png).
- `scenario`: every request the examples and the API pages show, in order.
- `measurements`: the calls measured for the open questions, counted in bytes and characters.
- `records`: what a run collects, for the renderers.
- `normalize`: placeholders for what changes from run to run; JSON-RPC ids renumbered.
- `variants_files`: the declarations in variants/ as written (shapes still `$ref`s).
- `markdown`: fences, collapsible blocks, anchors.
- `render_examples`, `render_measurements`, `render_api`: the Markdown of the three doc sets.
- `docs_tree`: the generated folders on disk: written, or compared with (`--check`).
- `cli`: the command line.
"""
