"""The tool that helps after a runtime's refusal: jupyter/ says what would help (`Recourse`), this module
says which tool gives it, so the runtime layer never names a tool."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...jupyter.refusals import Recourse, RuntimeRefusal
from ...protocol.errors import ToolError
from ...protocol.projection import Outcome
from .tool_context import ToolContext, ToolRun

HINTS: dict[Recourse, str] = {
    Recourse.FOLDERS: "Call list_files without a path to see what there is.",
    Recourse.NOTEBOOKS: "list_files with pattern '*.ipynb' shows the notebooks.",
    Recourse.RUNNING_KERNELS: "list_kernels shows the running ones.",
    Recourse.KERNELSPECS: "list_kernels shows the kernelspecs.",
    Recourse.CELL_IDS: "read_notebook lists the cell ids.",
    Recourse.SANDBOXES: "list_sandboxes shows the ids, launch_sandbox starts one.",
    Recourse.OTHER_RUNTIME: "use_sandbox or connect_to_jupyter picks another.",
    Recourse.OTHER_SERVER: "connect_to_jupyter reaches another one.",
    Recourse.OTHER_TOKEN: "connect_to_jupyter with the right token.",
    Recourse.NOTEBOOK_AS_IT_IS: "read_notebook shows the notebook as it is.",
}
# After the runtime's hint for a module a kernel lacks (Execution.hint): how to pick a kernel that has it.
KERNEL_CHOICE = "list_kernels shows the kernelspecs; use_notebook's kernel_id or a notebook's metadata.kernelspec picks one."

def hinted(error: ToolError) -> ToolError:
    """`error` as the client gets it from a tool: a runtime's refusal with the hint for its recourse after it."""
    if not isinstance(error, RuntimeRefusal) or error.recourse is None:
        return error
    return ToolError(error.kind, f"{error.message} {HINTS[error.recourse]}", details=error.details, partial=error.partial)


def with_hints(run: ToolRun) -> ToolRun:
    """`run` (a tool's) with every runtime refusal it raises, or returns as its failure, hinted."""
    async def hinted_run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
        try:
            outcome = await run(ctx, args)
        except RuntimeRefusal as refusal:
            raise hinted(refusal) from None
        if outcome.failure is None:
            return outcome
        return replace(outcome, failure=hinted(outcome.failure))
    return hinted_run
