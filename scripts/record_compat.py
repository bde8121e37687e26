#!/usr/bin/env python3
"""Record jupyter-mcp-server's tool schemas, which `serve --compat jupyter-mcp-server` lists in place of ours.

    python scripts/record_compat.py            # rewrite variants/compat/jupyter-mcp-server.json
    python scripts/record_compat.py --check    # exit 1 when the committed file differs from what it lists

jupyter-mcp-server 2.2.4 is installed from PyPI into tests/.envs/anchor (once, as the drop-in tests install it:
tests/support/envs.py) and asked for its tools/list over stdio; every tool's inputSchema is kept exactly as it
sent it (tests/support/anchor.py). tests/outside/test_dropin_anchor.py checks the committed file the same way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

# tests/support is outside mypy's files: its helpers are typed where they are checked, by the tests.
from support.anchor import RECORD, anchor_tools, record_of, record_text  # type: ignore[import-not-found]  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed record differs")
    args = parser.parse_args(argv)
    text = record_text(record_of(anchor_tools()))
    where = RECORD.relative_to(ROOT)
    if args.check:
        if RECORD.read_text() != text:
            print(f"{where} differs from what jupyter-mcp-server lists: run python scripts/record_compat.py", file=sys.stderr)
            return 1
        print(f"{where} is current")
        return 0
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(text)
    print(f"wrote {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
