"""Shared builders, independent oracles and hypothesis strategies for the unit tests.

Everything that judges the core here is written independently of it: schemas are
read straight from variants/ and checked with the pure-Python `jsonschema`
Draft202012Validator, not with the server's precompiled jsonschema-rs validators.
"""

from __future__ import annotations

import base64
import json
import string
from datetime import UTC
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mcp_variants.catalog import load_declarations
from mcp_variants.jupyter.runtime import Execution
from mcp_variants.protocol.projection import ToolProjectors
from mcp_variants.protocol.types import Selector, ToolDeclaration
from mcp_variants.tools import TOOLS
from mcp_variants.tools.shared.executions import ExecutionView
from mcp_variants.tools.shared.messages import Message
from mcp_variants.tools.shared.tables import Table

REPO = Path(__file__).resolve().parents[2]
VARIANTS = REPO / "variants"

UI = "io.modelcontextprotocol/ui"
CORE = {
    ("assistant", "content"),
    ("assistant", "structured"),
    ("user", "content"),
    ("user", "structured"),
    ("programmatic", "structured"),
}
EXTENSION_FORMATS = {UI: {"structured"}}
REASONS = {
    "requestedOutputs-not-in-this-version",
    "malformed",
    "empty",
    "not-a-core-combination",
    "extension-not-negotiated",
    "format-not-permitted-by-extension",
    "duplicate",
    "undeclared",
}

# Bounded, so the whole unit suite stays well under a minute.
PROPERTY = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

DECLARATIONS: dict[str, ToolDeclaration] = load_declarations(VARIANTS)
# The projectors the server really uses, for every declared tool it implements.
REAL_PROJECTORS: dict[str, ToolProjectors] = {name: TOOLS[name].projectors for name in DECLARATIONS if name in TOOLS}


def read_error_schema() -> dict[str, Any]:
    schema = json.loads((VARIANTS / "shapes" / "error.json").read_text())
    schema.pop("$comment", None)
    return schema


ERROR_SCHEMA = read_error_schema()
ERROR_VALIDATOR = Draft202012Validator(ERROR_SCHEMA)
Draft202012Validator.check_schema(ERROR_SCHEMA)


def variant_validator(declaration: ToolDeclaration, selector: Selector) -> Draft202012Validator:
    variant = declaration.variant(selector)
    assert variant is not None and variant.schema is not None, f"{declaration.name} has no schema for {selector}"
    return Draft202012Validator(variant.schema)


def schema_errors(validator: Draft202012Validator, value: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(value)]


def raw_tool(name: str = "t", variants: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A minimal valid variants/<tool>.json document, to break one rule at a time."""
    raw: dict[str, Any] = {
        "name": name,
        "description": "a test tool",
        "inputSchema": {"type": "object"},
        "outputVariants": variants if variants is not None else [{"audience": "assistant", "format": "content"}],
    }
    raw.update(extra)
    return raw


def sel(audience: str, fmt: str) -> dict[str, str]:
    return {"audience": audience, "format": fmt}


def assert_content_blocks(value: Any) -> None:
    """A content output is a non-empty list of well-formed text or image blocks."""
    assert isinstance(value, list) and value, value
    for block in value:
        assert isinstance(block, dict), block
        if block["type"] == "text":
            assert isinstance(block["text"], str)
        elif block["type"] == "image":
            assert isinstance(block["mimeType"], str) and block["mimeType"].startswith("image/")
            assert isinstance(block["data"], str)
            base64.b64decode(block["data"], validate=True)
        else:  # pragma: no cover - a failure message
            raise AssertionError(f"unexpected content block {block!r}")


# ---- strategies: requestedOutputs -------------------------------------------------------------

AUDIENCES = ["assistant", "user", "programmatic", UI, "com.example/other", "ASSISTANT", "", "io.modelcontextprotocol/ui/x"]
FORMATS = ["content", "structured", "Content", "", "text"]

# JSON-ish junk, lists and dicts included.
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12))

selector_like = st.one_of(
    st.builds(sel, st.sampled_from(["assistant", "user", "programmatic", UI]), st.sampled_from(["content", "structured"])),
    st.builds(sel, st.sampled_from(AUDIENCES), st.sampled_from(FORMATS)),
    st.builds(sel, st.text(max_size=12), st.text(max_size=12)),
    st.fixed_dictionaries({"audience": scalars, "format": scalars}),
    st.fixed_dictionaries({"audience": st.sampled_from(AUDIENCES)}),
    st.fixed_dictionaries({"format": st.sampled_from(FORMATS)}),
    st.builds(lambda a, f, extra: {**sel(a, f), **extra}, st.sampled_from(["assistant", "user"]),
              st.sampled_from(["content", "structured"]), st.dictionaries(st.text(max_size=5), scalars, max_size=2)),
    scalars,
    st.lists(st.sampled_from(["assistant", "content"]), max_size=2),
)

# Well-formed selectors: core (valid), programmatic/content (not core), ui and an unknown extension.
well_formed = st.builds(
    sel, st.sampled_from(["assistant", "user", "programmatic", UI, "com.example/other"]), st.sampled_from(["content", "structured"]),
)

_mostly_valid = st.one_of(
    st.lists(st.sampled_from([sel(a, f) for a, f in sorted(CORE)] + [sel(UI, "structured")]), min_size=1, max_size=6),
    st.lists(well_formed, min_size=1, max_size=5),
    st.lists(well_formed, min_size=1, max_size=5, unique_by=lambda d: (d["audience"], d["format"])),
)
_junk = st.one_of(
    st.lists(st.one_of(well_formed, selector_like), max_size=6),
    scalars,
    st.dictionaries(st.text(max_size=5), scalars, max_size=2),
)
# Lists biased towards valid selectors (with duplicates, undeclared and unnegotiated ones) about
# three times in four; everything mixed, junk included, otherwise.
requested_outputs = st.integers(0, 3).flatmap(lambda n: _junk if n == 0 else _mostly_valid)

negotiated = st.frozensets(st.sampled_from([UI, "com.example/other", "io.modelcontextprotocol/tasks"]), max_size=3)


def expected_selection(requested: Any, declaration: ToolDeclaration, extensions: frozenset[str]) -> tuple[Selector, ...] | None:
    """The oracle: the selectors a valid request yields, or None when it must be refused."""
    if not isinstance(requested, list) or not requested:
        return None
    out: list[Selector] = []
    for item in requested:
        if not isinstance(item, dict):
            return None
        audience, fmt = item.get("audience"), item.get("format")
        if not isinstance(audience, str) or not audience or not isinstance(fmt, str) or fmt not in ("content", "structured"):
            return None
        if audience in ("assistant", "user", "programmatic"):
            if (audience, fmt) not in CORE:
                return None
        elif audience not in extensions or fmt not in EXTENSION_FORMATS.get(audience, set()):
            return None
        selector = Selector(audience, fmt)
        if selector in out or declaration.variant(selector) is None:
            return None
        out.append(selector)
    return tuple(out)


def offending_reasons(item: Any, earlier: list[Any], declaration: ToolDeclaration, extensions: frozenset[str]) -> set[str]:
    """Every reason for which `item` (after `earlier` items) may be refused."""
    if not isinstance(item, dict):
        return {"malformed"}
    audience, fmt = item.get("audience"), item.get("format")
    if not isinstance(audience, str) or not audience or not isinstance(fmt, str) or fmt not in ("content", "structured"):
        return {"malformed"}
    reasons = set()
    if audience in ("assistant", "user", "programmatic"):
        if (audience, fmt) not in CORE:
            reasons.add("not-a-core-combination")
    elif audience not in extensions or audience not in EXTENSION_FORMATS:
        reasons.add("extension-not-negotiated")
    elif fmt not in EXTENSION_FORMATS[audience]:
        reasons.add("format-not-permitted-by-extension")
    if any(isinstance(e, dict) and e.get("audience") == audience and e.get("format") == fmt for e in earlier):
        reasons.add("duplicate")
    if declaration.variant(Selector(audience, fmt)) is None:
        reasons.add("undeclared")
    return reasons


# ---- strategies: internal values of real tools --------------------------------------------------

ANSI = ["\x1b[31m", "\x1b[0m", "\x1b[1;32m"]
texts = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(ANSI + ["\n", "abc", "é", "\U0001d11e", "\t", " ", "Traceback", "]"]), max_size=20).map("".join),
    st.text(alphabet="xyz\n", min_size=150, max_size=600),
)
names = st.text(alphabet=string.ascii_letters + string.digits + "_-.", min_size=1, max_size=16)


def _b64(data: bytes, wrap: bool) -> str:
    encoded = base64.b64encode(data).decode()
    if wrap:  # some kernels wrap base64 at 76 columns
        encoded = "\n".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    return encoded


stream_outputs = st.builds(
    lambda name, text: {"output_type": "stream", "name": name, "text": text},
    st.sampled_from(["stdout", "stderr"]), texts,
)
execute_results = st.builds(
    lambda text, count: {"output_type": "execute_result", "data": {"text/plain": text}, "metadata": {}, "execution_count": count},
    texts, st.one_of(st.none(), st.integers(min_value=0, max_value=10_000)),
)
image_displays = st.builds(
    lambda mime, raw, wrap, alt: {
        "output_type": "display_data",
        "data": {mime: _b64(raw, wrap), **({"text/plain": alt} if alt is not None else {})},
        "metadata": {},
    },
    st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"]), st.binary(max_size=300), st.booleans(),
    st.one_of(st.none(), st.just("<Figure size 640x480 with 1 Axes>")),
)
html_displays = st.builds(
    lambda html: {"output_type": "display_data", "data": {"text/html": html}, "metadata": {}}, texts,
)
errors = st.builds(
    lambda ename, evalue, tb: {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb},
    names, texts, st.lists(texts, max_size=4),
)
nb_outputs = st.lists(st.one_of(stream_outputs, execute_results, image_displays, html_displays, errors), max_size=8)

text_limits = st.one_of(st.integers(min_value=0, max_value=300), st.just(20_000))

executions = st.builds(
    Execution,
    kernel_id=st.uuids().map(str),
    status=st.just("ok"),
    execution_count=st.one_of(st.none(), st.integers(min_value=0, max_value=10_000)),
    outputs=nb_outputs,
    duration_ms=st.floats(min_value=0, max_value=1e7, allow_nan=False, allow_infinity=False),
    truncated_bytes=st.one_of(st.just(0), st.integers(min_value=0, max_value=10**9)),
    kernel_restarted=st.booleans(),
)
cells = st.builds(
    lambda notebook, cell_id, index: {"notebook": notebook, "cellId": cell_id, "cellIndex": index},
    names.map(lambda n: f"{n}.ipynb"), st.uuids().map(lambda u: u.hex[:8]), st.integers(min_value=0, max_value=500),
)
execution_views = st.builds(
    ExecutionView, executions, st.sampled_from(["code.execute", "cell.execute"]), text_limits,
)
cell_execution_views = st.builds(
    ExecutionView, executions, st.sampled_from(["cell.execute", "cell.insert_execute"]), text_limits, cells,
)

timestamps = st.datetimes(timezones=st.just(UTC)).map(
    lambda d: d.isoformat(timespec="seconds")
)


@st.composite
def file_listings(draw: st.DrawFn) -> Table:
    """A list_files page, built the way tools/list_files.py builds it."""
    entries = draw(st.lists(st.builds(
        lambda path, kind, size, modified: {
            "path": path, "name": path.rsplit("/", 1)[-1], "type": kind,
            "size": None if kind == "directory" else size, "modified": modified,
        },
        st.lists(names, min_size=1, max_size=3).map("/".join),
        st.sampled_from(["file", "directory", "notebook"]),
        st.integers(min_value=0, max_value=2**40),
        timestamps,
    ), max_size=12))
    extra = draw(st.integers(min_value=0, max_value=50))
    next_cursor = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=10_000).map(str)))
    programmatic: dict[str, Any] = {"files": entries, "total": len(entries) + extra}
    if next_cursor:
        programmatic["nextCursor"] = next_cursor
    folder = draw(st.sampled_from(["", "data", "a/b"]))
    return Table(
        kind="files.list",
        title=f"Files in {folder or 'the root folder'}",
        columns=(("path", "Path"), ("type", "Type"), ("size", "Size"), ("modified", "Modified")),
        rows=[{k: e[k] for k in ("path", "type", "size", "modified")} for e in entries],
        programmatic=programmatic,
        text_limit=draw(text_limits),
        empty_message=f"No files in {folder or 'the root folder'}.",
        next_cursor=next_cursor,
        facets={"type": sorted({e["type"] for e in entries})},
    )


@st.composite
def kernel_listings(draw: st.DrawFn) -> Table:
    """A list_kernels result, built the way tools/list_kernels.py builds it."""
    records = draw(st.lists(st.builds(
        lambda kid, name, state, started, last, count: {
            "id": kid, "name": name, "state": state, "started": started, "lastActivity": last, "executionCount": count,
        },
        st.uuids().map(str), st.sampled_from(["python3", "ir", "julia-1.10"]),
        st.sampled_from(["idle", "busy", "starting", "dead"]), timestamps, timestamps,
        st.integers(min_value=0, max_value=10**6),
    ), max_size=8))
    return Table(
        kind="kernels.list",
        title="Kernels",
        columns=(("id", "ID"), ("name", "Name"), ("state", "State"), ("started", "Started"), ("lastActivity", "Last activity")),
        rows=[{k: r[k] for k in ("id", "name", "state", "started", "lastActivity")} for r in records],
        programmatic={"kernels": records},
        text_limit=draw(text_limits),
        empty_message="No kernels are running. execute_code starts one.",
        facets={"state": sorted({r["state"] for r in records})},
    )


restart_messages = st.builds(
    lambda path, kid: Message(
        "notebook.restart",
        f"Restarted the kernel of {path}: variables and imports are gone; run the cells you need again.",
        {"notebook": path, "kernelId": kid, "restarted": True},
    ),
    names.map(lambda n: f"{n}.ipynb"), st.uuids().map(str),
)

# Internal values, built the way each tool's run() builds them, for the tools these tests know.
# A tool added later is covered by the declaration tests and the wire tests until it gets one here.
VALUES = {
    "execute_code": execution_views,
    "execute_cell": cell_execution_views,
    "insert_execute_code_cell": cell_execution_views,
    "list_files": file_listings(),
    "list_kernels": kernel_listings(),
    "restart_notebook": restart_messages,
}
PROPERTY_TOOLS = sorted(name for name in VALUES if name in DECLARATIONS and name in REAL_PROJECTORS)
EXECUTION_TOOLS = [name for name in PROPERTY_TOOLS if name in ("execute_code", "execute_cell", "insert_execute_code_cell")]

# Failure details that follow the declared error shape (ename/evalue strings, traceback strings).
failure_details = st.fixed_dictionaries(
    {},
    optional={
        "ename": names,
        "evalue": texts,
        "traceback": st.lists(texts, max_size=3),
        "path": texts,
        "retryable": st.booleans(),
    },
)
failure_kinds = st.sampled_from(
    ["invalid-arguments", "execution-error", "timeout", "kernel-died", "not-found", "internal", "path-outside-root"]
)


@st.composite
def requested_subsets(draw: st.DrawFn, declaration: ToolDeclaration, extensions: frozenset[str]) -> list[dict[str, str]]:
    """A valid requestedOutputs: a non-empty permutation of a subset of the offered variants."""
    offered = [v.selector.to_wire() for v in declaration.offered(extensions)]
    return draw(st.permutations(offered).flatmap(lambda p: st.integers(1, len(p)).map(lambda n: p[:n])))
