"""Every conformance scenario, one pytest test each, per transport.

Against our own server a skip is a failure too: it must be able to show every rule.
Against an external server (--server-cmd / --server-url) a required (MUST, testing-plan) scenario
that could not be exercised fails with what the server needs, as `mcp-variants check` ends
INCOMPLETE, unless --conformance-allow-skips (MCP_CONFORMANCE_ALLOW_SKIPS=1) accepts it: then it is
a pytest skip with that reason, as a skipped SHOULD scenario always is. SHOULD-level scenarios that
fail are xfail, not errors.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_variants.conformance.client_vectors import client_vectors, run_client_vector
from mcp_variants.conformance.verdict import REQUIRED_LEVELS

from .conftest import Suite, explain

CLIENT = {v["id"]: v for v in client_vectors()}


def test_server_scenario(suite: Suite, target_label: str, server_scenario: str) -> None:
    result = suite.result(target_label, server_scenario)
    _judge(result, strict=suite.ours, allow_skips=suite.allow_skips)


def test_client_scenario(client_scenario: str) -> None:
    """The host-side items of the plan, against the reference client and a scripted server."""
    vector = CLIENT[client_scenario]
    entry = run_client_vector(vector)
    _judge({**entry, "id": vector["id"], "level": vector["level"], "rules": vector["rules"]}, strict=True)


def _judge(result: dict[str, Any], *, strict: bool, allow_skips: bool = False) -> None:
    if result["status"] == "pass":
        return
    if result["status"] == "skip" and not strict and (allow_skips or result["level"] not in REQUIRED_LEVELS or
                                                      result.get("applicable") is False):
        pytest.skip(f"{result['id']}: {result['reason']}")
    if result["status"] == "skip" and not strict:
        pytest.fail(f"{result['id']} [{result['level']}] could not be exercised: {result.get('need') or result['reason']} "
                    "(--conformance-allow-skips accepts that)", pytrace=False)
    if result["status"] == "fail" and result["level"] == "SHOULD" and not strict:
        pytest.xfail(explain(result, 1500))
    pytest.fail(explain(result), pytrace=False)
