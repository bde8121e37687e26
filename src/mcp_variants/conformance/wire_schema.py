"""The wire schema of 2026-12-01, and a validator for JSON-RPC messages against it.

No JSON Schema for 2026-12-01 exists upstream yet, so it is written once, here:

* `vectors/schema/2026-07-28.json` is the official schema of 2026-07-28, exactly as
  @modelcontextprotocol/conformance 0.2.0-alpha.12 embeds it to validate the wire (taken out
  of the package by scripts/extract_wire_schema.py; no Python package ships it as a file);
* `vectors/schema/2026-12-01.json` is that schema plus SEP-3279's additions
  (`build_outputs_schema`): `ToolResultOutputSelector`, `ToolResultVariant`,
  `ToolResultOutput` and their content/structured members, `Tool.outputVariants` (required;
  `outputSchema` gone), `CallToolRequestParams.requestedOutputs`, and `CallToolResult.outputs`
  (required; `content` and `structuredContent` gone).

The schema holds the shapes only, as SEP-3279's TypeScript does. What a shape cannot say (no
duplicate selector, assistant/content declared, one output per selector) is for the scenarios.

`validate_wire_message(message, request_method=...)` picks the definition the way the
official suite does: a request or notification by its `method`, an error by its code, a
result by the method of the request it answers; then the JSON-RPC envelope. Formats
(`uri`, ...) are not asserted. Validators are compiled once per definition: jsonschema-rs
says whether a message is valid (nearly all are; the pure-Python validator took a third of a
conformance run's CPU), and jsonschema explains one that is not, with its paths and closest
alternatives.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from .constants import OUTPUTS_VERSION

SCHEMA_DIR: Final = Path(__file__).resolve().parent / "vectors" / "schema"
BASE_VERSION: Final = "2026-07-28"
BASE_SOURCE: Final = "@modelcontextprotocol/conformance 0.2.0-alpha.12 (the 2026-07-28 entry of the schemas it validates the wire with)"
_ENVELOPES: Final = frozenset({"ClientRequest", "ClientNotification", "ClientResult", "ClientMessage",
                               "ServerRequest", "ServerNotification", "ServerResult", "ServerMessage"})
_MAX_ERRORS: Final = 6


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _selector_fields(fmt: dict[str, Any]) -> dict[str, Any]:
    return {"audience": _ref("ToolResultAudience"), "format": fmt}


# SEP-3279 "Schema types", as JSON Schema; descriptions quote the SEP.
ADDED_DEFS: Final[dict[str, Any]] = {
    "ToolResultAudience": {
        "description": "A core audience (\"assistant\", \"user\", \"programmatic\") or the identifier of an MCP extension "
                       "that the client and server negotiated for the current request (SEP-3279).",
        "type": "string"},
    "ToolResultFormat": {"description": "The payload encoding of a result variant (SEP-3279).", "enum": ["content", "structured"],
                         "type": "string"},
    "ToolResultOutputSelector": {
        "description": "An audience and format pair: what a client requests in `requestedOutputs` (SEP-3279).",
        "properties": _selector_fields(_ref("ToolResultFormat")), "required": ["audience", "format"], "type": "object"},
    "ContentToolResultVariant": {
        "description": "A declared variant whose payload is a `ContentBlock[]` (SEP-3279).",
        "properties": _selector_fields({"const": "content", "type": "string"}), "required": ["audience", "format"], "type": "object"},
    "StructuredToolResultVariant": {
        "description": "A declared variant whose payload is a JSON value, with the JSON Schema of that payload (SEP-3279).",
        "properties": {**_selector_fields({"const": "structured", "type": "string"}),
                       "schema": {"additionalProperties": {}, "properties": {"$schema": {"type": "string"}}, "type": "object"}},
        "required": ["audience", "format"], "type": "object"},
    "ToolResultVariant": {"anyOf": [_ref("ContentToolResultVariant"), _ref("StructuredToolResultVariant")],
                          "description": "One result representation a tool can produce (SEP-3279)."},
    "ContentToolResultOutput": {
        "description": "A returned output in the content format (SEP-3279).",
        "properties": {**_selector_fields({"const": "content", "type": "string"}),
                       "content": {"items": _ref("ContentBlock"), "type": "array"}},
        "required": ["audience", "content", "format"], "type": "object"},
    "StructuredToolResultOutput": {
        "description": "A returned output in the structured format (SEP-3279).",
        "properties": {**_selector_fields({"const": "structured", "type": "string"}), "structuredContent": {}},
        "required": ["audience", "format", "structuredContent"], "type": "object"},
    "ToolResultOutput": {"anyOf": [_ref("ContentToolResultOutput"), _ref("StructuredToolResultOutput")],
                         "description": "One returned result representation, routed by its audience (SEP-3279)."},
}


def build_outputs_schema(base: Mapping[str, Any]) -> dict[str, Any]:
    """The 2026-12-01 schema: the 2026-07-28 one with SEP-3279's changes to Tool, tools/call and its result."""
    out = copy.deepcopy(dict(base))
    out["$comment"] = (f"MCP {OUTPUTS_VERSION} wire schema: the {BASE_VERSION} schema of {BASE_SOURCE}, plus SEP-3279's "
                       "additions (mcp_variants.conformance.wire_schema.build_outputs_schema).")
    defs = out["$defs"]
    defs.update(copy.deepcopy(ADDED_DEFS))
    tool = defs["Tool"]
    tool["properties"].pop("outputSchema", None)
    tool["properties"]["outputVariants"] = {"description": "The result representations this tool can produce (SEP-3279).",
                                            "items": _ref("ToolResultVariant"), "type": "array"}
    tool["required"] = sorted({*tool["required"], "outputVariants"})
    params = defs["CallToolRequestParams"]
    params["properties"]["requestedOutputs"] = {
        "description": "The outputs the client selects; absent: the server returns assistant/content (SEP-3279).",
        "items": _ref("ToolResultOutputSelector"), "type": "array"}
    result = defs["CallToolResult"]
    for legacy in ("content", "structuredContent"):
        result["properties"].pop(legacy, None)
    result["properties"]["outputs"] = {"description": "Exactly one output per requested selector (SEP-3279).",
                                       "items": _ref("ToolResultOutput"), "type": "array"}
    result["required"] = sorted({*(r for r in result["required"] if r not in ("content", "structuredContent")), "outputs"})
    return out


def schema_text(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def schema_path(version: str = OUTPUTS_VERSION) -> Path:
    return SCHEMA_DIR / f"{version}.json"


# ---- validation -------------------------------------------------------------------------------------------


class WireSchema:
    """One revision's schema, with the definition chosen for each message as the official suite does."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self.defs: Mapping[str, Any] = schema["$defs"]
        self._uri = "mcp://wire/schema.json"
        self._registry: Registry[Any] = Registry().with_resource(self._uri, DRAFT202012.create_resource(dict(schema)))
        self._validators: dict[str, Draft202012Validator] = {}
        self._checks: dict[str, Any] = {}  # jsonschema-rs, per definition: the verdict only
        self.method_defs: dict[str, str] = {}
        self.error_defs: dict[int, str] = {}
        self.result_defs: dict[str, str] = {}
        for name, definition in self.defs.items():
            if name in _ENVELOPES or not isinstance(definition, dict):
                continue
            props = definition.get("properties") or {}
            method = (props.get("method") or {}).get("const")
            if isinstance(method, str):
                self.method_defs[method] = name
                if name.endswith("Request") and f"{name[:-7]}Result" in self.defs:
                    self.result_defs[method] = f"{name[:-7]}Result"
            for part in (props.get("error") or {}).get("allOf", []):
                code = ((part.get("properties") or {}).get("code") or {}).get("const")
                if isinstance(code, int):
                    self.error_defs[code] = name

    def _validator(self, name: str) -> Draft202012Validator:
        if name not in self._validators:
            self._validators[name] = Draft202012Validator({"$ref": f"{self._uri}#/$defs/{name}"}, registry=self._registry)
        return self._validators[name]

    def _check(self, name: str) -> Any:
        if name not in self._checks:
            self._checks[name] = jsonschema_rs.Draft202012Validator({"$defs": self.defs, "$ref": f"#/$defs/{name}"},
                                                                    validate_formats=False)
        return self._checks[name]

    def errors(self, name: str, instance: Any) -> list[str]:
        if self._check(name).is_valid(instance):
            return []
        found = sorted(self._validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
        lines = [f"{name}{''.join(f'/{p}' for p in e.absolute_path)}: {_explain(e)}" for e in found]
        return lines[:_MAX_ERRORS] + ([f"... {len(lines) - _MAX_ERRORS} more error(s)"] if len(lines) > _MAX_ERRORS else [])

    def first(self, *names: str) -> str:
        return next((n for n in names if n in self.defs), names[-1])

    def validate(self, message: Any, request_method: str | None = None) -> list[str]:
        if isinstance(message, list):
            return [f"[{i}] {e}" for i, m in enumerate(message) for e in self.validate(m, request_method)] or \
                   ["JSONRPCMessage: batch arrays are not valid in this protocol version"]
        body = message if isinstance(message, dict) else {}
        if isinstance(body.get("method"), str):
            default = "JSONRPCRequest" if "id" in body else "JSONRPCNotification"
            return self.errors(self.method_defs.get(body["method"], default), message)
        if body.get("error") is not None:
            code = body["error"].get("code") if isinstance(body["error"], dict) else None
            name = self.error_defs.get(code) if isinstance(code, int) else None
            return self.errors(name or self.first("JSONRPCErrorResponse", "JSONRPCError"), message)
        if "result" in body:
            result = body["result"]
            kind = result.get("resultType") if isinstance(result, dict) else None
            name = "InputRequiredResult" if kind == "input_required" and "InputRequiredResult" in self.defs else (
                self.result_defs.get(request_method) if request_method and kind in CORE_RESULT_TYPES else None)
            if name:
                problems = [f"{e} (result of {request_method!r})" for e in self.errors(name, result)]
                if problems:
                    return problems
            return self.errors(self.first("JSONRPCResultResponse", "JSONRPCResponse"), message)
        return ["JSONRPCMessage: not a valid JSON-RPC request, notification or response"]


def _explain(error: ValidationError) -> str:
    """The error's message; for anyOf/oneOf, also why the closest alternative failed."""
    text = str(error.message)[:300]
    if error.context:
        inner = best_match(error.context)
        if inner is not None:
            where = "".join(f"/{p}" for p in inner.relative_path)
            text += f" (closest: {where or '<here>'}: {inner.message[:200]})"
    return text


@cache
def wire_schema(version: str = OUTPUTS_VERSION) -> WireSchema:
    return WireSchema(json.loads(schema_path(version).read_text()))


# A result of another `resultType` is an extension's shape (SEP-2663's "task"): the schema checks its envelope only.
CORE_RESULT_TYPES: Final[frozenset[str | None]] = frozenset({None, "complete", "input_required"})


def validate_wire_message(message: Any, request_method: str | None = None, version: str = OUTPUTS_VERSION) -> list[str]:
    """How `message` (a decoded JSON-RPC message) breaks the wire schema of `version`; empty when it is valid.

    For a response, `request_method` (the method of the request it answers) selects the result
    definition, e.g. `CallToolResult` for "tools/call"; without it only the generic envelope is checked.
    """
    return wire_schema(version).validate(message, request_method)


# ---- exchanges --------------------------------------------------------------------------------------------


@dataclass
class SchemaViolation:
    """A message that breaks the wire schema. `origin` is "sent" (by the party running the checks) or "received"."""

    origin: str
    context: str  # e.g. "tools/call request", "tools/call response", "notifications/progress"
    errors: list[str]
    message: Any = None

    def to_json(self, limit: int = 600) -> dict[str, Any]:
        text = json.dumps(self.message, separators=(",", ":"), default=str)
        return {"origin": self.origin, "context": self.context, "errors": self.errors,
                "message": text if len(text) <= limit else text[:limit] + f"…({len(text)} chars)"}


@dataclass
class SchemaReport:
    """What a run validated: how many messages, and every violation (safe to share between threads)."""

    validated: int = 0
    violations: list[SchemaViolation] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def check(self, origin: str, context: str, message: Any, request_method: str | None = None,
              version: str = OUTPUTS_VERSION) -> list[SchemaViolation]:
        errors = validate_wire_message(message, request_method, version)
        found = [SchemaViolation(origin, context, errors, message)] if errors else []
        with self._lock:
            self.validated += 1
            self.violations += found
        return found

    def check_exchange(self, request: Mapping[str, Any], response: Any, notifications: Iterable[Any] = (),
                       *, sent: str = "sent", received: str = "received") -> list[SchemaViolation]:
        """A request, what came back, and any notifications on the way; origins name who wrote each."""
        method = request.get("method") if isinstance(request.get("method"), str) else None
        found = self.check(sent, f"{method} request", request)
        for note in notifications:
            found += self.check(received, f"{note.get('method') if isinstance(note, dict) else '?'} notification", note)
        if response is not None:
            found += self.check(received, f"{method} response", response, method)
        return found

    def of(self, origin: str) -> list[SchemaViolation]:
        return [v for v in self.violations if v.origin == origin]
