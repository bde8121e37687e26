"""A seeded generator of the messages the wire fuzzer sends: valid calls, mutated ones, and bytes that are no
message at all (issue 13). Reproducible: the same seed gives the same messages.

Only tools that cannot reach beyond the server's root are called (no connect_to_jupyter, no sandboxes),
and no code but `SAFE_CODE` is ever run: cells the fuzzer inserts are never executed.
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass
from typing import Any

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
UI = "io.modelcontextprotocol/ui"
UI_CAPS = {"extensions": {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}}

TOOLS = ("list_files", "list_kernels", "list_notebooks", "list_sandboxes", "read_notebook", "read_cell", "read_notebook_page",
         "insert_cell", "edit_cell_source", "overwrite_cell_source", "delete_cell", "move_cell", "clear_cell_output", "execute_code")
SAFE_CODE = ("1+1", "print('x' * 50)", "1/0", "import sys; sys.stderr.write('warning')", "{'a': [1, 2]}")
NOTEBOOKS = ("fuzz.ipynb", "fuzz.ipynb", "missing.ipynb", "../outside.ipynb", "/etc/passwd", "", "sub/", "ünï cödé.ipynb")
METHODS = ("tools/list", "server/discover", "resources/list", "prompts/list", "ping", "completion/complete", "no/such/method")
AUDIENCES = ("assistant", "user", "programmatic", UI, "nobody")
FORMATS = ("content", "structured", "binary")


@dataclass
class Fuzzed:
    """One fuzz message: its bytes, what it is meant to probe, and, for a tools/call the server may serve,
    what was asked (to judge the answer by)."""

    data: bytes
    kind: str
    tool: str | None = None
    requested: list[Any] | None = None
    version: str | None = None


class Fuzzer:
    def __init__(self, seed: int, input_schemas: dict[str, dict[str, Any]], variants: dict[str, list[dict[str, str]]]) -> None:
        self.random = random.Random(seed)
        self.input_schemas = input_schemas
        self.variants = variants  # tool -> its declared selectors
        self._ids = 0

    # -- what a message is made of

    def next_id(self) -> int | str:
        self._ids += 1
        return self._ids if self.random.random() < 0.8 else f"f-{self._ids}"

    def envelope(self, version: str) -> dict[str, Any]:
        ui = self.random.random() < 0.3
        return {VERSION_KEY: version, CAPS_KEY: UI_CAPS if ui else {}}

    def arguments(self, tool: str) -> dict[str, Any]:
        schema = self.input_schemas.get(tool, {})
        properties: dict[str, Any] = schema.get("properties", {})
        arguments: dict[str, Any] = {}
        for name, spec in properties.items():
            if name in schema.get("required", []) or self.random.random() < 0.4:
                arguments[name] = self.value(name, spec)
        if tool == "execute_code":
            arguments["code"] = self.random.choice(SAFE_CODE)
            arguments["timeout"] = 10
        elif self.random.random() < 0.1:  # a wrong type or an unknown argument: the tool's own error
            name = self.random.choice([*properties, "unknown"])
            arguments[name] = self.random.choice([None, [], {}, -1, "x", True])
        return arguments

    def value(self, name: str, spec: dict[str, Any]) -> Any:
        if name == "notebook":
            return self.random.choice(NOTEBOOKS)
        if "enum" in spec:
            return self.random.choice(spec["enum"])
        kind = spec.get("type")
        if kind == "integer":
            return self.random.choice([0, 1, 2, -1, 5, 10**6])
        if kind == "number":
            return self.random.choice([0.5, 1, 10])
        if kind == "boolean":
            return self.random.random() < 0.5
        return self.text(30)

    def text(self, size: int) -> str:
        alphabet = string.ascii_letters + string.digits + " \n\t\"\\'{}[]éß中🙂\u0000"
        return "".join(self.random.choice(alphabet) for _ in range(self.random.randint(0, size)))

    def requested_outputs(self, tool: str) -> list[Any] | None:
        declared = self.variants.get(tool, [])
        roll = self.random.random()
        if roll < 0.2 or not declared:
            return None
        if roll < 0.75:
            return self.random.sample(declared, self.random.randint(1, len(declared)))
        if roll < 0.85:
            chosen = self.random.choice(declared)
            return [chosen, chosen]  # a duplicate
        if roll < 0.9:
            return []
        return [{"audience": self.random.choice(AUDIENCES), "format": self.random.choice(FORMATS)}, "x", 5][: self.random.randint(1, 3)]

    # -- messages

    def tools_call(self, version: str, stateless: bool) -> Fuzzed:
        tool = self.random.choice([*TOOLS, "no_such_tool"])
        params: dict[str, Any] = {"name": tool, "arguments": self.arguments(tool)}
        requested = self.requested_outputs(tool) if version == "2026-12-01" else None
        if requested is not None:
            params["requestedOutputs"] = requested
        if stateless:
            params["_meta"] = self.envelope(version)
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "tools/call", "params": params}
        return Fuzzed(_dumps(message), "tools/call", tool, requested, version)

    def other_request(self, version: str, stateless: bool) -> Fuzzed:
        params: dict[str, Any] = {"_meta": self.envelope(version)} if stateless else {}
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": self.random.choice(METHODS), "params": params}
        return Fuzzed(_dumps(message), "request", version=version)

    def envelope_mutation(self) -> Fuzzed:
        meta = self.random.choice([
            {VERSION_KEY: "2099-01-01", CAPS_KEY: {}},
            {VERSION_KEY: "2026-12-01"},
            {VERSION_KEY: 20261201, CAPS_KEY: {}},
            {VERSION_KEY: "2026-12-01", CAPS_KEY: "none"},
            {VERSION_KEY: "2025-06-18", CAPS_KEY: {}},
            {VERSION_KEY: "2026-12-01", CAPS_KEY: {}, "io.github.mcp-variants/bridged": True},
            {CAPS_KEY: {}},
        ])
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": self.random.choice(["tools/list", "tools/call"]),
                   "params": {"name": "list_kernels", "arguments": {}, "_meta": meta}}
        return Fuzzed(_dumps(message), "envelope")

    def structural(self, base: dict[str, Any]) -> Fuzzed:
        message = dict(base)
        mutation = self.random.choice(["jsonrpc", "id", "method", "params", "no-id-no-method", "extra"])
        if mutation == "jsonrpc":
            choice = self.random.choice([None, "1.0", 2.0, "2.0 "])
            if choice is None:
                message.pop("jsonrpc")
            else:
                message["jsonrpc"] = choice
        elif mutation == "id":
            message["id"] = self.random.choice([9.5, True, None, [1], {"a": 1}, 2**70, -1, "", "x" * 300])
        elif mutation == "method":
            message["method"] = self.random.choice([5, None, [], "", "tools/call/", "TOOLS/LIST"])
        elif mutation == "params":
            message["params"] = self.random.choice([[], "x", 5, True, None, [{"name": "list_kernels"}]])
        elif mutation == "no-id-no-method":
            message.pop("method", None)
            if self.random.random() < 0.5:
                message["result"] = self.random.choice([{}, [], "x"])
        else:
            message[self.text(8) or "k"] = self.text(8)
        return Fuzzed(_dumps(message), f"structural:{mutation}")

    def bytes_mutation(self, base: bytes) -> Fuzzed:
        mutation = self.random.choice(["truncate", "byte", "utf8", "surrogate", "deep", "bom", "garbage"])
        if mutation == "truncate":
            data = base[: self.random.randint(0, max(0, len(base) - 1))]
        elif mutation == "byte":
            at = self.random.randint(0, len(base))
            data = base[:at] + bytes([self.random.randint(0, 255)]) + base[at:]
        elif mutation == "utf8":
            data = base.replace(b'"2.0"', b'"2.0\xff"', 1) if self.random.random() < 0.5 else base.replace(b'"params"', b'"par\xc3ams"', 1)
        elif mutation == "surrogate":
            data = base.replace(b'"arguments":{', b'"arguments":{"s":"\\udc80",', 1).replace(b'"params":{', b'"params":{"s":"\\ud83d",', 1)
        elif mutation == "deep":
            depth = self.random.choice([99, 101, 300, 2000])
            data = base.replace(b'"params":{', b'"params":{"deep":' + b"[" * depth + b"]" * depth + b",", 1)
        elif mutation == "bom":
            data = b"\xef\xbb\xbf" + base
        else:
            data = bytes(self.random.randint(0, 255) for _ in range(self.random.randint(1, 40))).replace(b"\n", b" ")
        return Fuzzed(data.replace(b"\n", b" "), f"bytes:{mutation}")

    def notification(self) -> Fuzzed:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": self.random.choice(["notifications/initialized", "notifications/cancelled",
                                                                                 "notifications/x", "notifications/progress"])}
        if self.random.random() < 0.5:
            message["params"] = self.random.choice([{}, {"requestId": 1}, [], "x"])
        return Fuzzed(_dumps(message), "notification")

    def response(self) -> Fuzzed:
        message = {"jsonrpc": "2.0", "id": self.next_id(), "result": {}} if self.random.random() < 0.5 else \
            {"jsonrpc": "2.0", "id": self.next_id(), "error": {"code": -1, "message": "no"}}
        return Fuzzed(_dumps(message), "response")

    def batch(self, version: str, stateless: bool) -> Fuzzed:
        elements: list[Any] = []
        for _ in range(self.random.randint(1, 4)):
            roll = self.random.random()
            if roll < 0.4:
                elements.append(json.loads(self.tools_call(version, stateless).data))
            elif roll < 0.6:
                elements.append(json.loads(self.other_request(version, stateless).data))
            elif roll < 0.8:
                elements.append(json.loads(self.notification().data))
            else:
                elements.append(self.random.choice([5, "x", None, {"jsonrpc": "2.0", "id": self.next_id(), "method": 5}]))
        return Fuzzed(_dumps(elements), "batch")

    def message(self, version: str, stateless: bool) -> Fuzzed:
        """One message for a connection of `version` (stateless: the envelope is carried)."""
        roll = self.random.random()
        if roll < 0.35:
            return self.tools_call(version, stateless)
        if roll < 0.45:
            return self.other_request(version, stateless)
        if roll < 0.5:
            return self.envelope_mutation()
        if roll < 0.65:
            return self.structural(json.loads(self.tools_call(version, stateless).data))
        if roll < 0.8:
            return self.bytes_mutation(self.tools_call(version, stateless).data)
        if roll < 0.87:
            return self.notification()
        if roll < 0.9:
            return self.response()
        if roll < 0.97:
            return self.batch(version, stateless)
        return Fuzzed(b"[]", "empty-batch")


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
