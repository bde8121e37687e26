"""Outputs as resources (docs/choices.md "Outputs as resources"): every output a client can read whole.

* A run of execute_code: `mcp-variants://runs/<run>/outputs/<n>`, its outputs kept (up to --hard-cap, as the
  run kept them) in an OutputStore: the most recently used runs within a byte budget, each readable by the
  client that ran it only (server/resources.py `link_owner`), until it is the least recently used
  when the budget is full, its client's session ends, or the server stops.
* A notebook cell's output: `cell-output:///<path>/cells/<cell id>/outputs/<n>`, read from the notebook
  as it is now (server/output_resources.py), so always the cell's current output.

An output reads as its representations, the richest first (`representations`): a stream or an error as
text/plain, a display_data or execute_result as each mime type of its bundle (images as blobs).
"""

from __future__ import annotations

import json
import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from .images import decoded
from .jupyter.outputs import strip_ansi

RUN_PREFIX = "mcp-variants://runs/"
RUN_TEMPLATE = f"{RUN_PREFIX}{{run}}/outputs/{{index}}"
CELL_SCHEME = "cell-output"
CELL_TEMPLATE = f"{CELL_SCHEME}:///{{+path}}/cells/{{cell}}/outputs/{{index}}"
STORE_BYTES = 64 * 1024 * 1024
BLOB_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")
# The richest first: what an output "is" (its resource's mimeType); the bundle's other types follow, text/plain last.
RICHNESS = (*BLOB_MIMES, "image/svg+xml", "text/html", "text/markdown", "text/latex", "application/json")

_RUN_URI = re.compile(rf"{re.escape(RUN_PREFIX)}([0-9a-f]{{16}})/outputs/(\d+)")
_CELL_URI = re.compile(rf"{CELL_SCHEME}:///(.+\.ipynb)/cells/([^/]+)/outputs/(\d+)")


def run_uri(run: str, index: int) -> str:
    return f"{RUN_PREFIX}{run}/outputs/{index}"


def parse_run_uri(uri: str) -> tuple[str, int] | None:
    match = _RUN_URI.fullmatch(uri)
    return (match[1], int(match[2])) if match else None


def cell_output_uri(path: str, cell_id: str, index: int) -> str:
    return f"{CELL_SCHEME}:///{quote(path)}/cells/{quote(cell_id, safe='')}/outputs/{index}"


def parse_cell_output_uri(uri: str) -> tuple[str, str, int] | None:
    """The (notebook path, cell id, output index) a cell output URI names, the path not yet checked; None when
    it is not one."""
    match = _CELL_URI.fullmatch(uri)
    return (unquote(match[1]), unquote(match[2]), int(match[3])) if match else None


def representations(output: dict[str, Any]) -> list[tuple[str, str | bytes]]:
    """An nbformat 4 output as (mime type, text or bytes) pairs, the richest first: a stream or error is its text
    (ANSI escapes removed, as the model's text has them); a bundle each of its types (images decoded)."""
    kind = output.get("output_type")
    if kind == "stream":
        return [("text/plain", strip_ansi(_joined(output.get("text", ""))))]
    if kind == "error":
        trace = "\n".join(strip_ansi(line) for line in output.get("traceback", []))
        return [("text/plain", trace or f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")]
    bundle: dict[str, Any] = output.get("data", {})
    rank = {mime: i for i, mime in enumerate(RICHNESS)}
    found: list[tuple[str, str | bytes]] = []
    for mime in sorted(bundle, key=lambda m: (m == "text/plain", rank.get(m, len(RICHNESS)))):
        value = bundle[mime]
        if mime in BLOB_MIMES and isinstance(value, str):
            found.append((mime, decoded(value.replace("\n", ""))))
        elif mime in BLOB_MIMES and isinstance(value, list):
            found.append((mime, decoded("".join(value).replace("\n", ""))))
        elif isinstance(value, str | list) and all(isinstance(v, str) for v in value):
            found.append((mime, _joined(value)))
        else:
            found.append((mime, json.dumps(value, ensure_ascii=False)))
    return found or [("text/plain", "")]


def _joined(text: str | list[str]) -> str:
    """nbformat's multiline string: a string, or on disk a list of lines."""
    return text if isinstance(text, str) else "".join(text)


def mime_type(output: dict[str, Any]) -> str:
    """The type an output is read as first."""
    return representations(output)[0][0]


def size_of(outputs: list[dict[str, Any]]) -> int:
    return sum(len(data if isinstance(data, bytes) else data.encode()) for output in outputs for _, data in representations(output))


@dataclass
class _Run:
    owner: str
    outputs: list[dict[str, Any]]
    size: int


class OutputNotKept(LookupError):
    """A run output the store does not keep for this client (gone, never made, or another client's)."""


class OutputStore:
    """The outputs of execute_code runs: an LRU of at most `max_bytes`, by run; each run is its owner's only.

    In this process's memory; its methods are the interface of every output store (one shared by many workers:
    mcp_variants.state.redis_outputs)."""

    def __init__(self, max_bytes: int = STORE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self.size = 0

    async def put(self, outputs: list[dict[str, Any]], owner: str = "") -> str | None:
        """A new run's id, its outputs kept as the most recently used; the least recently used runs are dropped until
        the store is within its budget (a run larger than the whole budget is kept alone). None when the store could
        not keep them (a shared store that is unreachable): the result then names no resource."""
        run = secrets.token_hex(8)
        kept = _Run(owner, list(outputs), size_of(outputs))
        self._runs[run] = kept
        self.size += kept.size
        while self.size > self.max_bytes and len(self._runs) > 1:
            _, dropped = self._runs.popitem(last=False)
            self.size -= dropped.size
        return run

    async def get(self, run: str, index: int, owner: str = "") -> dict[str, Any]:
        """Output `index` of `run`, used again; OutputNotKept when it is gone, never was, or is not `owner`'s (one answer
        for all three: a URI found elsewhere says nothing of another client's runs)."""
        kept = self._runs.get(run)
        if kept is None or kept.owner != owner or not 0 <= index < len(kept.outputs):
            raise OutputNotKept(run)
        self._runs.move_to_end(run)
        return kept.outputs[index]

    async def forget(self, owner: str) -> None:
        """`owner`'s session ended: nobody can read its runs any more."""
        for run in [r for r, kept in self._runs.items() if kept.owner == owner]:
            self.size -= self._runs.pop(run).size

    async def aclose(self) -> None:
        """At exit (a shared store's connections)."""

    def __len__(self) -> int:
        return len(self._runs)


@dataclass(frozen=True)
class OutputKeeper:
    """The store, for one request: keeps its runs for its client (`owner`: link_owner() of it)."""

    store: OutputStore = field(default_factory=OutputStore)
    owner: str = ""

    def for_owner(self, owner: str) -> OutputKeeper:
        return OutputKeeper(self.store, owner)

    async def keep(self, outputs: list[dict[str, Any]]) -> tuple[str, ...]:
        """The URIs of `outputs`, one each, in their order; () when there are none, or the store could not keep them."""
        if not outputs:
            return ()
        run = await self.store.put(outputs, self.owner)
        return tuple(run_uri(run, i) for i in range(len(outputs))) if run is not None else ()
