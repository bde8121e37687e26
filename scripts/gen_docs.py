#!/usr/bin/env python3
"""Generate the documentation's wire examples, API reference and measurements from the live server.

    python scripts/gen_docs.py            # rewrite docs/examples/ and docs/api/  (make docs-examples)
    python scripts/gen_docs.py --check    # regenerate in memory; exit 1 when the committed files differ
    python scripts/gen_docs.py --out DIR  # write the generated folders under DIR instead of docs/

Nothing here is typed by hand that the server says: the generator (the `docsgen` package next
to this file) starts the real server (`mcp-variants serve`, stdio, on a temporary root with a
few files and notebooks it writes), sends every request, and writes what came back. Values
that change from run to run are replaced by placeholders in angle brackets (kernel and cell
ids made by the server, times, durations, ports, process ids, temporary folders, tokens,
base64 image data), and JSON-RPC ids are renumbered from 1, so two runs write the same bytes.

It owns docs/examples/ and docs/api/ entirely: it deletes what it no longer writes.
"""

from __future__ import annotations

import sys

from docsgen.cli import main  # scripts/ is on sys.path: this file's folder

if __name__ == "__main__":
    sys.exit(main())
