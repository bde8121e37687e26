"""A package's names imported when first named (PEP 562's module `__getattr__`), not as the package is imported."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def imported_when_named(package: str, **modules: str) -> Callable[[str], Any]:
    """The `__getattr__` of `package` that imports each name given from its module (`".module"`, relative to the
    package) the first time it is named: for a name whose module loads what a server starting up does not need
    (`InProcessTransport` speaks through the reference client, which a server never running a test in process
    leaves unloaded). A type checker sees the name through an `if TYPE_CHECKING:` import beside it."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    return __getattr__
