"""A runtime's refusal, in the runtime's own terms: what is wrong, and what would help (`Recourse`).

Which tool gives that help is the tools layer's to say (tools/shared/hints.py): jupyter/ speaks of
kernels, notebooks and servers, and never names a tool (tests/unit/test_layers.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..protocol.errors import ErrorKind, ToolError


class Recourse(StrEnum):
    """What a client can look at, or do, after a refusal: a fact about the runtime, no tool's name."""

    FOLDERS = "folders"  # what there is under the root (a folder that is not there)
    NOTEBOOKS = "notebooks"  # the notebooks under the root
    RUNNING_KERNELS = "running-kernels"
    KERNELSPECS = "kernelspecs"
    CELL_IDS = "cell-ids"  # a notebook's cell ids
    SANDBOXES = "sandboxes"  # the running sandboxes, or a new one
    OTHER_RUNTIME = "other-runtime"  # the client's runtime is gone: a sandbox or a Jupyter server instead
    OTHER_SERVER = "other-server"  # a Jupyter server that does not answer: another one
    OTHER_TOKEN = "other-token"  # a Jupyter server that refuses the token: the same server, another token
    NOTEBOOK_AS_IT_IS = "notebook-as-it-is"  # an edit that may not have arrived: the notebook read again


@dataclass(eq=False)
class RuntimeRefusal(ToolError):
    """A ToolError whose message is whole without a hint (a resource read, the command line show it as it is);
    a tool's call gets the hint for `recourse` after it."""

    recourse: Recourse | None = None


# The refusals several runtimes make, said once.

def no_folder(path: str) -> RuntimeRefusal:
    return RuntimeRefusal(ErrorKind.NOT_FOUND, f"No folder {path!r} under the root.", recourse=Recourse.FOLDERS)


def no_notebook(path: str) -> RuntimeRefusal:
    return RuntimeRefusal(ErrorKind.NOT_FOUND, f"No notebook {path!r} under the root.", recourse=Recourse.NOTEBOOKS)


def no_kernel(kernel_id: str, where: str = "") -> RuntimeRefusal:
    """`where`: " on <the server>", for a runtime whose kernels are a server's."""
    return RuntimeRefusal(ErrorKind.NOT_FOUND, f"No kernel {kernel_id}{where}.", recourse=Recourse.RUNNING_KERNELS)


def no_kernelspec(name: str, where: str) -> RuntimeRefusal:
    return RuntimeRefusal(ErrorKind.NOT_FOUND, f"No kernelspec {name!r} {where}.", recourse=Recourse.KERNELSPECS)
