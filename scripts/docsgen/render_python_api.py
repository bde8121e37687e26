"""docs/python-api/index.md: the reference of the public server API, `mcp_variants.sdk`, from its own code.

Every name in `mcp_variants.sdk.__all__`, with its signature and docstring; for a class, its public methods
and properties. Written from the code, never by hand, so the page cannot drift from what a user imports.
"""

from __future__ import annotations

import enum
import inspect
import re
from typing import Any

import mcp_variants.sdk as sdk

PAGE = "python-api/index.md"
ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # a default's repr names where it lives in memory: not the same twice
INTRO = """# The Python server API: `mcp_variants.sdk`

Generated from the code by `make docs-examples` (scripts/docsgen/render_python_api.py); the guide is
[Add SEP-3279 to your Python server](../guides/python-servers.md). Everything below is importable from
`mcp_variants.sdk`, in the `mcp-variants-sdk` distribution (no Jupyter).
"""


def render_python_api() -> dict[str, str]:
    parts = [INTRO]
    for name in sorted(sdk.__all__, key=lambda n: (not inspect.isclass(getattr(sdk, n)), n.lower())):
        parts.append(_entry(name, getattr(sdk, name)))
    return {PAGE: "\n".join(parts).rstrip() + "\n"}


def _entry(name: str, obj: Any) -> str:
    kind = "class" if inspect.isclass(obj) else "function"
    lines = [f"## `{name}`", "", f"```python\n{_signature(name, obj, kind)}\n```", "", _doc(obj), ""]
    if kind == "class":
        for member, value in _members(obj):
            lines += [f"### `{name}.{member}`", "", f"```python\n{_signature(member, value, 'member')}\n```", "", _doc(value), ""]
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
    try:
        signature = ADDRESS.sub("", str(inspect.signature(target)))
    except (TypeError, ValueError):
        signature = "(...)"
    prefix = "class " if kind == "class" else "async def " if inspect.iscoroutinefunction(target) else "def "
    return f"{prefix}{name}{signature}"


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
