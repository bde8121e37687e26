"""What cannot be wired wrong on FastMCP. `Variants(mcp)` registers itself with the server (the extension and the
low-level middleware), so it cannot be left out; what is left is refused, naming the fix: `@mcp.tool` stacked with
`@variants.tool` (above it, a registration that takes the name over: at start; under it, as it is declared, as on
MCPServer: test_variants_on_a_server.py), and a Variants server mounted into one without Variants (at the mount)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from fastmcp import FastMCP
from fastmcp.server.transforms import Namespace

from mcp_variants.fastmcp import DeclarationError, Variants

pytestmark = pytest.mark.timeout(120)

TAKEN_OVER = '''
from fastmcp import FastMCP
from mcp_variants.fastmcp import Variants, cli, variant

mcp = FastMCP("taken-over")
variants = Variants(mcp)


@mcp.tool
@variants.tool("assistant/content", variant("programmatic/structured", {"type": "object"}))
def add(a: int) -> dict:
    return {"a": a}


cli(mcp)
'''


def test_a_tool_registered_again_after_variants_tool_stops_the_server_at_start(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(TAKEN_OVER)
    ended = subprocess.run([sys.executable, str(script)], input=b"", capture_output=True, timeout=90)
    stderr = ended.stderr.decode(errors="replace")
    assert ended.returncode != 0 and ended.stdout == b""  # nothing served: no listing offers variants it cannot give
    assert "DeclarationError: tool 'add' breaks the rule 'a tool is registered once'" in stderr, stderr
    assert "@mcp.tool stacked with @variants.tool on this one, in either order (decorate it with @variants.tool alone" in stderr


def child_with_a_variants_tool() -> tuple[FastMCP, Variants]:
    """A server named "child" with Variants and one variants tool, `add`."""
    child = FastMCP("child")
    variants = Variants(child)

    @variants.tool("assistant/content")
    def add() -> str:
        return "1"

    return child, variants


def test_a_variants_server_cannot_be_mounted_into_one_without_variants() -> None:
    """Mounted into a parent with Variants, it is served with its variants (test_fastmcp_mount.py)."""
    parent = FastMCP("parent")
    with pytest.raises(ValueError, match=r"cannot be mounted into a server without Variants.*"
                                         r"\(Variants\(parent\), then parent\.mount\(child\)\)"):
        parent.mount(child_with_a_variants_tool()[0])
    assert [tool.name for tool in anyio.run(parent.list_tools)] == []  # not mounted at all


def test_a_variants_tool_renamed_by_a_transform_is_refused_naming_the_fix() -> None:
    """`mount(..., tool_names=...)` or a Namespace on the server itself renames the tool past its declaration: FastMCP
    would serve it as a plain tool, so the start refuses it (a mount's namespace is followed: test_fastmcp_mount.py)."""
    parent = FastMCP("parent")
    served = Variants(parent)
    parent.mount(child_with_a_variants_tool()[0], namespace="kid", tool_names={"add": "plus"})
    with pytest.raises(DeclarationError, match=r"tool 'kid_plus' .* a transform renamed tool 'add' of server 'child'.*"
                                               r"@variants.tool\(\.\.\., name=\.\.\.\)"):
        anyio.run(served.refuse_taken_over)

    itself, its_variants = child_with_a_variants_tool()
    itself.add_transform(Namespace("mine"))
    with pytest.raises(DeclarationError, match=r"tool 'mine_add' .* a transform renamed tool 'add' of server 'child'"):
        anyio.run(its_variants.refuse_taken_over)

    namespaced = FastMCP("namespaced")
    namespaced_variants = Variants(namespaced)
    namespaced.mount(child_with_a_variants_tool()[0], namespace="kid")
    anyio.run(namespaced_variants.refuse_taken_over)  # served as kid_add, with its variants: nothing to refuse
