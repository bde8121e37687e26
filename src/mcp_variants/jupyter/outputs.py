"""Collect a kernel's iopub messages into nbformat outputs, within a byte budget."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .runtime import RunStatus

ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def strip_ansi(text: str) -> str:
    return ANSI_ESCAPE.sub("", text)


def output_text(msg_type: str, content: dict[str, Any]) -> str:
    """What an iopub output message shows as a line of text (for streamed progress); '' for the others."""
    if msg_type == "stream":
        return strip_ansi(str(content.get("text", "")))
    if msg_type in ("display_data", "execute_result"):
        data = content.get("data", {})
        plain = data.get("text/plain")
        shown = plain if isinstance(plain, str) else f"[{next(iter(data), 'display')}]"
        return strip_ansi(shown) + "\n"
    if msg_type == "error":
        return f"{content.get('ename', 'Error')}: {content.get('evalue', '')}\n"
    return ""


@dataclass
class OutputCollector:
    """Accumulates nbformat 4 outputs; stops storing text past `hard_cap` bytes.

    The cap is what keeps a 50 MB print from living in memory: the kernel can
    print as much as it likes, we keep the first `hard_cap` bytes and count the rest.
    """

    hard_cap: int
    outputs: list[dict[str, Any]] = field(default_factory=list)
    stored_bytes: int = 0
    dropped_bytes: int = 0
    _clear_on_next: bool = False

    def add(self, msg_type: str, content: dict[str, Any]) -> None:
        if self._clear_on_next and msg_type in ("stream", "display_data", "execute_result", "error"):
            self.outputs.clear()
            self._clear_on_next = False
        if msg_type == "stream":
            self._add_stream(content["name"], content.get("text", ""))
        elif msg_type in ("display_data", "execute_result"):
            output: dict[str, Any] = {
                "output_type": msg_type,
                "data": self._budget_bundle(content.get("data", {})),
                "metadata": content.get("metadata", {}),
            }
            if msg_type == "execute_result":
                output["execution_count"] = content.get("execution_count")
            self.outputs.append(output)
        elif msg_type == "error":
            self.outputs.append(
                {
                    "output_type": "error",
                    "ename": content.get("ename", "Error"),
                    "evalue": content.get("evalue", ""),
                    "traceback": list(content.get("traceback", [])),
                }
            )
        elif msg_type == "clear_output":
            if content.get("wait"):
                self._clear_on_next = True
            else:
                self.outputs.clear()

    def _take(self, text: str) -> str:
        room = max(self.hard_cap - self.stored_bytes, 0)
        size = len(text.encode())
        if size <= room:
            self.stored_bytes += size
            return text
        kept = text.encode()[:room].decode(errors="ignore")
        self.stored_bytes += len(kept.encode())
        self.dropped_bytes += size - len(kept.encode())
        return kept

    def _add_stream(self, name: str, text: str) -> None:
        text = self._take(text)
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += text
        elif text:
            self.outputs.append({"output_type": "stream", "name": name, "text": text})

    def _budget_bundle(self, bundle: dict[str, Any]) -> dict[str, Any]:
        return {mime: self._take(v) if isinstance(v, str) else v for mime, v in bundle.items()}


@dataclass
class RunTracker:
    """What one execution's messages mean, whichever runtime carries them.

    The run loop feeds it the iopub messages it reads and, at the end, the shell reply;
    it keeps the outputs, the status and the execution count.
    """

    msg_id: str
    collector: OutputCollector
    status: RunStatus = RunStatus.OK  # OK or ERROR; the run loop decides TIMEOUT and DIED itself
    execution_count: int | None = None
    started: bool = False  # the kernel began this run (in a shared kernel, it may first finish others')
    done: bool = False  # the kernel went idle after this run
    aborted: bool = False  # the kernel replied "aborted": it never ran the code

    def feed(self, msg: dict[str, Any]) -> bool:
        """Take one iopub message; True when it changed the outputs or the execution count."""
        if msg["parent_header"].get("msg_id") != self.msg_id:
            return False
        self.started = True
        msg_type, content = msg["header"]["msg_type"], msg["content"]
        if msg_type == "status":
            self.done = self.done or content.get("execution_state") == "idle"
            return False
        if msg_type == "execute_input":
            self.execution_count = content.get("execution_count") or self.execution_count
            return True
        self.collector.add(msg_type, content)
        if msg_type == "error":
            self.status = RunStatus.ERROR
        return True

    def settle(self, reply: dict[str, Any] | None) -> None:
        """The shell reply carries the authoritative status: an error without an error output
        (some kernels send none) is still an error."""
        if reply is None:
            return
        status = reply["content"].get("status")
        self.aborted = status == "aborted"
        if status != "error":
            return
        self.status = RunStatus.ERROR
        if not any(o["output_type"] == "error" for o in self.collector.outputs):
            c = reply["content"]
            self.collector.add("error", {"ename": c.get("ename", "Error"), "evalue": c.get("evalue", ""),
                                         "traceback": c.get("traceback", [])})

    def never_ran(self, tries: int) -> None:
        """The kernel aborted every request for this code: an error that says so, not an empty success."""
        self.status = RunStatus.ERROR
        self.collector.add("error", {"ename": "Aborted", "traceback": [], "evalue": (
            f"The kernel did not run this code: it aborted the request {tries} times, because a run before it failed "
            "(a kernel drops the runs queued behind a failed one). Run it again.")})
