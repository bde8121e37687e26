"""The log of a server `cli` runs, for both layers: each line on stderr (stdout is the stdio transport's) with its
level and logger name, so what this package logs for the author (a `Results` unlike its tool's declaration, an empty
assistant/content) reads as the WARNING or ERROR it is, not as Python's bare last-resort text.

Where the server set up no log handler (FastMCP logs through its own `fastmcp` logger only, a low-level `Server`
sets up nothing), one is set up on stderr. Where the only bare one is the SDK's own (MCPServer's when `rich` is not
installed prints the message alone), it is given the level and logger name; it is not doubled by a second handler.
Any other handler (an author's, or the SDK's with `rich`, which shows the level) is left as it is."""

from __future__ import annotations

import logging
import sys

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def set_up_log(given: object, default: str) -> None:
    """`cli`'s log: a handler on stderr when the root logger has none, at the level `given` (`--log-level`; None: not
    given; a server's own flag of that name is read when it names a level) or `default`; the SDK's bare handler given
    the level and logger name; the level, when given, the root's whoever set up the handlers (the one thing the
    person running the server asked)."""
    level = given.upper() if isinstance(given, str) and given.upper() in LOG_LEVELS else None
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(stream=sys.stderr, format=LOG_FORMAT, level=level or default)
        return
    for handler in root.handlers:
        if prints_bare_message(handler):
            handler.setFormatter(logging.Formatter(LOG_FORMAT))
    if level is not None:
        root.setLevel(level)


def prints_bare_message(handler: logging.Handler) -> bool:
    """A plain stream handler that writes a record's message alone, without its level: how the SDK's
    `configure_logging` sets up MCPServer's log when `rich` is not installed (`format="%(message)s"`)."""
    probe = logging.LogRecord("mcp_variants", logging.WARNING, __file__, 0, "probe", None, None)
    return type(handler) is logging.StreamHandler and handler.format(probe) == probe.getMessage()
