"""Run a server of mcp_variants.sdk with the 2026-12-01 bridge's module impossible to import.

    python unbridged.py SCRIPT [ARG...]
    python unbridged.py -m MODULE [ARG...]

Only on an SDK that serves 2026-12-01 itself (the patched copy of test_patched_sdk.py): there the transports
run without the bridge and never import it, so the server serves as it would once sdk/_bridge.py is deleted;
anything that still imported it fails, in the server's log and on the wire. (The tunnel stays: a 2025-11-25 task
still goes through it, sdk/_tunnel.py.)
"""

from __future__ import annotations

import runpy
import sys

BRIDGE = "mcp_variants.sdk._bridge"


def main(argv: list[str]) -> None:
    from mcp_variants.sdk._serve import bridge_needed

    if bridge_needed():
        raise SystemExit("unbridged.py: this SDK does not serve 2026-12-01; run it on the patched copy (PYTHONPATH)")
    sys.modules[BRIDGE] = None  # type: ignore[assignment]  # an import of it now raises ImportError
    if argv[:1] == ["-m"] and len(argv) > 1:
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
