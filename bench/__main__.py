import logging

from mcp_variants.iri_checker import without_iri_checker

# The harness's own process, as `mcp-variants check` does: the parts import nbformat, whose jsonschema would build
# its `iri` grammar (bench/tricks.py, row iri) before the options are even read. Servers under test are processes
# of their own and keep their defaults.
without_iri_checker()
# The harness owns its logging: warnings and errors only. A library that calls logging.basicConfig on its own (the
# SDK's MCPServer does, when bench/naive_server.py is imported for the floors) then leaves it as it is, and the
# report is not interleaved with every HTTP request the parts make.
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

from bench.run import main  # noqa: E402  (after the lines above, by design)

main()
