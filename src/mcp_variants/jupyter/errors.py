"""The kinds of failure only Jupyter's tools have: `error.type` of their structured error outputs, beside the
generic ones every server on the API shares (`ErrorKind`, protocol/errors.py).

The values are on the wire; a client may branch on them, so they are never renamed.
"""

from __future__ import annotations

from ..protocol.errors import ToolErrorKind


class JupyterErrorKind(ToolErrorKind):
    """Why a notebook or kernel tool failed, where no generic kind says it."""

    NO_NOTEBOOK = "no-notebook"  # a notebook tool was called without a notebook, and the client has no default
    PATH_OUTSIDE_ROOT = "path-outside-root"  # a path that leaves the served root
    INVALID_NOTEBOOK = "invalid-notebook"  # a file that is no notebook nbformat reads
    EXECUTION_ERROR = "execution-error"  # the code ran and raised: ename, evalue and traceback in the details
    KERNEL_DIED = "kernel-died"
