"""jsonschema without its `iri` format checkers, for processes that never ask for that format.

jsonschema registers its `iri` and `iri-reference` checkers when `import rfc3987_syntax` succeeds, and that import
builds rfc3987-syntax's Earley grammar: most of the CPU of a process that imports jsonschema (bench/tricks.py, row
iri). jupyter-server installs rfc3987-syntax (jupyter-events needs jsonschema[format-nongpl]), and jsonschema has no
option to leave it out: None in sys.modules, the import system's way to block a module, makes that one import fail,
and jsonschema keeps every other checker.

`python -m mcp_variants.iri_checker MODULE ARGS...` runs MODULE as `python -m MODULE ARGS...` would, without
the checker: how jupyter.server_launcher.JupyterServerProcess starts jupyter_server and JupyterLab, whose jupyter-events
validates event schemas that name no `iri` format (tests/unit/test_iri_checker.py holds that).
"""

from __future__ import annotations

import runpy
import sys


def without_iri_checker() -> None:
    """Keep jsonschema's `iri` checkers out of this process; call it before the first `import jsonschema`.
    For a command's own process only: a library imported by others keeps their checkers."""
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: its import fails, the checkers are skipped


def main() -> None:
    without_iri_checker()
    module = sys.argv.pop(1)  # the rest are the module's arguments; run_module sets argv[0] to its file, as -m does
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
