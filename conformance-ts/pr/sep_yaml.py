"""Make conformance-ts/src/seps/sep-3279.yaml, the pull request's traceability file, from the project's
src/mcp_variants/conformance/sep-3279.yaml (the one the Python suite and its traceability test keep in step
with the SEP).

    python conformance-ts/pr/sep_yaml.py          # rewrite the file
    python conformance-ts/pr/sep_yaml.py --check  # exit 1 when it differs from what this makes

The rows are the same; what changes is what is this project's and not the suite's: the header comment
(the suite's own files have none that name a runner), the spec_url (the spec section, not the SEP's pull
request), and a sentence about this project's server in one exclusion. The quoting is prettier's (a
single-quoted scalar with an escaped quote becomes double-quoted), so `npm run check` accepts the file.
tests/unit/test_conformance_ts_pr.py holds the two equal: same rows, and this output byte for byte.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "mcp_variants" / "conformance" / "sep-3279.yaml"
TARGET = ROOT / "conformance-ts" / "src" / "seps" / "sep-3279.yaml"

SPEC_URL = "https://modelcontextprotocol.io/specification/draft/server/tools#tool-declaration"
HEADER = """\
# SEP-3279 (tool result variants, protocol revision 2026-12-01): every normative sentence of the
# SEP's specification text, with the check id a sep-3279-* scenario emits or why it is excluded.
"""
# Sentences of an exclusion that speak of the project's own server, not of the rule.
PROJECT_SENTENCES = re.compile(r" This server [^.']*(\([^)]*\))?\.?(?=')")
SINGLE_QUOTED = re.compile(r"^(\s*(?:- )?[\w-]+: )'(.*)'$")


def prettier_quotes(line: str) -> str:
    """A single-quoted scalar holding an escaped quote (`''`) and no double quote, double-quoted."""
    match = SINGLE_QUOTED.match(line)
    if not match or "''" not in match.group(2) or '"' in match.group(2):
        return line
    unescaped = match.group(2).replace("''", "'")
    return f'{match.group(1)}"{unescaped}"'


def generate(source: str) -> str:
    lines = source.splitlines()
    body = lines[next(i for i, line in enumerate(lines) if not line.startswith("#")):]
    out = []
    for line in body:
        if line.startswith("spec_url:"):
            line = f"spec_url: {SPEC_URL}"
        line = PROJECT_SENTENCES.sub("", line)
        out.append(prettier_quotes(line))
    return HEADER + "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    made = generate(SOURCE.read_text())
    if "--check" in argv:
        if TARGET.is_symlink() or not TARGET.exists() or TARGET.read_text() != made:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python {Path(__file__).relative_to(ROOT)}", file=sys.stderr)
            return 1
        return 0
    if TARGET.is_symlink():
        TARGET.unlink()
    TARGET.write_text(made)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
