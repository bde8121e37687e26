"""The one execute loop against a real local kernel (jupyter_client, ZMQ): what a kernel does to a run that the
tools' own tests cannot stage, because our server sends one request at a time per kernel.

Another client of the same kernel (a person's JupyterLab, a second worker) is played by requests sent on the
kernel's channels outside `run_code`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from mcp_variants.jupyter.embedded import ZmqChannels
from mcp_variants.jupyter.outputs import OutputCollector, RunTracker
from mcp_variants.jupyter.run_loop import RunningKernel, run_code
from mcp_variants.jupyter.runtime import RunStatus

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def kernel() -> AsyncIterator[RunningKernel[ZmqChannels]]:
    from jupyter_client.manager import AsyncKernelManager

    manager = AsyncKernelManager(kernel_name="python3")
    await manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        yield RunningKernel("k", ZmqChannels(manager, client))
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)


def printed(outputs: list[dict[str, object]]) -> str:
    return "".join(str(o.get("text", "")) for o in outputs if o["output_type"] == "stream")


async def test_a_run_the_kernel_aborted_behind_a_failed_one_is_sent_again(kernel: RunningKernel[ZmqChannels]) -> None:
    """ipykernel drops, unrun, the execute requests queued behind a failed one (stop_on_error): ours ran after all."""
    kernel.channels.execute("import time; time.sleep(0.5); raise ValueError('the run before ours')")
    ran = await run_code(kernel, "print('ran after all')", timeout=30, hard_cap_bytes=10_000, progress=None)
    assert ran.status is RunStatus.OK and printed(ran.outputs) == "ran after all\n", ran
    assert ran.execution_count == 2, "the aborted request took no execution count"


async def test_without_the_resend_the_request_is_aborted_unrun(kernel: RunningKernel[ZmqChannels]) -> None:
    """The kernel's side of the test above, so that it cannot pass for a kernel that no longer aborts."""
    kernel.channels.execute("import time; time.sleep(0.5); raise ValueError('the run before ours')")
    ours = kernel.channels.execute("print('never')")
    with anyio.fail_after(30):
        while (reply := await kernel.channels.shell(30)) is not None and reply["parent_header"]["msg_id"] != ours:
            pass
    assert reply is not None and reply["content"]["status"] == "aborted", reply


def test_a_run_aborted_at_every_try_is_an_error_saying_so() -> None:
    run = RunTracker("m", OutputCollector(10_000))
    run.settle({"content": {"status": "aborted"}})
    assert run.aborted
    run.never_ran(3)
    assert run.status is RunStatus.ERROR
    [error] = run.collector.outputs
    assert error["ename"] == "Aborted" and "did not run this code" in error["evalue"], error
