"""`python -m mcp_variants.conformance`: the same as `mcp-variants check`."""

import sys

from .cli import entry

if __name__ == "__main__":
    sys.exit(entry())
