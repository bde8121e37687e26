"""The reviewer's report of `mcp-variants demo`: one self-contained HTML file.

* `record`: what the demo records per scenario, and `route`, which hands a result to the
  reference host router and keeps what each consumer's sink received;
* `rows`: a scenario's audience rows (text, images, a tree, a live view, or nothing);
* `tree`, `charts`, `figures`: structured values as trees, numbers as inline SVG charts;
* `numbers`: bytes per audience, and the recorded benchmarks (bench/results);
* `assets`: the embedded views and the report's MCP Apps host (built from apps/report/host.ts);
* `page`: the page itself (`write_report`).
"""
