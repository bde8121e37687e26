"""The two-tool server served by the SDK's own `mcp.run()`, out of habit: the SDK refuses 2026-12-01 (-32022) before
any handler runs. The suite must say that, and what to serve it with, not that the tools it was told to call do not
exist.

    python tests/conformance/servers/served_by_mcp_run.py    # stdio
"""

from two_tools import mcp  # this folder is the script's: on sys.path

if __name__ == "__main__":
    mcp.run()
