"""A server author's type checker sees the server API's types (py.typed): `mypy --strict` passes a server written as
the guide writes it (and the guide's own example), and catches a misspelt selector in `variant(...)` and in
`Results({...})`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

SERVER = '''from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant


class Sum(BaseModel):
    total: int


variants = Variants()


@variants.tool("assistant/content", variant("{selector}", Sum))
def add(a: int, b: int) -> Results:
    return Results({{"assistant/content": f"{{a + b}}", "{selector}": Sum(total=a + b)}})


mcp = MCPServer("calc", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
'''


def test_mypy_strict_passes_a_server_and_catches_a_misspelt_selector(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(SERVER.format(selector="programmatic/structured"))
    (tmp_path / "bad.py").write_text(SERVER.format(selector="programatic/structured"))
    guide = Path(__file__).resolve().parents[2] / "examples" / "bookshelf.py"
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "good.py", "bad.py", str(guide)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=280)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if e.startswith(("good.py", str(guide)))], done.stdout  # typed, and nothing to say of good servers
    assert any(e.startswith("bad.py:14:") and "Literal['programatic/structured']" in e for e in errors), done.stdout  # variant(...)
    assert any(e.startswith("bad.py:16:") and "[dict-item]" in e for e in errors), done.stdout  # Results({...})
    assert len(errors) == 2, done.stdout


TYPED_ENTRIES = '''from typing import Any

from mcp_variants.sdk import Results, SelectorName
from mcp_variants.sdk.lowlevel import Selector

named: dict[SelectorName, Any] = {"assistant/content": "text"}
by_selector: dict[Selector, Any] = {Selector("assistant", "content"): "text"}
mixed: dict[SelectorName | Selector, Any] = {"assistant/content": "text"}
results = [Results(named), Results(by_selector), Results(mixed), Results({"assistant/content": "text"})]
'''


def test_results_takes_a_mapping_typed_by_selector_names(tmp_path: Path) -> None:
    """`Results` reads its entries covariantly: a `dict[SelectorName, Any]` is accepted, not only a literal."""
    (tmp_path / "typed.py").write_text(TYPED_ENTRIES)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "typed.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout


FAILURES_AND_FLAGS = '''import argparse

from mcp.server.mcpserver import MCPServer

from mcp_variants.sdk import ErrorKind, ToolError, add_serving_arguments, cli

failures = [ToolError("No ticket 42."), ToolError(ErrorKind.NOT_FOUND, "No ticket 42.", details={"ticket": 42}),
            ToolError(kind="ticket-closed", message="Closed.", partial=[1]), ToolError(message="In words.")]
wrong = ToolError(ErrorKind.NOT_FOUND, "No ticket 42.", {"ticket": 42})
parser = argparse.ArgumentParser()
parser.add_argument("--db")
args = add_serving_arguments(parser).parse_args()
cli(MCPServer("tickets"), args=args)
'''


def test_toolerror_as_the_sdks_is_raised_and_cli_with_an_authors_parser_type_check(tmp_path: Path) -> None:
    """`ToolError(message)`, `(kind, message)` and keywords pass `mypy --strict`; details given without its keyword
    do not; `add_serving_arguments` and `cli(args=...)` are typed."""
    (tmp_path / "tickets.py").write_text(FAILURES_AND_FLAGS)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "tickets.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=280)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith("tickets.py:9:") and "[call-overload]" in errors[0], done.stdout


DECORATED = '''from typing import assert_type

from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants import fastmcp, sdk


class Seed(BaseModel):
    name: str


on_sdk = sdk.Variants(MCPServer("seeds"))
on_fastmcp = fastmcp.Variants(FastMCP("seeds"))


@on_sdk.tool("assistant/content", name="seed_text")
def seed_text(seed_id: str) -> str:
    return seed_id


@on_sdk.legacy_tool
def lookup_seed(seed_id: str) -> Seed:
    return Seed(name=seed_id)


@on_sdk.legacy_tool()
async def seed_later(seed_id: str) -> Seed | None:
    return None


@on_sdk.legacy_tool(sdk.variant("programmatic/structured", Seed), structured="assistant", name="seed_card")
def seed_card(seed_id: str) -> str:
    return lookup_seed(seed_id).name  # a tool calling another reads its return type


@on_fastmcp.tool("assistant/content", title="Seed")
def f_seed_text(seed_id: str) -> str:
    return seed_id


@on_fastmcp.legacy_tool
def f_lookup_seed(seed_id: str) -> Seed:
    return Seed(name=seed_id)


@on_fastmcp.legacy_tool(structured="assistant", name="f_seed_card")
async def f_seed_card(seed_id: str) -> Seed:
    return f_lookup_seed(seed_id)


assert_type(seed_text("a"), str)
assert_type(lookup_seed("a"), Seed)
assert_type(seed_card("a"), str)
assert_type(f_seed_text("a"), str)
assert_type(f_lookup_seed("a"), Seed)
'''
DECORATED_AWAITED = '''

async def awaited() -> None:
    assert_type(await seed_later("a"), Seed | None)
    assert_type(await f_seed_card("a"), Seed)
'''


def test_every_decorator_gives_back_the_function_with_its_own_type(tmp_path: Path) -> None:
    """`tool(...)`, `legacy_tool` and `legacy_tool(...)` on both layers, sync and async: the decorated function keeps its
    signature and return type under `mypy --strict` (a tool's helper called from another tool is not `Any`); a
    decorator typed `Any` would fail each `assert_type` and the strict return check."""
    (tmp_path / "decorated.py").write_text(DECORATED + DECORATED_AWAITED)
    (tmp_path / "misused.py").write_text(DECORATED + "\nassert_type(lookup_seed(1), Seed)\n")  # the signature is checked too
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "decorated.py", "misused.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=280)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith("misused.py:") and "[arg-type]" in errors[0], done.stdout
