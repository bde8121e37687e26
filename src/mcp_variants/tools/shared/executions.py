"""Projectors for executions (execute_code, execute_cell, insert_execute_code_cell), and the rendering
of nbformat outputs they share with read_cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...images import INLINE_IMAGES, ImagePolicy, decoded
from ...jupyter.errors import JupyterErrorKind
from ...jupyter.outputs import strip_ansi
from ...jupyter.runtime import Execution, RunStatus
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
from .hints import KERNEL_CHOICE
from .output_notices import NO_RESOURCE_HINT, Piece, cut_notice
from .text import cap_text

IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")
NO_OUTPUT = "Ran without output."
# assistant/structured cuts each text to this share of the budget. A host that puts the legacy structuredContent in the
# model's context beside `content` has the text there at the whole budget already, and the Results contract carries the
# outputs twice (`result` and `outputs`); the cut names the read_output call for the rest (docs/performance.md).
STRUCTURED_SHARE = 4
RESTART_NOTE = "The kernel was restarted before this run: variables and imports from earlier runs are gone."


@dataclass(frozen=True)
class ExecutionView:
    """An execution, the Results-contract kind of the tool, and the text budget."""

    execution: Execution
    kind: str
    text_limit: int
    cell: dict[str, Any] | None = None  # notebook, cellId, cellIndex when the code ran in a cell
    images: ImagePolicy = INLINE_IMAGES
    uris: tuple[str, ...] = ()  # the resource of each output (output_links.py), in their order; () when none


def _image(bundle: dict[str, Any]) -> tuple[str, str] | None:
    for mime in IMAGE_MIMES:
        data = bundle.get(mime)
        if isinstance(data, str):
            return mime, data.replace("\n", "")
    return None


def output_text(output: dict[str, Any]) -> str | None:
    """The text a model is shown of an output: a stream's, an error's traceback, a bundle's text/plain; None without one."""
    kind = output["output_type"]
    if kind == "stream":
        return strip_ansi(output["text"])
    if kind == "error":
        trace = "\n".join(strip_ansi(line) for line in output["traceback"])
        return trace or f"{output['ename']}: {output['evalue']}"
    plain = output.get("data", {}).get("text/plain")
    return strip_ansi(plain) if isinstance(plain, str) else None


def output_blocks(outputs: list[dict[str, Any]], text_limit: int, *, for_model: bool, images: ImagePolicy = INLINE_IMAGES,
                  first_note: str = "", last_note: str = "", uris: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Content blocks for nbformat outputs, in their order: texts merged and capped, images as
    `images` has them (image blocks or links), the notes before and after them; [] when there is nothing to show.
    A cut text names the read_output call for each output it cut (`uris`: the resource of each output)."""
    blocks: list[dict[str, Any]] = []
    texts: list[Piece] = [Piece(first_note + "\n", None)] if first_note else []
    fallback = NO_RESOURCE_HINT if for_model else "the full output is available to programs"

    def flush() -> None:
        if texts:
            hint = cut_notice(list(texts), fallback=fallback)
            blocks.append({"type": "text", "text": cap_text("".join(text for text, _ in texts), text_limit, hint=hint, tail=True).text})
            texts.clear()

    for index, output in enumerate(outputs):
        image = _image(output.get("data", {})) if output["output_type"] != "stream" else None
        if image is not None:
            flush()
            blocks.append(images.block(image[0], image[1], for_model=for_model))
            continue
        piece = _piece(output, uris[index] if index < len(uris) else None)
        if piece is not None:
            texts.append(piece)
    if last_note:
        texts.append(Piece(last_note + "\n", None))
    flush()
    return blocks


def is_image(output: dict[str, Any]) -> bool:
    """Shown as an image (a bundle with one), not as text."""
    return output["output_type"] != "stream" and _image(output.get("data", {})) is not None


def _piece(output: dict[str, Any], uri: str | None) -> Piece | None:
    """An output's text as a model is shown it, ending in a line end; None for an image or an empty text."""
    text = output_text(output)
    return Piece(text if text.endswith("\n") else text + "\n", uri) if text else None


def text_pieces(outputs: list[dict[str, Any]], uris: Sequence[str] = ()) -> list[Piece]:
    """The texts of `outputs` (not their images) as output_blocks shows them, each with its resource."""
    pieces = []
    for index, output in enumerate(outputs):
        if not is_image(output):
            piece = _piece(output, uris[index] if index < len(uris) else None)
            if piece is not None:
                pieces.append(piece)
    return pieces


def outputs_structured(kind: str, outputs: list[dict[str, Any]], text_limit: int, *, images: ImagePolicy = INLINE_IMAGES,
                       dropped_bytes: int = 0, uris: Sequence[str] = ()) -> dict[str, Any]:
    """The Results contract's outputs shape: texts capped, images referenced by type and size (and link), never inlined;
    `fullOutputs` names the resource of each cut text (`uris`: one per output)."""
    items, count, cut, whole = _contract_items(outputs, text_limit, images, uris)
    result: dict[str, Any] = {"kind": kind, "result": items, "outputs": items, "count": len(items), "images": count}
    if dropped_bytes or cut:
        result["truncated"] = True
    if whole:
        result["fullOutputs"] = whole
    return result


def _contract_items(outputs: list[dict[str, Any]], text_limit: int, policy: ImagePolicy,
                    uris: Sequence[str] = ()) -> tuple[list[Any], int, bool, list[dict[str, Any]]]:
    """The items, how many are images, whether any text was cut, and the resources of the cut ones."""
    text_limit = max(text_limit // STRUCTURED_SHARE, 1)
    items: list[Any] = []
    images = 0
    cut = False
    whole: list[dict[str, Any]] = []
    for index, output in enumerate(outputs):
        image = _image(output.get("data", {})) if output["output_type"] != "stream" else None
        if image is not None:
            images += 1
            item: dict[str, Any] = {"type": "image", "mimeType": image[0], "bytes": len(decoded(image[1]))}
            link = policy.link(*image) or (uris[index] if index < len(uris) else None)
            if link is not None:
                item["uri"] = link
            items.append(item)
            continue
        text = output_text(output)
        if text is not None:
            uri = uris[index] if index < len(uris) else None
            capped = cap_text(text, text_limit, hint=cut_notice([Piece(text, uri)]), tail=True)
            if capped.cut and uri is not None:
                whole.append({"item": len(items), "uri": uri, "bytes": len(text.encode())})
            items.append(capped.text)
            cut = cut or capped.cut
    return items, images, cut, whole


def _run_blocks(view: ExecutionView, *, for_model: bool) -> list[dict[str, Any]]:
    """A run's outputs as content blocks, said to be after a kernel restart or short of dropped output."""
    execution = view.execution
    dropped = (f"[{execution.truncated_bytes} bytes of output were not kept: the run printed more than the server keeps]"
               if execution.truncated_bytes else "")
    return output_blocks(execution.outputs, view.text_limit, for_model=for_model, images=view.images,
                         first_note=RESTART_NOTE if execution.kernel_restarted else "", last_note=dropped, uris=view.uris)


def _success_blocks(view: ExecutionView, *, for_model: bool) -> list[dict[str, Any]]:
    return _run_blocks(view, for_model=for_model) or [{"type": "text", "text": NO_OUTPUT}]


def assistant_structured(view: ExecutionView) -> dict[str, Any]:
    return outputs_structured(view.kind, view.execution.outputs, view.text_limit, images=view.images,
                              dropped_bytes=view.execution.truncated_bytes, uris=view.uris)


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
    blocks = _run_blocks(view, for_model=for_model)
    said = f"{failure.details.get('ename', '')}: {failure.details.get('evalue', '')}".rstrip(": ")
    if failure.kind == JupyterErrorKind.EXECUTION_ERROR and said and failure.message.startswith(said) \
            and any(said in b.get("text", "") for b in blocks):  # the traceback above ends with the error: said once
        rest = failure.message.removeprefix(said).removeprefix(".").strip()
        return [*blocks, {"type": "text", "text": rest}] if rest else blocks
    return [*blocks, {"type": "text", "text": failure.message}]


def _error_projector(selector: Selector) -> Any:
    def project(failure: ToolError) -> Any:
        view: ExecutionView | None = failure.partial
        if selector == ASSISTANT_STRUCTURED:
            return _error_structured(failure, _contract_items(view.execution.outputs, view.text_limit, view.images,
                                                              view.uris)[0] if view else [])
        if selector in (PROGRAMMATIC_STRUCTURED, UI_STRUCTURED):
            return _error_structured(failure, view.execution.outputs if view else [])
        return _error_content(failure, for_model=selector == ASSISTANT_CONTENT)

    return project


EXECUTION_PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: lambda view: _success_blocks(view, for_model=True),
        ASSISTANT_STRUCTURED: assistant_structured,
        PROGRAMMATIC_STRUCTURED: programmatic_structured,
        USER_CONTENT: lambda view: _success_blocks(view, for_model=False),
        UI_STRUCTURED: ui_structured,
    },
    errors={
        s: _error_projector(s)
        for s in (ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, USER_CONTENT, UI_STRUCTURED)
    },
)


def execution_outcome(
    execution: Execution, kind: str, text_limit: int, timeout: float, cell: dict[str, Any] | None = None, *,
    images: ImagePolicy = INLINE_IMAGES, uris: Sequence[str] = (),
) -> tuple[ExecutionView, ToolError | None]:
    """The view of a run (`uris`: the resource of each output), and the failure it amounts to when it did not end well."""
    view = ExecutionView(execution, kind, text_limit, cell, images, tuple(uris))
    if execution.status == RunStatus.OK:
        return view, None
    if execution.status == RunStatus.TIMEOUT and execution.queued:
        return view, ToolError(
            ErrorKind.TIMEOUT,
            f"Timed out after {timeout:g} s before the kernel began this run: it is the notebook's shared kernel, busy "
            "with other runs (a person's, in JupyterLab?), so nothing was interrupted. The kernel still runs this code "
            "after them, but its outputs are not kept; pass a larger timeout to wait for it.",
            partial=view,
        )
    if execution.status == RunStatus.TIMEOUT and execution.still_running:
        return view, ToolError(
            ErrorKind.TIMEOUT,
            f"Timed out after {timeout:g} s while running in the notebook's shared kernel (its JupyterLab's): it was not "
            "interrupted, since an interrupt there would also drop the runs people queued after it. It goes on; output "
            "printed so far is above, later output is not kept. A person can interrupt it in JupyterLab (Kernel, "
            "Interrupt); pass a larger timeout, or run it as a task, for long runs.",
            partial=view,
        )
    if execution.status == RunStatus.TIMEOUT:
        return view, ToolError(
            ErrorKind.TIMEOUT,
            f"Timed out after {timeout:g} s; the kernel was interrupted. Output printed so far is above. "
            "Pass a larger timeout for long runs.",
            partial=view,
        )
    if execution.status == RunStatus.DIED:
        return view, ToolError(
            JupyterErrorKind.KERNEL_DIED,
            "The kernel died during this run. The next call starts a new kernel; variables from earlier runs are lost.",
            partial=view,
        )
    error = next((o for o in execution.outputs if o["output_type"] == "error"), None)
    details: dict[str, Any] = {}
    message = "The code raised an error."
    if error is not None:
        details = {"ename": error["ename"], "evalue": error["evalue"], "traceback": [strip_ansi(t) for t in error["traceback"]]}
        message = f"{error['ename']}: {error['evalue']}".rstrip(": ")
    if execution.hint:  # a module the kernel lacks: where it would go (the runtime's), and how to pick another kernel
        message += f". {execution.hint} {KERNEL_CHOICE}"
    return view, ToolError(JupyterErrorKind.EXECUTION_ERROR, message, details=details, partial=view)
