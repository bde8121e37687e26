"""nbformat, imported on first use: it pulls in jsonschema, whose import is one of the costliest of a start,
so a server that never touches a notebook never pays it.

`check` answers most notebooks without it: a jsonschema-rs validator compiled from nbformat's own
schema file judges a notebook in a small fraction of `nbformat.validate`'s time (bench/notebook_size.py). Whatever that
validator refuses, and every notebook it is not sure to judge alike, goes to nbformat, so that what
is refused, and the message saying why, are nbformat's.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema_rs

from ..protocol.errors import ToolError
from .errors import JupyterErrorKind

KNOWN_MINORS = range(6)  # nbformat 4.0 to 4.5: the schema files nbformat ships


def _module(name: str) -> Any:
    """An nbformat module, on first use (it ships no type annotations)."""
    return importlib.import_module(name)


def parse(text: str, path: str) -> dict[str, Any]:
    """A notebook read as nbformat 4; ToolError(JupyterErrorKind.INVALID_NOTEBOOK) for a damaged file."""
    nbformat = _module("nbformat")
    try:
        return dict(nbformat.reads(text, as_version=4))
    except Exception as exc:  # nbformat raises several kinds for a damaged file
        raise ToolError(JupyterErrorKind.INVALID_NOTEBOOK, f"{path!r} is not a readable notebook: {exc}") from None


def without_transient(notebook: dict[str, Any]) -> dict[str, Any]:
    """A notebook as a server sends it, less the transient display data it adds."""
    return dict(_module("nbformat.v4.rwbase").strip_transient(_module("nbformat").from_dict(notebook)))


def check(notebook: dict[str, Any]) -> bool:
    """Refuse to write a notebook the format does not allow. True when nbformat's schema alone judged it: an
    nbformat 4.0-4.5 notebook whose cells (from 4.5 on) have ids of their own, which nbformat reads back
    as it is (`parsed_notebooks.as_read`)."""
    validator = _fast_validator(notebook)
    if validator is not None and validator.is_valid(notebook):
        return True
    nbformat = _module("nbformat")
    try:
        nbformat.validate(nbformat.from_dict(notebook))
    except nbformat.ValidationError as exc:
        raise ToolError(JupyterErrorKind.INVALID_NOTEBOOK, f"refusing to write an invalid notebook: {exc.message}") from None
    return False


def check_fresh(notebook: dict[str, Any], fresh: list[Any], judged_minor: int) -> bool:
    """`check(notebook)`, the same verdict, where every cell but the `fresh` ones is equal to a cell that nbformat
    4.`judged_minor`'s schema judged valid: only the fresh cells and the notebook's own fields are judged again.
    The schema judges each cell on its own (the cells list has no constraint across its items), so a cell it found
    valid stays valid in any notebook of that minor; what it cannot see, every cell with an id and none repeated,
    `_fast_validator` looks at over all of them. Anything refused is judged whole, for nbformat's verdict and words."""
    validator = _fast_validator(notebook)
    if validator is not None and notebook["nbformat_minor"] == judged_minor and validator.is_valid({**notebook, "cells": fresh}):
        return True
    return check(notebook)


def _fast_validator(notebook: dict[str, Any]) -> Any | None:
    """The compiled schema of the notebook's version, when judging it is the schema's alone: nbformat 4.0-4.5
    (a later minor is relaxed by nbformat), and from 4.5 on every cell a dict with an id of its own (nbformat
    validates a copy in which a missing or repeated id is replaced)."""
    major, minor = notebook.get("nbformat"), notebook.get("nbformat_minor")
    if type(major) is not int or major != 4 or type(minor) is not int or minor not in KNOWN_MINORS:
        return None
    if minor >= 5:
        cells = notebook.get("cells")
        # Loops in C (map): over 5,000 cells they were most of a check that judges one cell (check_fresh).
        if not isinstance(cells, list) or not all(map(isinstance, cells, itertools.repeat(dict))):
            return None
        ids = list(map(dict.get, cells, itertools.repeat("id")))  # None where a cell has none: not a str
        if not all(map(isinstance, ids, itertools.repeat(str))) or len(set(ids)) != len(ids):
            return None
    return _compiled(minor)


@functools.cache
def _compiled(minor: int) -> Any:
    """nbformat's schema for 4.`minor`, read from its own file (without importing nbformat), as nbformat's
    jsonschema validator applies it: draft 4, formats not checked."""
    spec = importlib.util.find_spec("nbformat")
    assert spec is not None and spec.origin is not None
    schema = json.loads((Path(spec.origin).parent / "v4" / f"nbformat.v4.{minor}.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.Draft4Validator(schema, validate_formats=False)
