"""The typed bindings' generator (mcp_variants.client.stubs): JSON Schema as Python types, checked by running the
generated module and by what mypy says of programs that use it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_variants.client.stubs import generate_stubs, python_name, script_name
from mcp_variants.client.tools import parse_listing
from mcp_variants.protocol.versions import Era

RECORD = {
    "type": "object",
    "required": ["id", "kind", "bundle"],
    "properties": {
        "id": {"type": "string"},
        "kind": {"enum": ["a", "b"]},
        "count": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "bundle": {"type": "object"},  # a mime bundle: any keys
        "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
        "image/png": {"type": "string"},  # a key that is no identifier
    },
    "$defs": {"tag": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
}


def listing(*tools: dict[str, Any]) -> Any:
    return parse_listing(list(tools), Era.OUTPUTS, frozenset())


def tool(name: str, programmatic: dict[str, Any] | None, inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    variants: list[dict[str, Any]] = [{"audience": "assistant", "format": "content"}]
    if programmatic is not None:
        variants.append({"audience": "programmatic", "format": "structured", "schema": programmatic})
    return {"name": name, "inputSchema": inputs or {"type": "object"}, "outputVariants": variants}


def test_the_bindings_type_what_the_schema_says_and_mypy_holds_programs_to_it(tmp_path: Path) -> None:
    inputs = {"type": "object", "required": ["from"], "properties": {"from": {"type": "string"}, "limit": {"type": "integer"}}}
    text = generate_stubs(listing(tool("get-record", RECORD, inputs), tool("get_same", RECORD), tool("plain", None)))
    (tmp_path / "tools.py").write_text(text)
    namespace: dict[str, Any] = {}
    exec(compile(text, "tools.py", "exec"), namespace)  # it imports: valid Python
    assert "def get_record(*, from_: str, limit: int = ...) -> GetRecordResult:" in text
    assert "GetSameResult = GetRecordResult" in text  # one shape, one TypedDict, each tool its own name
    assert "def plain() -> list[ContentBlock]:" in text
    good = ("from tools import *\n"
            "r = get_record(from_='x')\n"
            "n: int = (r['count'] or 0) + len(r['bundle']) + len(r['image/png'])\n"
            "k: str = r['kind'] + r['id'] + ''.join(t['name'] for t in r.get('tags', []))\n"
            "try:\n    plain()\nexcept ToolCallError as e:\n    t: str = e.error['type']\n")
    bad = ("from tools import *\n"
           "r = get_record(from_='x')\n"
           "n: int = r['count']\n"  # int | None
           "k: str = r['kinds']\n"  # no such key
           "get_record(limit=2)\n")  # from_ is required
    (tmp_path / "good.py").write_text(good)
    (tmp_path / "bad.py").write_text(bad)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "tools.py", "good.py", "bad.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=280)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if not e.startswith("bad.py")], done.stdout
    assert sorted(int(e.split(":")[1]) for e in errors) == [3, 4, 5], done.stdout


def test_names_become_identifiers() -> None:
    assert [python_name(n) for n in ("list-files", "class", "3d", "ok")] == ["list_files", "class_", "_3d", "ok"]


def test_tool_names_in_the_codemode_namespace_are_codemodes() -> None:
    """As @cloudflare/codemode's sanitizeToolName names them (its types and its namespace), JavaScript's reserved words."""
    assert [script_name(n) for n in ("list-files", "a.b c", "delete", "class", "3d", "x!y", "def")] == [
        "list_files", "a_b_c", "delete_", "class_", "_3d", "xy", "def"]
    text = generate_stubs(listing(tool("delete", None), tool("get-record", RECORD)), language="typescript")
    assert "  delete_(input: DeleteInput): Promise<Array<ContentBlock>>;" in text
    assert "  get_record(input: GetRecordInput): Promise<GetRecordResult>;" in text
    assert '"image/png"?: string;' in text and '"kind": "a" | "b";' in text
