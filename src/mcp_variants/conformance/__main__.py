"""`python -m mcp_variants.conformance`: the same as `mcp-variants check`."""

import sys

from ..iri_checker import without_iri_checker

without_iri_checker()

from .cli import entry  # noqa: E402  (after the line above: it imports jsonschema)

if __name__ == "__main__":
    sys.exit(entry())
