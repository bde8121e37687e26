"""jupyter/namespace.py, the source a Python kernel runs to describe its variables, run here on a plain dict as
the kernel runs it (jupyter/variables.introspection_code): what it says of each kind of value, and that it
binds nothing where it runs and calls no `__getattr__` of the user's."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from mcp_variants.jupyter import namespace
from mcp_variants.jupyter.variables import introspection_code, is_python
from mcp_variants.tools.shared.variables import INSPECT_REQUEST, LIST_REQUEST


def run_as_the_kernel(user: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(introspection_code(request), user)
    (line,) = printed.getvalue().splitlines()
    assert line.startswith(namespace.MARKER)
    answer: dict[str, Any] = json.loads(line[len(namespace.MARKER):])
    return answer


class Sneaky:
    """Answers every attribute, as a mock or a lazy proxy does: a shape, a dtype or a len must not come from it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.asked.append(name)
        return (1, 2)


def test_what_it_says_of_each_value_and_what_it_leaves_out() -> None:
    sneaky = Sneaky()
    user: dict[str, Any] = {"__builtins__": __builtins__, "n": 3, "words": ["a"] * 1000, "text": "x" * 10_000,
                            "mapping": {"k": [1, 2]}, "sneaky": sneaky, "json": json, "_private": 1, "f": lambda: 1, "Kind": Sneaky}
    before = dict(user)
    answer = run_as_the_kernel(user, LIST_REQUEST)
    assert user == before, "no name bound, none changed"
    by_name = {v["name"]: v for v in answer["variables"]}
    assert set(by_name) == {"n", "words", "text", "mapping", "sneaky"} and answer["total"] == 5
    assert by_name["words"]["length"] == 1000 and by_name["words"]["repr"].endswith("...]") and len(by_name["words"]["repr"]) < 80
    assert by_name["text"]["length"] == 10_000 and len(by_name["text"]["repr"]) <= LIST_REQUEST["repr_chars"] + 1
    assert by_name["mapping"] == {"name": "mapping", "type": "dict", "shape": None, "length": 1, "dtype": None,
                                  "repr": "{'k': [1, 2]}"}
    assert by_name["sneaky"]["type"].endswith("Sneaky") and by_name["sneaky"]["shape"] is None and by_name["sneaky"]["dtype"] is None
    assert sneaky.asked == [], "no __getattr__ of the user's was called"
    everything = run_as_the_kernel(user, {**LIST_REQUEST, "include_all": True})
    assert {"json", "f", "Kind"} <= {v["name"] for v in everything["variables"]}


def test_one_variable_or_none() -> None:
    user: dict[str, Any] = {"__builtins__": __builtins__, "data": list(range(500))}
    found = run_as_the_kernel(user, {**INSPECT_REQUEST, "name": "data"})
    assert found["found"] and found["variable"]["length"] == 500 and "..." in found["variable"]["repr"]
    assert run_as_the_kernel(user, {**INSPECT_REQUEST, "name": "missing"}) == {"found": False}


def test_a_repr_that_raises_still_names_the_value() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    answer = run_as_the_kernel({"__builtins__": __builtins__, "b": Broken()}, LIST_REQUEST)
    assert answer["variables"][0]["repr"].startswith("<Broken instance at "), "reprlib's own stand-in"


def test_python_languages() -> None:
    assert is_python("python") and is_python("Python3") and not is_python("bash") and not is_python(None)
