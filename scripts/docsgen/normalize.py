"""Placeholders for what changes from run to run, so two runs write the same bytes.

Kernel, cell and run ids the server made up, times, durations, ports, process ids, temporary
folders, tokens and base64 image data become `<...>` placeholders; ids are numbered in the
order the run met them. JSON-RPC ids are renumbered to 1.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from mcp_variants.conformance.wire import RoundTrip

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?| \d{2}:\d{2}\b)")
PORT = re.compile(r"(127\.0\.0\.1|localhost):\d{2,5}")
SANDBOX_DIR = re.compile(r"(?:/[^\s'\"]*)?/mcp-variants-sandbox-s-\d+-[A-Za-z0-9_]+")
RUNTIME_KEY = re.compile(r"\b(remote|sandbox):[0-9a-f]{12}\b")
JUPYTER_VERSION = re.compile(r"Jupyter Server \d+(?:\.\d+)+(?:[a-z]+\d*)?")
PID_TEXT = re.compile(r"\bpid \d+")
CELL_ID = re.compile(r"[0-9a-f]{12}")
CELL_ID_IN_TEXT = re.compile(r"\bid ([0-9a-f]{12})\b")
RUN_IN_URI = re.compile(r"mcp-variants://runs/([0-9a-f]{16})/")  # an execute_code run's outputs (output_links.py)
VOLATILE_KEYS = {"durationMs": "<ms>", "pid": "<pid>", "serverVersion": "<jupyter-server-version>"}
CELL_ID_KEYS = {"cellId", "io.jupyter-mcp/cell_id"}


class Normalizer:
    """Replaces what changes between runs by placeholders; the numbering follows the run's order."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # exact volatile string -> placeholder
        self.fixed_cell_ids: set[str] = set()  # cell ids the sample notebooks set: shown as they are
        self.counts: dict[str, int] = {}

    def name(self, value: str, kind: str) -> None:
        if value not in self.names and value not in self.fixed_cell_ids:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.names[value] = f"<{kind}-{self.counts[kind]}>"

    def literal(self, value: str, placeholder: str) -> None:
        self.names[value] = placeholder

    def learn(self, value: Any) -> None:
        """Register the kernel and cell ids the server made up, in the order they appear."""
        if isinstance(value, dict):
            for k, v in value.items():
                if k in CELL_ID_KEYS and isinstance(v, str):
                    self.name(v, "cell-id")
                if k in ("id", "ID") and isinstance(v, str) and CELL_ID.fullmatch(v):
                    self.name(v, "cell-id")
                self.learn(v)
        elif isinstance(value, list):
            for v in value:
                self.learn(v)
        elif isinstance(value, str):
            for match in UUID.findall(value):
                self.name(match, "kernel-id")
            for match in CELL_ID_IN_TEXT.findall(value):
                self.name(match, "cell-id")
            for match in RUN_IN_URI.findall(value):
                self.name(match, "run-id")

    def text(self, value: str) -> str:
        if self.names:
            pattern = re.compile("|".join(re.escape(k) for k in sorted(self.names, key=len, reverse=True)))
            value = pattern.sub(lambda m: self.names[m.group(0)], value)
        value = SANDBOX_DIR.sub("<sandbox-dir>", value)
        value = TIMESTAMP.sub("<timestamp>", value)
        value = PORT.sub(r"\1:<port>", value)
        value = RUNTIME_KEY.sub(r"\1:<runtime-key>", value)
        value = JUPYTER_VERSION.sub("Jupyter Server <jupyter-server-version>", value)
        return PID_TEXT.sub("pid <pid>", value)

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):
            if value.get("type") == "image" and isinstance(value.get("data"), str):
                return {**{k: self(v) for k, v in value.items() if k != "data"}, "data": _base64_placeholder(value)}
            out = {}
            for k, v in value.items():
                if k in VOLATILE_KEYS and isinstance(v, (int, float, str)) and not isinstance(v, bool):
                    out[k] = VOLATILE_KEYS[k]
                elif k.startswith("image/") and isinstance(v, str):
                    out[k] = f"<base64 {k}, {len(base64.b64decode(v))} bytes>"
                else:
                    out[k] = self(v)
            return out
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value


def _base64_placeholder(block: dict[str, Any]) -> str:
    return f"<base64 {block.get('mimeType', 'data')}, {len(base64.b64decode(block['data']))} bytes>"


def renumber(trip: RoundTrip) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request and its response with JSON-RPC id 1."""
    return dict(trip.request, id=1), dict(trip.message, id=1)
