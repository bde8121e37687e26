"""The Hub's notebook locks: one writer per key at a time, and no lock left behind once unused."""

from __future__ import annotations

import anyio

from mcp_variants.jupyter.hub import KeyedLocks


def test_one_holder_per_key_and_nothing_kept_after() -> None:
    locks = KeyedLocks()
    events: list[str] = []

    async def edit(name: str, key: str, pause: float) -> None:
        async with locks.hold(key):
            events.append(f"{name} in")
            await anyio.sleep(pause)
            events.append(f"{name} out")

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(edit, "a", "nb.ipynb", 0.05)
            await anyio.sleep(0.01)
            tg.start_soon(edit, "b", "nb.ipynb", 0)
            tg.start_soon(edit, "c", "other.ipynb", 0)
            await anyio.sleep(0.02)
            assert len(locks) == 1  # nb.ipynb: a holds it, b waits; other.ipynb came and went
        assert len(locks) == 0

    anyio.run(main)
    assert events.index("b in") > events.index("a out")  # b waited for a on the same notebook
    assert events.index("c in") < events.index("a out")  # another notebook did not


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
