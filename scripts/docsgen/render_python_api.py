"""docs/python-api/index.md: the reference of the public server API, from its own code.

Every name in the `__all__` of its four public modules (`mcp_variants.sdk`, `.lowlevel`, `.tasks`, `.framework`), with its
signature and docstring; for a class, its public methods and properties; a name a later module re-exports is
named, not repeated. Written from the code, never by hand, so the page cannot drift from what a user imports.
"""

from __future__ import annotations

import enum
import inspect
import re
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import mcp_variants.sdk as sdk
import mcp_variants.sdk.framework as framework
import mcp_variants.sdk.lowlevel as lowlevel
import mcp_variants.sdk.tasks as tasks

PAGE = "python-api/index.md"
ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # a default's repr names where it lives in memory: not the same twice
INTRO = """# The Python server API: `mcp_variants.sdk`

Generated from the code by `make docs-examples` (scripts/docsgen/render_python_api.py); the guide is
[Add SEP-3279 to your Python server](../guides/python-servers.md). Four public modules, in the
`mcp-variants-sdk` distribution (no Jupyter): `mcp_variants.sdk` (what an `MCPServer` app is written
with), `mcp_variants.sdk.lowlevel` (toolsets on the SDK's low-level `Server`), `mcp_variants.sdk.tasks`
(long calls as tasks) and `mcp_variants.sdk.framework` (the seams a layer for another framework is built on,
as `mcp_variants.fastmcp` is). Every other module of the package is private.
"""
MODULES: tuple[tuple[str, ModuleType], ...] = (("mcp_variants.sdk", sdk), ("mcp_variants.sdk.lowlevel", lowlevel),
                                               ("mcp_variants.sdk.tasks", tasks), ("mcp_variants.sdk.framework", framework))


def render_python_api() -> dict[str, str]:
    parts = [INTRO]
    shown: dict[int, str] = {}  # each object once, under the first module that exports it
    for module_name, module in MODULES:
        again = sorted(n for n in module.__all__ if id(getattr(module, n)) in shown)
        parts.append(f"## `{module_name}`\n\n{inspect.getdoc(module) or ''}\n")
        if again:
            parts.append("Also here: " + ", ".join(f"`{n}` (from `{shown[id(getattr(module, n))]}`)" for n in again) + ".\n")
        for name in sorted(module.__all__, key=lambda n: (not inspect.isclass(getattr(module, n)), n.lower())):
            obj = getattr(module, name)
            if id(obj) not in shown:
                shown[id(obj)] = module_name
                parts.append(_entry(name, obj))
    return {PAGE: "\n".join(parts).rstrip() + "\n"}


def _entry(name: str, obj: Any) -> str:
    is_alias = typing.get_origin(obj) is not None or not callable(obj) or not hasattr(obj, "__name__")
    kind = "class" if inspect.isclass(obj) else "alias" if is_alias else "function"
    if kind == "alias":  # a type alias (SelectorName, Runner): a subscripted type, callable though it is no function; a constant
        return "\n".join([f"### `{name}`", "", f"```python\n{name} = {ADDRESS.sub('', str(obj))}\n```", "", _doc_of_alias(name), ""])
    lines = [f"### `{name}`", "", f"```python\n{_signature(name, obj, kind)}\n```", "", _doc(obj), ""]
    if kind == "class":
        for member, value in _members(obj):
            lines += [f"#### `{name}.{member}`", "", f"```python\n{_signature(member, value, 'member')}\n```", "", _doc(value), ""]
    return "\n".join(lines)


def _members(cls: type) -> list[tuple[str, Any]]:
    """The class's own public methods and properties (inherited ones are the SDK's, documented there)."""
    found = []
    for member, value in vars(cls).items():
        if member.startswith("_") or not (inspect.isfunction(value) or isinstance(value, property | staticmethod | classmethod)):
            continue
        found.append((member, value))
    return found


def _signature(name: str, obj: Any, kind: str) -> str:
    target: Any = obj.fget if isinstance(obj, property) else obj.__func__ if isinstance(obj, staticmethod | classmethod) else obj
    if isinstance(obj, property):
        return f"{name}: {_annotation(inspect.signature(target).return_annotation)}  # property"
    if kind == "class" and _is_enum(obj):
        return f"class {name}({', '.join(b.__name__ for b in obj.__bases__)})"
    prefix = "class " if kind == "class" else "async def " if inspect.iscoroutinefunction(target) else "def "
    called = target.__init__ if kind == "class" else target
    overloads = typing.get_overloads(called) if inspect.isfunction(called) else []
    if overloads:  # the ways it is called, not the implementation's catch-all signature
        return "\n".join(f"{prefix}{name}{_overload_signature(each, kind)}" for each in overloads)
    try:
        signature = ADDRESS.sub("", str(inspect.signature(target)))
    except (TypeError, ValueError):
        signature = "(...)"
    return f"{prefix}{name}{signature}"


def _overload_signature(overload: Any, kind: str) -> str:
    """One `@overload`'s signature; a constructor's without `self`."""
    signature = inspect.signature(overload)
    if kind == "class":
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    return ADDRESS.sub("", str(signature))


def _doc_of_alias(name: str) -> str:
    """A type alias or a constant has no docstring of its own: the string literal under its assignment in the source
    of the package's module that makes it."""
    for path in sorted(Path(sdk.__file__).parent.glob("*.py")):
        found = re.search(rf"^{name}\b[^\n]*=.*?\n\"\"\"(.*?)\"\"\"", path.read_text(), re.S | re.M)
        if found:
            return inspect.cleandoc(found.group(1))
    return "(no docstring)"


def _is_enum(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, enum.Enum)


def _annotation(annotation: Any) -> str:
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))


def _doc(obj: Any) -> str:
    target = obj.fget if isinstance(obj, property) else obj
    doc = inspect.getdoc(target) or ""
    if _is_enum(obj):
        doc += "\n\n" + "\n".join(f"- `{m.value}`: `{m.name}`" for m in obj)
    return doc.strip() or "(no docstring)"
