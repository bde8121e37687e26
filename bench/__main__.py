from mcp_variants.iri_checker import without_iri_checker

# The harness's own process, as `mcp-variants check` does: the parts import nbformat, whose jsonschema would build
# its `iri` grammar (bench/tricks.py, row iri) before the options are even read. Servers under test are processes
# of their own and keep their defaults.
without_iri_checker()

from bench.run import main  # noqa: E402  (after the line above, by design)

main()
