"""Settings every test folder shares."""

import pytest
from hypothesis import HealthCheck, settings

from mcp_variants.iri_checker import without_iri_checker

# The workers validate as `mcp-variants check` does, without jsonschema's `iri` checkers, whose grammar the first
# `import jsonschema` would build (mcp_variants/iri_checker.py; tests/unit/test_iri_checker.py compares with and without).
without_iri_checker()

# Property tests check behaviour, not speed: on a shared 2-core machine a slow draw is the machine's, not a bug.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

# The files that take longest, run first: with the files spread over workers (make test: xdist, --dist loadfile)
# a long file started last is the run's tail. Measured with --durations (the setups included). make test passes
# --no-loadscope-reorder: else xdist hands out the files with the most tests first, whatever this order says.
FIRST = ("tests/distributions/test_install.py", "tests/benchmarks/test_smoke.py", "tests/apps/test_jupyterlab_live.py",
         "tests/integration/test_live_notebooks.py", "tests/distributions/test_distributions.py",
         "tests/outside/test_official_conformance.py", "tests/sdk/test_patched_sdk.py", "tests/conformance/test_check_client.py",
         "tests/integration/test_notebook_resources.py", "tests/distributions/test_ranges.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return FIRST.index(path) if path in FIRST else len(FIRST)

    items.sort(key=rank)  # stable: the order within each file, and of the other files, stays
