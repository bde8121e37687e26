"""The command line of scripts/gen_docs.py (see its docstring)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .docs_tree import DOCS, check, write
from .normalize import Normalizer
from .render_api import render_api
from .render_bench import render_bench
from .render_examples import render_examples
from .render_measurements import render_measurements
from .render_python_api import render_python_api
from .scenario import collect


def generate() -> tuple[dict[str, str], dict[str, float]]:
    """Every generated file (path under docs/ -> text), and how long each part of the run took."""
    norm = Normalizer()
    started = time.monotonic()
    got = collect(norm)
    files = render_examples(got, norm) | render_measurements(got) | render_api(got, norm) | render_python_api() | render_bench()
    got.seconds["total"] = time.monotonic() - started
    return files, got.seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate docs/examples/, docs/api/ and docs/python-api/ (the live server, the code).")
    parser.add_argument("--check", action="store_true", help="compare with docs/ instead of writing; exit 1 on a difference")
    parser.add_argument("--out", type=Path, help="write under this folder instead of docs/")
    args = parser.parse_args(argv)
    files, seconds = generate()
    timing = ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items())
    base: Path = args.out or DOCS
    if args.check:
        problems = check(files, base)
        if problems:
            print("\n\n".join(problems))
            print(f"\n{len(problems)} generated file(s) differ from what the server says now. "
                  "Run `make docs-examples` (python scripts/gen_docs.py) and commit the result.")
            return 1
        print(f"{len(files)} generated files match the live server ({timing}).")
        return 0
    write(files, base)
    print(f"wrote {len(files)} files under {base} ({timing}).")
    return 0
