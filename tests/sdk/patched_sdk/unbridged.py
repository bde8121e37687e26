"""Run a server of mcp_variants.sdk with the bridge's rewriting replaced by functions that fail loudly.

    python unbridged.py SCRIPT [ARG...]
    python unbridged.py -m MODULE [ARG...]

Only on an SDK that serves 2026-12-01 itself (the patched copy of test_patched_sdk.py): there the transports
run without the bridge and `requests.finish` tunnels nothing, so a request that still reached
`rewrite_request`, `tunnel`, `unwrap_result` or `rewrite_response` fails, in the server's log and on the wire.
(`rewrite_error` stays: sdk/_stdio_era.py names every served version in its own -32022, bridge or not.)
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from mcp_variants.sdk import _bridge as bridge

REWRITING = ("rewrite_request", "tunnel", "unwrap_result", "rewrite_response")


def refused(name: str) -> Callable[..., NoReturn]:
    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        message = f"bridge.{name} was called, on an SDK that serves 2026-12-01 itself"
        print(message, file=sys.stderr, flush=True)
        raise AssertionError(message)

    return refuse


def main(argv: list[str]) -> None:
    if bridge.needed():
        raise SystemExit("unbridged.py: this SDK does not serve 2026-12-01; run it on the patched copy (PYTHONPATH)")
    for name in REWRITING:
        setattr(bridge, name, refused(name))
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
