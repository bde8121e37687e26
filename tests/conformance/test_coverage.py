"""Every scenario can fail (issue 22): each one, server, host and client mode, is failed by at least one
deliberately broken target, in the test that runs that target. A scenario no broken target fails is a
check nobody has seen fail; a new scenario without a broken counterpart fails here.

The broken targets and what each must fail are declared beside the tests that run them and assert
exactly that: test_broken.py (servers), test_host_can_fail.py (the reference client, patched in
process, on the host scenarios), test_check_client.py (client processes, `check-client`) and test_verdicts.py
(standalone fixture servers, tests/conformance/servers/).
"""

from __future__ import annotations

import pytest

from mcp_variants.conformance.client_scenarios import client_mode_scenarios
from mcp_variants.conformance.client_vectors import client_vectors
from mcp_variants.conformance.scenarios import server_vectors

from .test_broken import EXPECTED as BROKEN_SERVERS
from .test_check_client import EXPECTED as BROKEN_CLIENTS
from .test_host_can_fail import BREAKS as BROKEN_HOSTS
from .test_verdicts import FAILS as FIXTURE_SERVERS

# kind -> (every scenario id, broken target -> the scenarios its test asserts it fails)
COVERAGE: dict[str, tuple[list[str], dict[str, set[str]]]] = {
    "server": ([v["id"] for v in server_vectors()], {**BROKEN_SERVERS, **FIXTURE_SERVERS}),
    "host": ([v["id"] for v in client_vectors()], {name: failed for name, (_, failed) in BROKEN_HOSTS.items()}),
    "client-mode": ([v["id"] for v in client_mode_scenarios()], {name: failed for name, (_, failed) in BROKEN_CLIENTS.items()}),
}


@pytest.mark.parametrize("kind", sorted(COVERAGE))
def test_every_scenario_is_failed_by_a_broken_target(kind: str) -> None:
    ids, broken = COVERAGE[kind]
    failed = set().union(*broken.values())
    assert not failed - set(ids), f"broken {kind} targets name scenarios that do not exist: {sorted(failed - set(ids))}"
    never = [sid for sid in ids if sid not in failed]
    assert not never, f"{len(never)} of {len(ids)} {kind} scenarios are failed by no broken target: {never}"
