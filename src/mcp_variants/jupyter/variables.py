"""A kernel's variables, as the kernel says them: jupyter/namespace.py's source run silently in it (no
history, no execution count, no name left in the user's namespace), its one marked line of JSON read back.

Only Python kernels hold what that source reads: the kernel's kernelspec says its language, and any other is
refused before anything runs in it (a bash kernel would run the line as a command).
"""

from __future__ import annotations

import inspect
import json
from functools import cache
from typing import Any

from ..protocol.errors import ErrorKind, ToolError
from . import namespace
from .errors import JupyterErrorKind
from .runtime import Execution, Kernels, RunStatus


@cache
def _source() -> str:
    return inspect.getsource(namespace)


def introspection_code(request: dict[str, Any]) -> str:
    """One statement that binds nothing where it runs: the module's source compiled and run in a dict of its own,
    which alone sees the user's namespace (`globals()` of the cell) and the request."""
    call = f"{_source()}\nreport(_user_namespace, {request!r})\n"
    return (f"exec(compile({call!r}, '<mcp-variants variables>', 'exec'), "
            "{'_user_namespace': globals(), '__name__': '__mcp_variants__'})")


async def kernel_language(kernels: Kernels, kernel_id: str | None) -> str | None:
    """The language of `kernel_id`'s kernelspec (of the default kernelspec when None); None when it cannot be told."""
    specs = await kernels.kernelspecs()
    if kernel_id is None:
        spec = next((s for s in specs if s.is_default), None)
    else:
        name = next((k.name for k in await kernels.list_kernels() if k.kernel_id == kernel_id), None)
        spec = next((s for s in specs if s.name == name), None)
    return spec.language if spec is not None and spec.language else None


def is_python(language: str | None) -> bool:
    return language is not None and language.lower().startswith("python")


async def read_variables(kernels: Kernels, kernel_id: str | None, request: dict[str, Any], *, timeout: float) -> tuple[str, dict[str, Any]]:
    """The kernel that answered, and what namespace.variables answers in it for `request`; a ToolError when the kernel is not a Python
    one, or did not answer (timed out, died, or printed no answer)."""
    language = await kernel_language(kernels, kernel_id)
    if language is not None and not is_python(language):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS,
                        f"The kernel is a {language} kernel: its variables can be read in Python kernels only. Nothing was run in it.")
    execution = await kernels.execute(introspection_code(request), kernel_id=kernel_id, timeout=timeout, silent=True)
    if execution.status is RunStatus.TIMEOUT:
        raise ToolError(ErrorKind.TIMEOUT, f"The kernel did not describe its variables within {timeout:g} s "
                                           f"({_why_not(execution)}).")
    if execution.status is RunStatus.DIED:
        raise ToolError(JupyterErrorKind.KERNEL_DIED, "The kernel died while describing its variables.")
    printed = "".join(o.get("text", "") for o in execution.outputs if o["output_type"] == "stream")
    line = next((ln for ln in printed.split("\n") if ln.startswith(namespace.MARKER)), None)
    if line is None:
        error = next((o for o in execution.outputs if o["output_type"] == "error"), None)
        said = f" ({error['ename']}: {error['evalue']})" if error else ""
        raise ToolError(ErrorKind.INVALID_ARGUMENTS,
                        f"The kernel did not answer as a Python kernel does{said}: its variables can be read in Python kernels only.")
    answer: dict[str, Any] = json.loads(line[len(namespace.MARKER):])
    if "failed" in answer:
        raise ToolError(ErrorKind.INTERNAL, f"Describing the kernel's variables failed in the kernel: {answer['failed']}")
    return execution.kernel_id, answer


def _why_not(execution: Execution) -> str:
    if execution.queued:
        return "busy with other runs"
    return "it is a shared kernel: not interrupted" if execution.still_running else "interrupted"
