"""Projectors for executions (execute_code now; execute_cell and friends later)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from ...jupyter.outputs import strip_ansi
from ...jupyter.runtime import Execution
from ...protocol.errors import ErrorKind, ToolError
from ...protocol.projection import ToolProjectors
from ...protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_STRUCTURED,
    USER_CONTENT,
    Selector,
)
from .text import cap_text

IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")
FULL_OUTPUT_HINT = "request programmatic/structured for the full output"
RESTART_NOTE = "The kernel was restarted before this run: variables and imports from earlier runs are gone."


@dataclass(frozen=True)
class ExecutionView:
    """An execution, the Results-contract kind of the tool, and the text budget."""

    execution: Execution
    kind: str
    text_limit: int
    cell: dict[str, Any] | None = None  # notebook, cellId, cellIndex when the code ran in a cell


def _image(bundle: dict[str, Any]) -> tuple[str, str] | None:
    for mime in IMAGE_MIMES:
        data = bundle.get(mime)
        if isinstance(data, str):
            return mime, data.replace("\n", "")
    return None


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _output_texts(output: dict[str, Any]) -> str | None:
    kind = output["output_type"]
    if kind == "stream":
        return strip_ansi(output["text"])
    if kind == "error":
        trace = "\n".join(strip_ansi(line) for line in output["traceback"])
        return trace or f"{output['ename']}: {output['evalue']}"
    plain = output.get("data", {}).get("text/plain")
    return strip_ansi(plain) if isinstance(plain, str) else None


def _blocks(view: ExecutionView, *, for_model: bool) -> list[dict[str, Any]]:
    """Content blocks in the cell's order: text merged, images as image blocks."""
    execution = view.execution
    blocks: list[dict[str, Any]] = []
    texts: list[str] = []

    def flush() -> None:
        if texts:
            hint = FULL_OUTPUT_HINT if for_model else "the full output is available to programs"
            blocks.append({"type": "text", "text": cap_text("".join(texts), view.text_limit, hint=hint)})
            texts.clear()

    if execution.kernel_restarted:
        texts.append(RESTART_NOTE + "\n")
    for output in execution.outputs:
        image = _image(output.get("data", {})) if output["output_type"] != "stream" else None
        if image is not None:
            flush()
            blocks.append({"type": "image", "mimeType": image[0], "data": image[1]})
            continue
        text = _output_texts(output)
        if text:
            texts.append(text if text.endswith("\n") else text + "\n")
    if execution.truncated_bytes:
        texts.append(f"[{execution.truncated_bytes} bytes of output were not kept: the run printed more than the server keeps]\n")
    flush()
    if not blocks:
        blocks.append({"type": "text", "text": "Ran without output."})
    return blocks


def _contract_items(view: ExecutionView) -> tuple[list[Any], int]:
    items: list[Any] = []
    images = 0
    for output in view.execution.outputs:
        image = _image(output.get("data", {})) if output["output_type"] != "stream" else None
        if image is not None:
            images += 1
            items.append({"type": "image", "mimeType": image[0], "bytes": _decoded_size(image[1])})
            continue
        text = _output_texts(output)
        if text is not None:
            items.append(cap_text(text, view.text_limit, hint=FULL_OUTPUT_HINT))
    return items, images


def assistant_structured(view: ExecutionView) -> dict[str, Any]:
    items, images = _contract_items(view)
    result: dict[str, Any] = {"kind": view.kind, "result": items, "outputs": items, "count": len(items), "images": images}
    if view.execution.truncated_bytes or any(isinstance(i, str) and i.endswith(f"{FULL_OUTPUT_HINT}]") for i in items):
        result["truncated"] = True
    return result


def programmatic_structured(view: ExecutionView) -> dict[str, Any]:
    execution = view.execution
    record: dict[str, Any] = {
        "status": "ok",
        "kernelId": execution.kernel_id,
        "executionCount": execution.execution_count,
        "outputs": execution.outputs,
        "truncatedBytes": execution.truncated_bytes,
        "timings": {"durationMs": round(execution.duration_ms, 3)},
    }
    if execution.kernel_restarted:
        record["kernelRestarted"] = True
    if view.cell is not None:
        record["cell"] = view.cell
    return record


def ui_structured(view: ExecutionView) -> dict[str, Any]:
    data: dict[str, Any] = {"view": "execution", "executionCount": view.execution.execution_count, "outputs": view.execution.outputs}
    if view.cell is not None:
        data["cell"] = view.cell
    return data


def _error_structured(failure: ToolError, outputs: Any) -> dict[str, Any]:
    return {"error": {"type": str(failure.kind), "message": failure.message, **failure.details}, "outputs": outputs}


def _error_content(failure: ToolError, *, for_model: bool) -> list[dict[str, Any]]:
    view: ExecutionView | None = failure.partial
    if view is None:
        return [{"type": "text", "text": failure.message}]
    blocks = _blocks(view, for_model=for_model)
    if blocks and blocks[-1]["type"] == "text" and blocks[-1]["text"] == "Ran without output.":
        blocks.pop()
    blocks.append({"type": "text", "text": failure.message})
    return blocks


def _error_projector(selector: Selector) -> Any:
    def project(failure: ToolError) -> Any:
        view: ExecutionView | None = failure.partial
        if selector == ASSISTANT_STRUCTURED:
            return _error_structured(failure, _contract_items(view)[0] if view else [])
        if selector in (PROGRAMMATIC_STRUCTURED, UI_STRUCTURED):
            return _error_structured(failure, view.execution.outputs if view else [])
        return _error_content(failure, for_model=selector == ASSISTANT_CONTENT)

    return project


EXECUTION_PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: lambda view: _blocks(view, for_model=True),
        ASSISTANT_STRUCTURED: assistant_structured,
        PROGRAMMATIC_STRUCTURED: programmatic_structured,
        USER_CONTENT: lambda view: _blocks(view, for_model=False),
        UI_STRUCTURED: ui_structured,
    },
    errors={
        s: _error_projector(s)
        for s in (ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, USER_CONTENT, UI_STRUCTURED)
    },
)


def execution_outcome(
    execution: Execution, kind: str, text_limit: int, timeout: float, cell: dict[str, Any] | None = None
) -> tuple[ExecutionView, ToolError | None]:
    """The view of a run, and the failure it amounts to when it did not end well."""
    view = ExecutionView(execution, kind, text_limit, cell)
    if execution.status == "ok":
        return view, None
    if execution.status == "timeout":
        return view, ToolError(
            ErrorKind.TIMEOUT,
            f"Timed out after {timeout:g} s; the kernel was interrupted. Output printed so far is above. "
            "Pass a larger timeout for long runs.",
            partial=view,
        )
    if execution.status == "died":
        return view, ToolError(
            ErrorKind.KERNEL_DIED,
            "The kernel died during this run. The next call starts a new kernel; variables from earlier runs are lost.",
            partial=view,
        )
    error = next((o for o in execution.outputs if o["output_type"] == "error"), None)
    details: dict[str, Any] = {}
    message = "The code raised an error."
    if error is not None:
        details = {"ename": error["ename"], "evalue": error["evalue"], "traceback": [strip_ansi(t) for t in error["traceback"]]}
        message = f"{error['ename']}: {error['evalue']}".rstrip(": ")
    return view, ToolError(ErrorKind.EXECUTION_ERROR, message, details=details, partial=view)
