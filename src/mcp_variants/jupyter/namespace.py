"""What a Python kernel holds, said by the kernel itself: this module's source is sent to a kernel and run there
(jupyter/variables.py), never in the server, where importing it only defines functions.

It runs in a namespace of its own (`exec` with a fresh globals dict): it reads the user's namespace but adds no
name to it, imports nothing the user has not (pandas is looked up in sys.modules, never imported), calls no
`__getattr__` of theirs (attributes are looked up on the type first), and prints one line, MARKER and JSON.
Only the standard library, and syntax a Python 3.8 kernel reads.
"""

from __future__ import annotations

import inspect
import json
import numbers
import reprlib
import sys
import types
from typing import Any

MARKER = "@@mcp-variants:variables@@ "  # the line the server looks for, whatever else the kernel prints
LEFT_OUT = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)


def _static(value: Any, attribute: str) -> bool:
    """`value` has `attribute` of its own type's (a property, a slot), not one a `__getattr__` would make up."""
    try:
        inspect.getattr_static(type(value), attribute)
    except AttributeError:
        return False
    return True


def _type_name(value: Any) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module == "builtins" else f"{module}.{name}"


def _shape(value: Any) -> list[int] | None:
    if not _static(value, "shape"):
        return None
    try:
        shape = tuple(value.shape)
    except Exception:
        return None
    # Whole numbers only: a lazy array's unknown sizes (dask's) would compute when made ints.
    return [int(n) for n in shape] if all(isinstance(n, numbers.Integral) for n in shape) else None


def _length(value: Any, shape: list[int] | None) -> int | None:
    if shape:  # an array's or a frame's first axis: asking len() of a lazy one could compute it
        return shape[0]
    if shape is not None or not _static(value, "__len__"):
        return None
    try:
        return int(len(value))
    except Exception:
        return None


def _dtype(value: Any) -> str | None:
    if not _static(value, "dtype"):
        return None
    try:
        return str(value.dtype)
    except Exception:
        return None


def _repr(value: Any, chars: int, items: int) -> str:
    """At most about `chars` characters: containers and strings elided inside by reprlib (never built whole)."""
    shortener = reprlib.Repr()
    shortener.maxstring = shortener.maxother = max(chars, 12)
    shortener.maxlist = shortener.maxtuple = shortener.maxset = shortener.maxfrozenset = shortener.maxdeque = items
    shortener.maxdict = shortener.maxarray = items
    shortener.maxlevel = 4
    try:
        text = shortener.repr(value)
    except Exception as error:
        return f"<repr failed: {type(error).__name__}: {error}>"
    return text if len(text) <= chars else text[:chars] + "…"


def _frame(value: Any) -> bool:
    pandas = sys.modules.get("pandas")
    frame = getattr(pandas, "DataFrame", None) if pandas is not None else None
    return isinstance(frame, type) and isinstance(value, frame)


def _columns(value: Any, limit: int) -> list[dict[str, str]]:
    return [{"name": str(name), "dtype": str(dtype)} for name, dtype in list(value.dtypes.items())[:limit]]


def _head(value: Any, rows: int, columns: int, chars: int) -> dict[str, Any]:
    head = value.iloc[:rows, :columns]
    return {
        "index": [_repr(i, chars, 5) for i in head.index],
        "rows": [[_repr(cell, chars, 5) for cell in row] for row in head.itertuples(index=False, name=None)],
    }


def describe(name: str, value: Any, request: dict[str, Any]) -> dict[str, Any]:
    shape = _shape(value)
    record: dict[str, Any] = {
        "name": name,
        "type": _type_name(value),
        "shape": shape,
        "length": _length(value, shape),
        "dtype": _dtype(value),
        "repr": _repr(value, request["repr_chars"], request["repr_items"]),
    }
    if _frame(value):
        try:
            record["columns"] = _columns(value, request["max_columns"])
            if request.get("head_rows"):
                record["head"] = _head(value, request["head_rows"], request["max_columns"], request["cell_chars"])
        except Exception as error:  # a frame subclass that is not quite one: its repr still says what it is
            record["columnsError"] = f"{type(error).__name__}: {error}"
    return record


def hidden_names(namespace: dict[str, Any]) -> set[str]:
    """What IPython put in the namespace itself (In, Out, exit, get_ipython...), as %who leaves them out."""
    shell = namespace.get("get_ipython")
    try:
        return set(shell().user_ns_hidden) if callable(shell) else set()
    except Exception:
        return set()


def variables(namespace: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """The user's variables (or the one `request["name"]` names) described."""
    wanted = request.get("name")
    if wanted is not None:
        if wanted not in namespace:
            return {"found": False}
        return {"found": True, "variable": describe(wanted, namespace[wanted], request)}
    hidden = hidden_names(namespace)
    names = sorted(n for n, v in list(namespace.items()) if not n.startswith("_") and n not in hidden
                   and (request["include_all"] or not isinstance(v, LEFT_OUT)))
    shown = names[:request["max_variables"]]
    return {"total": len(names), "variables": [describe(n, namespace[n], request) for n in shown]}


def report(namespace: dict[str, Any], request: dict[str, Any]) -> None:
    try:
        answer = variables(namespace, request)
    except Exception as error:
        answer = {"failed": f"{type(error).__name__}: {error}"}
    sys.stdout.write(MARKER + json.dumps(answer, default=str) + "\n")
    sys.stdout.flush()
