"""What the sandbox and runtime-switching tools share."""

from __future__ import annotations

from typing import Any

# Switching runtimes is per client; a stateless request has no client to remember it (as use_notebook says too).
STATELESS_NOTE = (
    " No switch was kept: this request is stateless (it carries no session), so later calls run where they did."
    " Switching needs a session (initialize, or an HTTP session); or start the server with --jupyter-url."
)


def describe(record: dict[str, Any]) -> str:
    return f"{record['id']} ({record['state']}) at {record['url']}, root folder {record['root']}, pid {record['pid']}"
