"""Runs the server script given (its arguments after it) as in an install without `rich`, which `mcp` does not
require (its `rich` extra) and the SDK's own `configure_logging` uses when it is there: without it MCPServer's log
handler prints the message alone, as a stranger's light install did (issue 44)."""

import runpy
import sys

for name in ("rich", "rich.console", "rich.logging"):
    sys.modules[name] = None  # type: ignore[assignment]  # `import rich` raises ImportError, as when not installed
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
