"""jsonschema without its `iri` format checker, for processes that never ask for that format.

With rfc3987-syntax installed (jupyter-server brings it: jupyter-events needs jsonschema[format-nongpl]),
`import jsonschema` builds that module's Earley grammar for the `iri` and `iri-reference` checkers: 0.8 s of
CPU, most of a `check` command's start and three quarters of a Jupyter server's (1.2 -> 0.3 s measured, its
readiness 1.25 -> 0.36 s; docs/performance.md). Without the module jsonschema skips those two checkers and keeps
every other one.

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
