"""Whether a tools/call the suite needed to succeed did, and the server's own words when it did not.

A scenario that needs a successful call (a step with `mustSucceed`) fails when the call fails: the server
answered a JSON-RPC error, a result with `isError: true`, or an output whose structured error says it is
internal (`{"error": {"type": "internal"}}`, what an exception no tool meant amounts to). The suite cannot
judge the scenario's rules on such an answer, and calling it "not exercised" would let a server whose tools
always fail look incomplete rather than broken: the failure is the scenario's, with the server's message.
"""

from __future__ import annotations

import json
from typing import Any

_LIMIT = 400


def call_failure(response: Any) -> str | None:
    """Why `response` is not a successful tools/call result (with the server's own text), or None."""
    if not isinstance(response, dict):
        return f"no JSON-RPC response: {json.dumps(response)[:_LIMIT]}"
    error = response.get("error")
    if isinstance(error, dict):
        return f"JSON-RPC error {error.get('code')}: {_cut(str(error.get('message', '')))}"
    result = response.get("result")
    if not isinstance(result, dict):
        return f"no result: {json.dumps(response)[:_LIMIT]}"
    if result.get("isError") is True:
        return f"isError: true: {server_text(result) or '(the result carries no message)'}"
    internal = [o for o in _outputs(result) if _error_type(o.get("structuredContent")) == "internal"]
    if internal:
        return f"an internal error output ({internal[0].get('audience')}/{internal[0].get('format')}): {server_text(result)}"
    return None


def server_text(result: dict[str, Any]) -> str:
    """The text a failed result carries: its content blocks' text and its structured errors' messages, each once."""
    texts: list[str] = []
    for holder in [result, *_outputs(result)]:
        blocks = holder.get("content")
        for block in blocks if isinstance(blocks, list) else []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])
        structured = holder.get("structuredContent")
        error = structured.get("error") if isinstance(structured, dict) else None
        if isinstance(error, dict):
            texts.append(str(error.get("message") or json.dumps(error)))
    flat = (" ".join(t.split()) for t in texts)  # one line each: a traceback's newlines would break the summary's lines
    return _cut(" | ".join(dict.fromkeys(t for t in flat if t)))


def _outputs(result: dict[str, Any]) -> list[dict[str, Any]]:
    outputs = result.get("outputs")
    return [o for o in outputs if isinstance(o, dict)] if isinstance(outputs, list) else []


def _error_type(structured: Any) -> Any:
    error = structured.get("error") if isinstance(structured, dict) else None
    return error.get("type") if isinstance(error, dict) else None


def _cut(text: str) -> str:
    return text if len(text) <= _LIMIT else text[:_LIMIT] + "…"
