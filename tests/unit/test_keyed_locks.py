"""Keyed locks (the notebook locks, the rooms being opened): one writer per key at a time, and no lock left behind once unused."""

from __future__ import annotations

import anyio

from mcp_variants.jupyter.keyed_locks import KeyedLocks


def test_one_holder_per_key_and_nothing_kept_after() -> None:
    locks = KeyedLocks()
    events: list[str] = []
    a_holds, a_may_go = anyio.Event(), anyio.Event()

    async def hold_until_told() -> None:
        async with locks.hold("nb.ipynb"):
            events.append("a in")
            a_holds.set()
            await a_may_go.wait()
            events.append("a out")

    async def edit(name: str, key: str) -> None:
        async with locks.hold(key):
            events.append(f"{name} in")

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(hold_until_told)
            await a_holds.wait()
            tg.start_soon(edit, "b", "nb.ipynb")
            await edit("c", "other.ipynb")  # another notebook: not held up by a
            await anyio.wait_all_tasks_blocked()  # b is waiting on the lock a holds
            assert "b in" not in events and len(locks) == 1  # nb.ipynb: a holds it, b waits; other.ipynb came and went
            a_may_go.set()
        assert len(locks) == 0

    anyio.run(main)
    assert events == ["a in", "c in", "a out", "b in"]


def test_a_failed_holder_releases_the_key() -> None:
    locks = KeyedLocks()

    async def main() -> None:
        try:
            async with locks.hold("nb.ipynb"):
                raise ValueError("the edit failed")
        except ValueError:
            pass
        assert len(locks) == 0
        with anyio.fail_after(1):
            async with locks.hold("nb.ipynb"):
                pass

    anyio.run(main)
