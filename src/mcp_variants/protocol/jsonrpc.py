"""JSON-RPC 2.0 framing as MCP uses it: what a message must be, and the error each defect gets.

Both transports ask this module about every message before the SDK sees it, so that every
request with an id gets exactly one answer whatever bytes a client sends (the SDK answers
some malformed messages and drops others without a word):

- not JSON: -32700, id null;
- JSON except for its encoding (a raw byte that is not UTF-8, an escaped lone surrogate): -32700
  with the id when it can be read;
- JSON, but no request, notification or response (a number, `[]`, `"jsonrpc": "1.0"`, no
  `jsonrpc`, a `method` that is no string, an id that is neither a string nor an integer):
  -32600, with the id when it is one;
- a request whose `params` is neither an object nor null: -32602 with its id;
- nested deeper than `MAX_DEPTH`: -32600 with its id;
- a line or body over the transport's size limit: -32600 with the id when its first bytes hold it.

A notification (no id) is never answered, as JSON-RPC says, nor is one that is valid JSON-RPC but not valid
MCP (dropped); a message JSON-RPC itself calls invalid is answered even without an id.
A batch (a JSON array) is the transport's to judge: `batch_elements` only says what is in it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

import orjson

PARSE_ERROR: Final[int] = -32700
INVALID_REQUEST: Final[int] = -32600
METHOD_NOT_FOUND: Final[int] = -32601
INVALID_PARAMS: Final[int] = -32602
INTERNAL_ERROR: Final[int] = -32603

# Far deeper than any MCP message (an envelope is 4 levels, our tools' arguments 3) and well below the
# depth at which the SDK's own parser gives up (about 200): a deeper message is refused before it.
MAX_DEPTH: Final[int] = 100
ID_PEEK_BYTES: Final[int] = 4096  # of an oversized message, the bytes searched for its id

RequestId = int | str


class Kind(Enum):
    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"


@dataclass(frozen=True)
class JsonRpcMessage:
    """A well-formed JSON-RPC 2.0 message, as decoded."""

    kind: Kind
    body: dict[str, Any]

    @property
    def id(self) -> RequestId | None:
        value = self.body.get("id")
        return value if is_request_id(value) else None

    @property
    def method(self) -> str | None:
        method = self.body.get("method")
        return method if isinstance(method, str) else None

    @property
    def params(self) -> dict[str, Any] | None:
        params = self.body.get("params")
        return params if isinstance(params, dict) else None


@dataclass(frozen=True)
class Refusal:
    """The error response a defective message gets (`answer` is False for a notification: it gets none)."""

    id: RequestId | None
    code: int
    message: str
    data: Any = None
    answer: bool = True

    def response(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": self.id, "error": error}


@dataclass(frozen=True)
class Batch:
    """A JSON array of messages: each element already checked."""

    elements: list[JsonRpcMessage | Refusal] = field(default_factory=list)


Checked = JsonRpcMessage | Refusal | Batch


def is_request_id(value: Any) -> bool:
    """MCP request ids are strings or integers (never null, a boolean or a fraction). An integer beyond 64 bits
    is read as a fraction (orjson), and counts as none: no client can keep such an id exactly either."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def error_response(request_id: RequestId | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    return Refusal(request_id, code, message, data).response()


def dumps(value: Any) -> bytes:
    """Compact JSON; a lone surrogate (which orjson refuses) is escaped by the standard library instead."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


def refuse_batch(batch: Batch, reason: str) -> list[dict[str, Any]]:
    """The answer to a batch that is not served: each request's own refusal or `reason`, with its id (one
    refusal with id null when the batch holds no request)."""
    answers = [
        element.response() if isinstance(element, Refusal) else error_response(element.id, INVALID_REQUEST, reason)
        for element in batch.elements
        if (element.answer if isinstance(element, Refusal) else element.kind is Kind.REQUEST)
    ]
    return answers or [error_response(None, INVALID_REQUEST, reason)]


# ---- decoding -------------------------------------------------------------------------------------


def check_bytes(text: bytes) -> Checked:
    """Decode one message (a stdio line, an HTTP body) and check it."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return _undecodable(text, str(exc))
    # A text with fewer brackets than the limit cannot nest deeper: most messages skip the walk.
    return check_value(value, shallow=text.count(b"[") + text.count(b"{") <= MAX_DEPTH)


def _undecodable(text: bytes, reason: str) -> Refusal:
    """What orjson refuses: the id is read, when it can be, from what the standard library makes of it."""
    if "depth limit" in reason:
        return Refusal(peek_id(text[:ID_PEEK_BYTES]), INVALID_REQUEST,
                       f"Invalid Request: the message is nested more than {MAX_DEPTH} levels deep")
    if "surrogate" in reason or ("UTF-8" in reason and "byte order mark" not in reason):
        lenient = _lenient_loads(text)
        request_id = lenient.get("id") if isinstance(lenient, dict) else None
        return Refusal(request_id if is_request_id(request_id) else None, PARSE_ERROR,
                       f"Parse error: the message holds {_encoding_defect(text)} ({reason})")
    return Refusal(None, PARSE_ERROR, f"Parse error: {reason}")


def _encoding_defect(text: bytes) -> str:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"bytes that are not UTF-8 (at byte {exc.start})"
    return "an escaped lone surrogate, which is no Unicode character"


def _lenient_loads(text: bytes) -> Any:
    try:
        return json.loads(text.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None


def peek_id(prefix: bytes) -> RequestId | None:
    """The top-level id of a JSON object from its first bytes (the rest may be cut off or broken), or None.

    Reads members in order and stops at the first value it cannot read: clients put `jsonrpc` and `id`
    before `params`, so an oversized request's id is usually found.
    """
    text = prefix.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if not text.startswith("{", position):
        return None
    position += 1
    while True:
        position = _skip_space(text, position)
        try:
            key, position = decoder.raw_decode(text, position)
            position = _skip_space(text, position)
            if not text.startswith(":", position) or not isinstance(key, str):
                return None
            value, position = decoder.raw_decode(text, _skip_space(text, position + 1))
        except (ValueError, RecursionError):
            return None
        position = _skip_space(text, position)
        if position >= len(text):
            return None  # the value may go on (a number cut short reads as a smaller one)
        if key == "id":
            return value if is_request_id(value) else None
        if not text.startswith(",", position):
            return None
        position += 1


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


# ---- checking -------------------------------------------------------------------------------------


def check_value(value: Any, shallow: bool = False) -> Checked:
    """Check a decoded message; a list is a batch, its elements checked one by one. `shallow`: known not to nest
    deeper than MAX_DEPTH."""
    if isinstance(value, list):
        if not value:
            return Refusal(None, INVALID_REQUEST, "Invalid Request: an empty batch")
        return Batch([_check_one(element, shallow) for element in value])
    return _check_one(value, shallow)


def _check_one(value: Any, shallow: bool) -> JsonRpcMessage | Refusal:
    if not isinstance(value, dict):
        return Refusal(None, INVALID_REQUEST, f"Invalid Request: a message is a JSON object, not {_json_type(value)}")
    raw_id = value.get("id")
    request_id = raw_id if is_request_id(raw_id) else None
    if "method" not in value:
        return _check_response(value, request_id, shallow)
    return _check_call(value, request_id, shallow)


def _check_call(value: dict[str, Any], request_id: RequestId | None, shallow: bool) -> JsonRpcMessage | Refusal:
    """A request or a notification. What JSON-RPC 2.0 itself calls invalid is answered even without an id
    (with id null); a notification that is valid JSON-RPC but not valid MCP (params an array, too deep) is dropped."""
    is_request = "id" in value
    if value.get("jsonrpc") != "2.0":
        return Refusal(request_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if is_request and request_id is None:
        return Refusal(None, INVALID_REQUEST,
                       f"Invalid Request: an id must be a string or an integer of at most 64 bits, not {_json_type(value['id'])}")
    if not isinstance(value["method"], str):
        return Refusal(request_id, INVALID_REQUEST, f'Invalid Request: "method" must be a string, not {_json_type(value["method"])}')
    params = value.get("params")
    if params is not None and not isinstance(params, dict):
        if is_request or not isinstance(params, list):
            return Refusal(request_id, INVALID_PARAMS, f'Invalid params: "params" must be an object, not {_json_type(params)}')
        return Refusal(None, INVALID_PARAMS, "Invalid params: an MCP notification's params are an object", answer=False)
    if not shallow and nesting_depth(value) > MAX_DEPTH:
        return Refusal(request_id, INVALID_REQUEST, f"Invalid Request: the message is nested more than {MAX_DEPTH} levels deep",
                       answer=is_request)
    return JsonRpcMessage(Kind.REQUEST if is_request else Kind.NOTIFICATION, value)


def _check_response(value: dict[str, Any], request_id: RequestId | None, shallow: bool) -> JsonRpcMessage | Refusal:
    """A client's answer to a request of ours: an id and a result object or an error object."""
    has_result, has_error = "result" in value, "error" in value
    if value.get("jsonrpc") != "2.0" or request_id is None or has_result == has_error:
        return Refusal(None, INVALID_REQUEST,
                       'Invalid Request: a message has a "method" (request, notification) or an id with "result" or "error"')
    error = value.get("error")
    well_formed = (isinstance(value.get("result"), dict) if has_result else
                   isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str))
    if not well_formed or (not shallow and nesting_depth(value) > MAX_DEPTH):
        return Refusal(None, INVALID_REQUEST, "Invalid Request: a response's result or error is malformed")
    return JsonRpcMessage(Kind.RESPONSE, value)


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply `value` nests (a scalar is 0), counted no further than `limit` + 1."""
    depth = 0
    level = [value]
    while level and depth <= limit:
        children: list[Any] = []
        for node in level:
            if isinstance(node, dict):
                children.extend(child for child in node.values() if isinstance(child, dict | list))
            elif isinstance(node, list):
                children.extend(child for child in node if isinstance(child, dict | list))
        if not any(isinstance(node, dict | list) for node in level):
            break
        depth += 1
        level = children
    return depth


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


__all__ = [
    "ID_PEEK_BYTES",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_DEPTH",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "Batch",
    "Checked",
    "Kind",
    "JsonRpcMessage",
    "Refusal",
    "RequestId",
    "check_bytes",
    "check_value",
    "dumps",
    "error_response",
    "is_request_id",
    "nesting_depth",
    "peek_id",
    "refuse_batch",
]
