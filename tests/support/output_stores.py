"""What every output store must do (output_links.py's in memory, state/redis_outputs.py's on Redis): one check each,
run on both (tests/unit/test_output_links.py, tests/integration/test_shared_state.py)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_variants.output_links import OutputNotKept, OutputStore


def stream(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


async def lru_within_budget(store: OutputStore) -> None:
    """An output store's budget and LRU order (every implementation: test_shared_state.py runs it on Redis)."""
    first, second = await store.put([stream("a" * 100)], "me"), await store.put([stream("b" * 100)], "me")
    assert first and second
    assert (await store.get(first, 0, "me"))["text"] == "a" * 100  # read: now the most recently used
    third = await store.put([stream("c" * 100)], "me")
    assert third and await store.get(first, 0, "me") and await store.get(third, 0, "me")
    with pytest.raises(OutputNotKept):
        await store.get(second, 0, "me")
    alone = await store.put([stream("d" * 1000)], "me")  # larger than the budget: kept alone
    assert alone and (await store.get(alone, 0, "me"))["text"] == "d" * 1000
    with pytest.raises(OutputNotKept):
        await store.get(first, 0, "me")


async def owned_and_forgotten(store: OutputStore) -> None:
    """A run is its owner's only, and goes with its session (every implementation)."""
    run = await store.put([stream("mine\n")], "http:one")
    assert run is not None
    for owner, index in (("http:two", 0), ("", 0), ("http:one", 1), ("http:one", -1)):
        with pytest.raises(OutputNotKept):
            await store.get(run, index, owner)
    await store.forget("http:one")
    with pytest.raises(OutputNotKept):
        await store.get(run, 0, "http:one")
