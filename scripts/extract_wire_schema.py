#!/usr/bin/env python3
"""Take the official 2026-07-28 JSON Schema out of the conformance npm package, and build ours.

    python scripts/extract_wire_schema.py            # rewrite vectors/schema/2026-07-28.json and 2026-12-01.json
    python scripts/extract_wire_schema.py --check    # exit 1 when the committed files differ

No PyPI or npm package publishes the MCP JSON Schema as a file. mcp-types 2.3.0 ships the
same revisions as pydantic models only; @modelcontextprotocol/conformance 0.2.0-alpha.12
(tests/outside/node_modules/conformance-next) embeds the spec repository's schema.json of
every revision it validates the wire with, as object literals in its bundle: a map
`{"2025-03-26": X, ..., [A]: Y}` whose key `A` is the constant `"2026-07-28"`. This script
finds that map, cuts out the 2026-07-28 literal, and has the package's own Node turn it into
JSON, untouched. The 2026-12-01 file is then built from it by
`mcp_variants.conformance.wire_schema.build_outputs_schema` (SEP-3279's additions).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ROOT / "tests" / "outside" / "node_modules"
PACKAGE = OUTSIDE / "conformance-next"
NODE = OUTSIDE / ".bin" / "node"
VERSION = "2026-07-28"

sys.path.insert(0, str(ROOT / "src"))

from mcp_variants.conformance.wire_schema import SCHEMA_DIR, build_outputs_schema, schema_text  # noqa: E402


def literal_end(source: str, start: int) -> int:
    """Index just past the `{...}` literal that opens at `start` (strings and templates skipped)."""
    depth, i, quote = 0, start, None
    while i < len(source):
        c = source[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "`'\"":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unterminated object literal")


def embedded_schema(bundle: str, version: str = VERSION) -> str:
    """The JS literal of `version`'s schema in the conformance bundle."""
    constants = dict(re.findall(r"[,;{ ]([A-Za-z_$][\w$]*)=`(\d{4}-\d{2}-\d{2})`", bundle))
    key = r"(?:\"\d{4}-\d{2}-\d{2}\"|\[[\w$]+\])"
    for match in re.finditer(rf"=\{{({key}:[\w$]+(?:,{key}:[\w$]+)+)\}}", bundle):
        entries = {}
        for key, name in re.findall(r"(\"[\d-]+\"|\[[\w$]+\]):([\w$]+)", match.group(1)):
            entries[key.strip('"') if key.startswith('"') else constants.get(key[1:-1], key)] = name
        if version in entries:
            name = entries[version]
            start = bundle.index(f"{name}={{$schema:")
            open_at = start + len(name) + 1
            return bundle[open_at:literal_end(bundle, open_at)]
    raise SystemExit(f"no schema map with {version} in the conformance bundle")


def official_schema() -> dict[str, Any]:
    bundle = (PACKAGE / "dist" / "index.js").read_text()
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as script:
        script.write(f"process.stdout.write(JSON.stringify({embedded_schema(bundle)}));\n")
    try:
        out = subprocess.run([str(NODE), script.name], check=True, capture_output=True, text=True).stdout
    finally:
        Path(script.name).unlink()
    schema: dict[str, Any] = json.loads(out)
    return schema


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing them")
    args = parser.parse_args()
    package = json.loads((PACKAGE / "package.json").read_text())
    print(f"source: {package['name']} {package['version']}")
    base = official_schema()
    files = {SCHEMA_DIR / f"{VERSION}.json": schema_text(base),
             SCHEMA_DIR / "2026-12-01.json": schema_text(build_outputs_schema(base))}
    stale = [p for p, text in files.items() if not p.exists() or p.read_text() != text]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
