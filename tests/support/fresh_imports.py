"""Import each module in an interpreter of its own, quickly: `python fresh_imports.py PRELOAD... -- MODULE...`.

What a module brings of our package is what the test is about (a cycle, a name taken from a package
that a sibling fills); the third-party libraries under it (the SDK, pydantic, jupyter_client) take
most of an interpreter's start and cannot hide a cycle of ours. So this process imports those once
(PRELOAD, the top-level names the sources import), checks that none of our package came with them,
and forks a child per MODULE, which imports it and nothing else. Prints one JSON object,
{module: null or the error's last line}.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import traceback

OURS = "mcp_variants"


def preload(names: list[str]) -> None:
    for name in names:
        with contextlib.suppress(Exception):  # a missing optional library fails in the child that needs it, as it would alone
            importlib.import_module(name)
    leaked = sorted(m for m in sys.modules if m == OURS or m.startswith(OURS + "."))
    if leaked:
        raise SystemExit(f"the preloaded libraries imported our package ({leaked}): the imports would not be fresh")


def import_alone(module: str) -> str | None:
    """The error's last line, or None: `module` imported in a forked child of this process."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: import, report, and leave without running the parent's exit handlers
        os.close(read)
        try:
            importlib.import_module(module)
            message = b""
        except BaseException:
            message = traceback.format_exc().strip().splitlines()[-1].encode()
        os.write(write, message or b"\0")
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        message = pipe.read()
    _, status = os.waitpid(pid, 0)
    if message == b"\0":
        return None
    return message.decode() or f"the child ended with status {status}"


def main(argv: list[str]) -> None:
    split = argv.index("--")
    preload(argv[:split])
    print(json.dumps({module: import_alone(module) for module in argv[split + 1:]}))


if __name__ == "__main__":
    main(sys.argv[1:])
