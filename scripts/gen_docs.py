#!/usr/bin/env python3
"""Generate the documentation's wire examples, API reference and measurements from the live server.

    python scripts/gen_docs.py            # rewrite docs/examples/ and docs/api/  (make docs-examples)
    python scripts/gen_docs.py --check    # regenerate in memory; exit 1 when the committed files differ
    python scripts/gen_docs.py --out DIR  # write the generated folders under DIR instead of docs/

Nothing here is typed by hand that the server says: the script starts the real server
(`mcp-variants serve`, stdio, on a temporary root with a few files and notebooks it writes),
sends every request, and writes what came back. Values that change from run to run are
replaced by placeholders in angle brackets (kernel and cell ids made by the server, times,
durations, ports, process ids, temporary folders, tokens, base64 image data), and JSON-RPC
ids are renumbered from 1, so two runs write the same bytes.

The script owns docs/examples/ and docs/api/ entirely: it deletes what it no longer writes.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import nbformat

from mcp_variants.conformance.wire import HttpTarget, RoundTrip, StdioTarget
from mcp_variants.processes import JupyterServerProcess, ServerProcess, free_port

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
VARIANTS = REPO / "variants"
OWNED = ("examples", "api")  # folders under docs/ that this script writes, and nothing else

V = "2026-12-01"
UI_EXT = "io.modelcontextprotocol/ui"
UI = {UI_EXT: {"mimeTypes": ["text/html;profile=mcp-app"]}}
AC = {"audience": "assistant", "format": "content"}
AS = {"audience": "assistant", "format": "structured"}
PS = {"audience": "programmatic", "format": "structured"}
UC = {"audience": "user", "format": "content"}
US = {"audience": "user", "format": "structured"}
UIS = {"audience": UI_EXT, "format": "structured"}
SELECTOR_ORDER = ["assistant/content", "assistant/structured", "programmatic/structured",
                  "user/content", "user/structured", f"{UI_EXT}/structured"]
DURATION_STANDIN = 12.345  # durationMs is counted with this value in the measurements (6 characters)
NOTEBOOK = "analysis.ipynb"


def key(selector: dict[str, str]) -> str:
    return f"{selector['audience']}/{selector['format']}"


def compact(value: Any) -> bytes:
    """JSON exactly as this server writes it on the wire (checked on every response)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def pretty(value: Any, width: int = 96, indent: int = 0) -> str:
    """Indented JSON that keeps a value on one line when it fits in `width` columns."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or indent + len(flat) <= width:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, width, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{pretty(v, width, indent + 2)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


# ---- talking to the server -----------------------------------------------------------------------


TIMEOUT_S = 120.0  # per request: launch_sandbox takes seconds; a hung call fails the run


def serve_command(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), *extra]


def tool_call(tool: str, arguments: dict[str, Any], outputs: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """tools/call params; the version's envelope (`_meta`) is the wire client's to add."""
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if outputs is not None:
        params["requestedOutputs"] = outputs
    return params


def output_of(trip: RoundTrip, selector: str) -> dict[str, Any] | None:
    return next((o for o in trip.result.get("outputs", []) if key(o) == selector), None)


class Recorder:
    """Our server on stdio, through the conformance suite's raw client (`StdioTarget`: one process for
    stateless requests, one per handshake version). Every answer must be the compact JSON line the
    measurements count; a request that got none raises TargetError."""

    def __init__(self, root: Path) -> None:
        self.target = StdioTarget(serve_command(root), timeout=TIMEOUT_S)

    def request(self, method: str, params: dict[str, Any] | None = None, *, version: str = V,
                extensions: dict[str, Any] | None = None) -> RoundTrip:
        return self._checked(self.target.exchange(version, extensions, method, params))

    def call(self, tool: str, arguments: dict[str, Any], outputs: list[dict[str, str]] | None = None, *,
             version: str = V, extensions: dict[str, Any] | None = None) -> RoundTrip:
        return self.request("tools/call", tool_call(tool, arguments, outputs), version=version, extensions=extensions)

    def handshake(self, version: str) -> RoundTrip:
        """The initialize round trip of the process for `version` (made once, with notifications/initialized)."""
        return self._checked(self.target.handshake(version, None))

    @staticmethod
    def _checked(trip: RoundTrip) -> RoundTrip:
        if trip.raw != compact(trip.message) + b"\n":
            raise RuntimeError("the server's JSON is not the compact form this script measures; "
                               "update compact() in scripts/gen_docs.py")
        return trip

    def close(self) -> None:
        self.target.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- normalization -------------------------------------------------------------------------------

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?")
PORT = re.compile(r"(127\.0\.0\.1|localhost):\d{2,5}")
SANDBOX_DIR = re.compile(r"(?:/[^\s'\"]*)?/mcp-variants-sandbox-s-\d+-[A-Za-z0-9_]+")
RUNTIME_KEY = re.compile(r"\b(remote|sandbox):[0-9a-f]{12}\b")
JUPYTER_VERSION = re.compile(r"Jupyter Server \d+(?:\.\d+)+(?:[a-z]+\d*)?")
PID_TEXT = re.compile(r"\bpid \d+")
VOLATILE_KEYS = {"durationMs": "<ms>", "pid": "<pid>", "serverVersion": "<jupyter-server-version>"}
CELL_ID_KEYS = {"cellId", "io.jupyter-mcp/cell_id"}


class Normalizer:
    """Replaces what changes between runs by placeholders; the numbering follows the run's order."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # exact volatile string -> placeholder
        self.fixed_cell_ids: set[str] = set()
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
                if k in ("id", "ID") and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{12}", v):
                    self.name(v, "cell-id")
                self.learn(v)
        elif isinstance(value, list):
            for v in value:
                self.learn(v)
        elif isinstance(value, str):
            for match in UUID.findall(value):
                self.name(match, "kernel-id")
            for match in re.findall(r"\bid ([0-9a-f]{12})\b", value):
                self.name(match, "cell-id")

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

    def __call__(self, value: Any, parent: str | None = None) -> Any:
        if isinstance(value, dict):
            if value.get("type") == "image" and isinstance(value.get("data"), str):
                return {**{k: self(v, k) for k, v in value.items() if k != "data"}, "data": _b64_placeholder(value)}
            out = {}
            for k, v in value.items():
                if k in VOLATILE_KEYS and isinstance(v, (int, float, str)) and not isinstance(v, bool):
                    out[k] = VOLATILE_KEYS[k]
                elif k.startswith("image/") and isinstance(v, str):
                    out[k] = f"<base64 {k}, {len(base64.b64decode(v))} bytes>"
                else:
                    out[k] = self(v, k)
            return out
        if isinstance(value, list):
            return [self(v, parent) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value


def _b64_placeholder(block: dict[str, Any]) -> str:
    return f"<base64 {block.get('mimeType', 'data')}, {len(base64.b64decode(block['data']))} bytes>"


def renumber(trip: RoundTrip) -> tuple[dict[str, Any], dict[str, Any]]:
    return dict(trip.request, id=1), dict(trip.message, id=1)


# ---- files the examples need ---------------------------------------------------------------------

# A 640×400 line chart made once with matplotlib 3.11 (two series, 18 points; `savefig` without
# metadata, then quantized to 32 colours with Pillow) and committed, so its bytes never change.
CHART = Path(__file__).resolve().parent / "docsgen" / "chart.png"


def write_notebook(path: Path, cells: list[nbformat.NotebookNode]) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.nbformat_minor = 5
    notebook.cells = cells
    nbformat.validate(notebook)
    path.write_text(json.dumps(notebook, indent=1) + "\n")


def code_cell(cell_id: str, source: str, outputs: list[dict[str, Any]] | None = None,
              count: int | None = None) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, outputs=[nbformat.from_dict(o) for o in outputs or []],
                                     execution_count=count)
    cell.id = cell_id
    return cell


def markdown_cell(cell_id: str, source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.id = cell_id
    return cell


def lay_out_root(root: Path) -> None:
    (root / "data.csv").write_text("city,temperature\nOslo,4\nLima,19\n")
    (root / "notes.md").write_text("# Notes\nRead me first.\n")
    (root / "chart.png").write_bytes(CHART.read_bytes())
    write_notebook(root / NOTEBOOK, [
        markdown_cell("intro", "# Analysis\nA small notebook for the examples."),
        code_cell("load", "data = [3, 1, 2]\nprint(sorted(data))"),
        code_cell("total", "2 + 2"),
    ])


def lay_out_measurements(root: Path) -> None:
    bulk = root / "bulk"
    bulk.mkdir()
    for i in range(1000):
        (bulk / f"record-{i:04d}.csv").write_text(f"id,value\n{i},{i * i}\n")
    cells: list[nbformat.NotebookNode] = []
    for i in range(100):
        if i % 10 == 0:
            cells.append(markdown_cell(f"c{i:03d}", f"## Step {i // 10 + 1}\nWhat the next cells compute."))
        else:
            cells.append(code_cell(f"c{i:03d}", f"# cell {i}\nvalue_{i} = {i} * {i}\nprint(value_{i})",
                                   outputs=[{"output_type": "stream", "name": "stdout", "text": f"{i * i}\n"}],
                                   count=i))
    write_notebook(root / "hundred.ipynb", cells)


PRINT_200K = 'for i in range(4000):\n    print(f"row {i:05d} " + "x" * 39)'
SHOW_CHART = "from IPython.display import Image, display\ndisplay(Image(filename='chart.png'))"


# ---- what the script collects --------------------------------------------------------------------


@dataclass
class ApiExample:
    tool: str
    arguments: dict[str, Any]
    setup: str
    trip: RoundTrip | None = None


@dataclass
class Row:
    label: str
    response_bytes: int
    text_chars: int = 0
    images: int = 0
    image_chars: int = 0
    structured_chars: int = 0
    note: str = ""


@dataclass
class Measurement:
    slug: str
    title: str
    tool: str
    arguments: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)  # selector -> output (from the all-variants call)
    fallback_identical: bool = False
    is_error: bool = False


@dataclass
class Collected:
    examples: dict[str, RoundTrip] = field(default_factory=dict)
    http_url: str = ""
    http: RoundTrip | None = None
    listing_ui: dict[str, dict[str, Any]] = field(default_factory=dict)
    listing_plain: dict[str, dict[str, Any]] = field(default_factory=dict)
    listing_legacy: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # version -> tool -> entry
    api: dict[str, ApiExample] = field(default_factory=dict)
    measurements: list[Measurement] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    view: list[dict[str, Any]] = field(default_factory=list)
    selection_bytes: int = 0
    token_in_response: int = -1
    listing_bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


def declarations() -> dict[str, dict[str, Any]]:
    """variants/<tool>.json as written (shapes still as $ref): the set of tools comes from here."""
    return {json.loads(p.read_text())["name"]: json.loads(p.read_text()) for p in sorted(VARIANTS.glob("*.json"))}


def shapes() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((VARIANTS / "shapes").glob("*.json"))}


# ---- the run -------------------------------------------------------------------------------------


def collect(norm: Normalizer) -> Collected:
    got = Collected()
    with tempfile.TemporaryDirectory(prefix="mcp-variants-docs-") as tmp:
        folder = Path(tmp)
        root = folder / "root"
        root.mkdir()
        norm.literal(str(root), "<root>")
        norm.literal(str(folder), "<tmp>")
        norm.fixed_cell_ids.update({"intro", "load", "total"})
        lay_out_root(root)
        jupyter = JupyterServerProcess(folder / "jupyter").spawn()  # starts while the examples run
        norm.literal(jupyter.token, "<token>")
        try:
            started = time.monotonic()
            with Recorder(root) as server:
                chapter_examples(server, norm, got)
                got.seconds["chapter examples"] = time.monotonic() - started
                started = time.monotonic()
                api_examples(server, norm, got, jupyter)
                got.seconds["API examples"] = time.monotonic() - started
                started = time.monotonic()
                lay_out_measurements(root)
                measure(server, got)
                got.seconds["measurements"] = time.monotonic() - started
        finally:
            jupyter.stop()
        started = time.monotonic()
        legacy_examples(root, norm, got)
        got.seconds["legacy handshakes"] = time.monotonic() - started
        started = time.monotonic()
        http_example(root, norm, got)
        got.seconds["HTTP"] = time.monotonic() - started
    return got


def record(got: Collected, norm: Normalizer, name: str, trip: RoundTrip) -> RoundTrip:
    norm.learn(trip.message)
    got.examples[name] = trip
    return trip


def chapter_examples(server: Recorder, norm: Normalizer, got: Collected) -> None:
    def ex(name: str, trip: RoundTrip) -> RoundTrip:
        return record(got, norm, name, trip)

    ex("discover", server.request("server/discover", extensions=UI))
    listed = ex("tools-list-ui", server.request("tools/list", extensions=UI))
    got.listing_ui = {t["name"]: t for t in listed.result["tools"]}
    got.listing_bytes = len(listed.raw)
    plain = ex("tools-list-plain", server.request("tools/list"))
    got.listing_plain = {t["name"]: t for t in plain.result["tools"]}
    legacy = ex("tools-list-2026-07-28", server.request("tools/list", version="2026-07-28"))
    got.listing_legacy["2026-07-28"] = {t["name"]: t for t in legacy.result["tools"]}

    ex("fallback", server.call("execute_code", {"code": "print(1 + 1)"}))
    ex("assistant-content", server.call("execute_code", {"code": "print(1 + 1)"}, [AC]))
    ex("programmatic-structured", server.call("execute_code", {"code": "print(1 + 1)"}, [PS]))
    ex("assistant-structured", server.call("list_files", {}, [AS]))
    ex("user-structured", server.call("list_files", {}, [US]))
    ex("user-content", server.call("execute_code", {"code": SHOW_CHART}, [UC]))
    ex("assistant-structured-image", server.call("execute_code", {"code": SHOW_CHART}, [AS]))
    ex("two-outputs", server.call("execute_code", {"code": "print(1 + 1)\n6 * 7"}, [AC, PS]))
    ex("listing-programmatic", server.call("list_files", {}, [PS]))
    ex("paging-1", server.call("list_files", {"limit": 2}, [PS]))
    first = output_of(got.examples["paging-1"], "programmatic/structured") or {}
    cursor = first.get("structuredContent", {}).get("nextCursor", "")
    ex("paging-2", server.call("list_files", {"limit": 2, "cursor": cursor}, [PS]))
    ex("paging-assistant", server.call("list_files", {"limit": 2}, [AC]))

    # MCP Apps
    ex("apps-table", server.call("list_files", {}, [AC, UIS], extensions=UI))
    ex("apps-execution", server.call("execute_code", {"code": SHOW_CHART}, [AC, UIS], extensions=UI))
    ex("apps-only", server.call("list_kernels", {}, [UIS], extensions=UI))
    ex("apps-fallback", server.call("list_kernels", {}, None, extensions=UI))

    # Errors: selection (-32602) and version (-32022), then tool errors (isError)
    ex("err-undeclared", server.call("execute_code", {"code": "1"}, [US]))
    ex("err-not-negotiated", server.call("execute_code", {"code": "1"}, [UIS]))
    ex("err-not-core", server.call("execute_code", {"code": "1"}, [{"audience": "programmatic", "format": "content"}]))
    ex("err-ui-content", server.call("execute_code", {"code": "1"}, [{"audience": UI_EXT, "format": "content"}], extensions=UI))
    ex("err-duplicate", server.call("execute_code", {"code": "1"}, [AC, AC]))
    ex("err-empty", server.call("execute_code", {"code": "1"}, []))
    ex("err-malformed", server.call("execute_code", {"code": "1"}, [{"audience": "assistant"}]))
    ex("err-old-version", server.call("execute_code", {"code": "1"}, [AC], version="2026-07-28"))
    ex("err-unknown-tool", server.call("run_everything", {}, [AC]))
    ex("err-version", server.call("execute_code", {"code": "1"}, [AC], version="2099-01-01"))
    ex("tool-error", server.call("execute_code", {"code": "print('before')\n1 / 0"}, [AC, PS]))
    ex("tool-error-assistant-structured", server.call("execute_code", {"code": "print('before')\n1 / 0"}, [AS]))
    ex("invalid-arguments", server.call("execute_code", {"source": "1"}, [AC, AS]))
    ex("path-outside-root", server.call("list_files", {"path": "../"}, [AC, PS]))
    ex("legacy-call-2026-07-28", server.call("execute_code", {"code": "print(1 + 1)"}, version="2026-07-28"))
    ex("legacy-error-2026-07-28", server.call("execute_code", {"code": "1 / 0"}, version="2026-07-28"))


API_SEQUENCE: list[tuple[str, dict[str, Any], str]] = [
    ("list_files", {}, "The root holds `analysis.ipynb`, `chart.png`, `data.csv` and `notes.md`, written by the script."),
    ("execute_code", {"code": "print(1 + 1)\n6 * 7"}, "Nothing: this first call starts the kernel."),
    ("list_kernels", {}, "`execute_code` ran once, so one kernel runs."),
    ("use_notebook", {"notebook": NOTEBOOK}, "`analysis.ipynb` exists with three cells (ids `intro`, `load`, `total`)."),
    ("list_notebooks", {}, "`use_notebook` opened `analysis.ipynb`."),
    ("read_notebook", {"notebook": NOTEBOOK}, "`analysis.ipynb` as written: a markdown cell and two code cells never run."),
    ("read_notebook_page", {"notebook": NOTEBOOK, "limit": 2},
     "`analysis.ipynb` as written: a markdown cell and two code cells never run."),
    ("execute_cell", {"notebook": NOTEBOOK, "cell_id": "load"}, "`analysis.ipynb` is open (`use_notebook`)."),
    ("read_cell", {"notebook": NOTEBOOK, "cell_id": "load"}, "`execute_cell` ran the cell `load`, so it has an output."),
    ("insert_cell", {"notebook": NOTEBOOK, "cell_index": 2, "cell_type": "markdown", "source": "The total:"},
     "`analysis.ipynb` has three cells."),
    ("insert_execute_code_cell", {"notebook": NOTEBOOK, "source": "sum(data)"},
     "The cell `load` ran, so `data` is defined in the notebook's kernel."),
    ("edit_cell_source", {"notebook": NOTEBOOK, "cell_id": "total", "old_string": "2 + 2", "new_string": "max(data)"},
     "The cell `total` holds `2 + 2`."),
    ("overwrite_cell_source", {"notebook": NOTEBOOK, "cell_id": "total", "source": "min(data)"},
     "The cell `total` holds `max(data)` after `edit_cell_source`."),
    ("move_cell", {"notebook": NOTEBOOK, "cell_id": "total", "target_index": 1}, "The cell `total` is at index 3."),
    ("clear_cell_output", {"notebook": NOTEBOOK, "cell_id": "load"}, "The cell `load` has the output `execute_cell` saved."),
    ("delete_cell", {"notebook": NOTEBOOK, "cell_id": "total"}, "The cell `total` is at index 1 after `move_cell`."),
    ("restart_notebook", {"notebook": NOTEBOOK}, "`analysis.ipynb` is open with a running kernel."),
    ("unuse_notebook", {"notebook": NOTEBOOK}, "`analysis.ipynb` is open with a running kernel."),
    ("connect_to_jupyter", {"url": "<jupyter-url>", "token": "<jupyter-token>"},
     "The script started a stock `jupyter-server` on 127.0.0.1 with a token of its own."),
    ("launch_sandbox", {}, "Nothing (the call takes about two seconds: a Jupyter server starts)."),
    ("list_sandboxes", {}, "`launch_sandbox` started the sandbox `s-1`."),
    ("use_sandbox", {"sandbox_id": "s-1"}, "The sandbox `s-1` runs."),
    ("terminate_sandbox", {"sandbox_id": "s-1"}, "The sandbox `s-1` runs."),
]


def all_selectors(tool: dict[str, Any]) -> list[dict[str, str]]:
    return [{"audience": v["audience"], "format": v["format"]} for v in tool["outputVariants"]]


def api_examples(server: Recorder, norm: Normalizer, got: Collected, jupyter: JupyterServerProcess) -> None:
    for tool, arguments, setup in API_SEQUENCE:
        example = ApiExample(tool, arguments, setup)
        got.api[tool] = example
        if tool not in got.listing_ui:
            continue  # a scripted tool the server no longer serves: its page says so
        if tool == "connect_to_jupyter":
            jupyter.wait_ready(timeout=60)
            arguments = {"url": jupyter.url, "token": jupyter.token}
        trip = server.call(tool, arguments, all_selectors(got.listing_ui[tool]), extensions=UI)
        norm.learn(trip.message)
        example.trip = trip
        if tool == "connect_to_jupyter":
            got.examples["connect-token"] = trip
            got.token_in_response = trip.raw.count(jupyter.token.encode())


def legacy_examples(root: Path, norm: Normalizer, got: Collected) -> None:
    with Recorder(root) as server:
        for version in ("2025-11-25", "2024-11-05"):
            record(got, norm, f"initialize-{version}", server.handshake(version))
            listed = record(got, norm, f"tools-list-{version}", server.request("tools/list", {}, version=version))
            got.listing_legacy[version] = {t["name"]: t for t in listed.result["tools"]}
            record(got, norm, f"legacy-call-{version}", server.call("execute_code", {"code": "print(1 + 1)"}, version=version))
            if version == "2025-11-25":
                record(got, norm, "legacy-listing-2025-11-25", server.call("list_kernels", {}, version=version))


def http_example(root: Path, norm: Normalizer, got: Collected) -> None:
    """One stateless tools/call over streamable HTTP, through the conformance suite's HttpTarget."""
    port = free_port()
    with ServerProcess(serve_command(root, "--http", "--port", str(port)), port).start(), \
            HttpTarget(f"http://127.0.0.1:{port}/mcp", timeout=TIMEOUT_S) as target:
        trip = target.exchange(V, None, "tools/call", tool_call("list_kernels", {}, [AC]))
        norm.learn(trip.message)
        got.http_url, got.http = target.url, trip


# ---- measurements --------------------------------------------------------------------------------

SCENARIOS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("print-200k", "execute_code printing 200 KB", "execute_code", {"code": PRINT_200K}),
    ("plot", "execute_code displaying a chart (PNG)", "execute_code", {"code": SHOW_CHART}),
    ("files-1000", "list_files over 1,000 files", "list_files", {"path": "bulk", "limit": 1000}),
    ("notebook-100", "read_notebook of a 100-cell notebook", "read_notebook", {"notebook": "hundred.ipynb", "limit": 100}),
]


def steady(value: Any) -> Any:
    """The response with durationMs at a fixed stand-in, so byte counts do not move between runs."""
    if isinstance(value, dict):
        return {k: (DURATION_STANDIN if k == "durationMs" else steady(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def nbytes(value: Any) -> int:
    return len(compact(steady(value)))


def chars(value: Any) -> int:
    return len(compact(steady(value)).decode())


def content_stats(blocks: list[dict[str, Any]]) -> tuple[int, int, int]:
    text = sum(len(b.get("text", "")) for b in blocks if b.get("type") == "text")
    images = [b for b in blocks if b.get("type") == "image"]
    return text, len(images), sum(len(b.get("data", "")) for b in images)


def row_for(label: str, response: dict[str, Any], note: str = "") -> Row:
    row = Row(label, nbytes(response) + 1, note=note)  # + the newline that ends a stdio message
    result = response["result"]
    for output in result.get("outputs", []):
        if output["format"] == "content":
            text, images, image_chars = content_stats(output["content"])
            row.text_chars += text
            row.images += images
            row.image_chars += image_chars
        else:
            row.structured_chars += chars(output["structuredContent"])
    if "content" in result:
        text, images, image_chars = content_stats(result["content"])
        row.text_chars, row.images, row.image_chars = text, images, image_chars
    if "structuredContent" in result:
        row.structured_chars = chars(result["structuredContent"])
    return row


def describe(name: str, value: Any) -> str:
    """`outputs` (2 strings), `outputs` (1 nbformat output): what an extra key of an error output holds."""
    if isinstance(value, list):
        kinds = sorted({"nbformat output" if isinstance(v, dict) and "output_type" in v else type(v).__name__.replace("str", "string")
                        .replace("dict", "object") for v in value})
        return f"`{name}` ({len(value)} × {' or '.join(kinds) or 'nothing'})"
    return f"`{name}` ({type(value).__name__})"


def measure(server: Recorder, got: Collected) -> None:
    got.selection_bytes = len(compact({"requestedOutputs": [AC]})) - 1  # `"requestedOutputs":[...]` plus its comma
    for slug, title, tool, arguments in SCENARIOS:
        if tool not in got.listing_ui:
            continue
        m = Measurement(slug, title, tool, arguments)
        got.measurements.append(m)
        selectors = all_selectors(got.listing_ui[tool])

        def call(outputs: list[dict[str, str]] | None, version: str = V, tool: str = tool,
                 arguments: dict[str, Any] = arguments) -> RoundTrip:
            return server.call(tool, arguments, outputs, version=version, extensions=UI if version == V else None)

        fallback = call(None)
        m.rows.append(row_for("no `requestedOutputs` (fallback)", fallback.message))
        explicit = None
        for selector in selectors:
            trip = call([selector])
            m.rows.append(row_for(f"`{key(selector)}`", trip.message))
            if selector == AC:
                explicit = trip
        everything = call(selectors)
        m.is_error = bool(everything.result.get("isError"))
        m.outputs = {key(o): o for o in everything.result.get("outputs", [])}
        m.rows.append(row_for(f"all {len(selectors)} variants in one call", everything.message))
        if UIS in selectors:
            m.rows.append(row_for("`assistant/content` + `ui/structured` (an Apps host)", call([AC, UIS]).message))
        legacy = call(None, version="2026-07-28")
        m.rows.append(row_for("legacy pair (2026-07-28: `content` + `structuredContent`)", legacy.message))
        if "structuredContent" in legacy.result:
            mirrored = json.loads(json.dumps(legacy.message))
            mirrored["result"]["content"].append({"type": "text", "text": json.dumps(legacy.result["structuredContent"])})
            m.rows.append(row_for("legacy pair + JSON mirror in `content`", mirrored,
                                  note="computed: what a server that mirrors would send"))
        m.fallback_identical = explicit is not None and fallback.result.get("outputs") == explicit.result.get("outputs")
        if UIS in selectors:
            ui = m.outputs.get(key(UIS))
            ac = m.outputs.get(key(AC))
            if ui and ac:
                reduced = {"content": [], "structuredContent": ui["structuredContent"]}
                whole = {"outputs": [ac, ui]}
                got.view.append({"title": title, "output": chars(ui["structuredContent"]), "output_bytes": nbytes(ui["structuredContent"]),
                                 "reduced": nbytes(reduced), "whole": nbytes(whole),
                                 "assistant": nbytes(ac["content"])})

    # Errors: what each audience receives when the tool fails
    for title, tool, arguments in (("execute_code raising after a print", "execute_code", {"code": "print('before')\n1 / 0"}),
                                   ("list_files outside the root", "list_files", {"path": "../"}),
                                   ("read_cell of a cell that does not exist", "read_cell", {"notebook": "hundred.ipynb", "cell_index": 999})):
        if tool not in got.listing_ui:
            continue
        selectors = all_selectors(got.listing_ui[tool])
        trip = server.call(tool, arguments, selectors, extensions=UI)
        for output in trip.result.get("outputs", []):
            entry: dict[str, Any] = {"title": title, "selector": key(output), "isError": trip.result.get("isError", False)}
            if output["format"] == "structured":
                value = output["structuredContent"]
                entry["type"] = value.get("error", {}).get("type", "") if isinstance(value, dict) else ""
                entry["beside"] = [describe(k, v) for k, v in sorted(value.items()) if k != "error"] if isinstance(value, dict) else []
                entry["error_keys"] = sorted(value.get("error", {})) if isinstance(value, dict) else []
                entry["bytes"] = nbytes(value)
            else:
                entry["type"] = "(content)"
                entry["beside"] = []
                entry["error_keys"] = []
                entry["bytes"] = nbytes(output["content"])
            got.errors.append(entry)


# ---- rendering: helpers --------------------------------------------------------------------------

GENERATED_NOTE = ("<!-- Generated by scripts/gen_docs.py from the live server and variants/. "
                  "Do not edit: run make docs-examples. -->\n")


def fence(value: str, lang: str = "json", title: str | None = None, indent: str = "") -> str:
    head = f"```{lang}" + (f' title="{title}"' if title else "")
    body = "\n".join(indent + line if line else line for line in value.splitlines())
    return f"{indent}{head}\n{body}\n{indent}```\n"


def collapsible(summary: str, inner: str, *, open_: bool = False, kind: str = "example") -> str:
    marker = "???+" if open_ else "???"
    indented = "\n".join(("    " + line) if line else "" for line in inner.rstrip("\n").splitlines())
    return f'{marker} {kind} "{summary}"\n\n{indented}\n'


def exchange_md(request: dict[str, Any], response: dict[str, Any], *, long_after: int = 60) -> str:
    req = pretty(request)
    resp = pretty(response)
    parts = [fence(req, title="request")]
    lines = resp.count("\n") + 1
    if lines > long_after:
        parts.append(collapsible(f"response ({lines} lines)", fence(resp, title="response")))
    else:
        parts.append(fence(resp, title="response"))
    return "\n".join(parts)


def filtered_listing(response: dict[str, Any], tool: str) -> dict[str, Any]:
    result = dict(response["result"])
    result["tools"] = [t for t in result["tools"] if t["name"] == tool]
    return dict(response, result=result)


def md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def anchor(selector: str) -> str:
    return selector.replace(f"{UI_EXT}/", "ui-").replace("/", "-")


# ---- rendering: examples/ ------------------------------------------------------------------------


NOT_SHOWN = {"tools-list-plain", "initialize-2024-11-05"}  # recorded for the tables, not shown as exchanges


def render_examples(got: Collected, norm: Normalizer) -> dict[str, str]:
    files: dict[str, str] = {}
    for name, trip in got.examples.items():
        if name in NOT_SHOWN:
            continue
        request, response = renumber(trip)
        if name.startswith("tools-list"):
            keep = "list_kernels" if name == "tools-list-ui" else "execute_code"
            response = filtered_listing(response, keep)
        text = exchange_md(norm(request), norm(response))
        if name == "connect-token":
            text += (f"\nThe token occurs {got.token_in_response} time(s) in the bytes of the response "
                     "(counted before any placeholder was applied).\n")
        files[f"examples/{name}.md"] = GENERATED_NOTE + text
    files["examples/variants-by-negotiation.md"] = GENERATED_NOTE + render_negotiation(got)
    files["examples/http.md"] = GENERATED_NOTE + render_http(got, norm)
    files["examples/legacy-projection.md"] = GENERATED_NOTE + render_legacy_table(got)
    files.update(render_measurements(got))
    files["examples/cli-serve.md"] = GENERATED_NOTE + render_cli()
    return files


def render_cli() -> str:
    """`mcp-variants serve`'s options, from the server's own argument parser."""
    import argparse as _argparse

    from mcp_variants.server.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, _argparse._SubParsersAction))
    serve = commands.choices["serve"]
    lines = ["| option | what it does [environment variable, default] |", "|---|---|"]
    for action in serve._actions:
        if not action.option_strings or action.help == _argparse.SUPPRESS or "-h" in action.option_strings:
            continue
        option = ", ".join(f"`{o}`" for o in action.option_strings)
        if action.metavar or action.nargs != 0:
            option += f" `{action.metavar or action.dest.upper()}`"
        lines.append(f"| {option} | {md_escape(action.help or '')} |")
    return "\n".join(lines) + "\n"


def render_negotiation(got: Collected) -> str:
    lines = ["| tool | 2026-12-01, Apps extension negotiated | 2026-12-01, no extension |", "|---|---|---|"]
    for name in sorted(got.listing_ui):
        with_ui = ", ".join(f"`{key(v)}`" for v in got.listing_ui[name]["outputVariants"])
        without = ", ".join(f"`{key(v)}`" for v in got.listing_plain.get(name, {}).get("outputVariants", []))
        lines.append(f"| [`{name}`](../api/{name}.md) | {with_ui} | {without} |")
    return "\n".join(lines) + "\n"


def render_http(got: Collected, norm: Normalizer) -> str:
    assert got.http is not None and got.http.http is not None and got.http.headers is not None
    request, response = renumber(got.http)
    headers = "\n".join(f"{k}: {v}" for k, v in got.http.http["requestHeaders"].items())
    request_text = f"POST {norm.text(got.http_url)}\n{headers}\n\n" + pretty(norm(request))
    response_text = (f"HTTP/1.1 {got.http.status}\ncontent-type: {got.http.headers.get('Content-Type', '')}\n\n"
                     + pretty(norm(response)))
    return fence(request_text, "http", "request") + "\n" + fence(response_text, "http", "response (the JSON-RPC message it carries)")


def render_legacy_table(got: Collected) -> str:
    """What each version's tools/list says for outputSchema, per tool, against assistant/structured."""
    versions = ["2024-11-05", "2025-11-25", "2026-07-28"]
    lines = ["| tool | " + " | ".join(f"`outputSchema` at {v}" for v in versions) + " |",
             "|---|" + "---|" * len(versions)]
    for name in sorted(got.listing_ui):
        cells = []
        for version in versions:
            cells.append(legacy_schema_cell(got, name, version))
        lines.append(f"| [`{name}`](../api/{name}.md) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def legacy_schema_cell(got: Collected, name: str, version: str) -> str:
    entry = got.listing_legacy.get(version, {}).get(name)
    if entry is None:
        return "not listed"
    if "outputVariants" in entry:
        return "**has outputVariants**"
    schema = entry.get("outputSchema")
    if schema is None:
        return "none"
    assistant = next((v.get("schema") for v in got.listing_ui[name]["outputVariants"] if key(v) == "assistant/structured"), None)
    if schema == assistant:
        return "= `assistant/structured`"
    others = [key(v) for v in got.listing_ui[name]["outputVariants"] if v.get("schema") == schema]
    return "**= " + ", ".join(others) + "**" if others else "**another schema**"


def human(n: int) -> str:
    return f"{n:,}"


def render_measurements(got: Collected) -> dict[str, str]:
    files: dict[str, str] = {}
    for m in got.measurements:
        lines = [f"**{m.title}**: `{m.tool}` with `{json.dumps(m.arguments, ensure_ascii=False)}`"
                 + (" (the call failed: isError)" if m.is_error else "") + "\n",
                 "| requested | response bytes | text characters | images (base64 characters) | structured JSON characters |",
                 "|---|--:|--:|--:|--:|"]
        for row in m.rows:
            images = f"{row.images} ({human(row.image_chars)})" if row.images else "–"
            label = row.label + (f" *({row.note})*" if row.note else "")
            lines.append(f"| {label} | {human(row.response_bytes)} | {human(row.text_chars) if row.text_chars else '–'} | "
                         f"{images} | {human(row.structured_chars) if row.structured_chars else '–'} |")
        lines.append("")
        lines.append(f"The fallback's output is {'identical to' if m.fallback_identical else '**not** identical to'} "
                     "the output of an explicit `assistant/content` request.")
        files[f"examples/measure-{m.slug}.md"] = GENERATED_NOTE + "\n".join(lines) + "\n"

    summary = ["| call | fallback (`assistant/content`) | smallest structured | `programmatic/structured` | all variants | legacy pair | legacy pair + mirror |",
               "|---|--:|--:|--:|--:|--:|--:|"]
    for m in got.measurements:
        by = {r.label: r for r in m.rows}
        fallback = m.rows[0].response_bytes
        structured = [r.response_bytes for r in m.rows if "structured`" in r.label and r.label.count("`") == 2]
        every = next((r.response_bytes for r in m.rows if r.label.startswith("all ")), 0)
        legacy = next((r.response_bytes for r in m.rows if r.label.startswith("legacy pair (")), 0)
        mirror = next((r.response_bytes for r in m.rows if r.label.startswith("legacy pair +")), None)
        programmatic = by.get("`programmatic/structured`")
        summary.append(f"| {m.title} | {human(fallback)} | {human(min(structured)) if structured else '–'} | "
                       f"{human(programmatic.response_bytes) if programmatic else '–'} | {human(every)} | {human(legacy)} | "
                       f"{human(mirror) if mirror else '–'} |")
    summary.append("")
    summary.append(f"Asking for the fallback explicitly costs {got.selection_bytes} bytes per request "
                   '(`"requestedOutputs":[{"audience":"assistant","format":"content"}],`).')
    files["examples/measure-summary.md"] = GENERATED_NOTE + "\n".join(summary) + "\n"

    view = ["| call | the ui output alone (bytes) | wrapped in a reduced CallToolResult (bytes) | the whole result, assistant output included (bytes) | assistant/content the view would also see (bytes) |",
            "|---|--:|--:|--:|--:|"]
    for v in got.view:
        view.append(f"| {v['title']} | {human(v['output_bytes'])} | {human(v['reduced'])} | {human(v['whole'])} | {human(v['assistant'])} |")
    files["examples/measure-view.md"] = GENERATED_NOTE + "\n".join(view) + "\n"

    errors = ["| failure | requested | `error.type` | keys of `error` | keys beside `error` | bytes |", "|---|---|---|---|---|--:|"]
    for e in got.errors:
        errors.append(f"| {e['title']} | `{e['selector']}` | {e['type'] or '–'} | {', '.join(e['error_keys']) or '–'} | "
                      f"{', '.join(e['beside']) or '–'} | {human(e['bytes'])} |")
    files["examples/measure-errors.md"] = GENERATED_NOTE + "\n".join(errors) + "\n"
    files.update(render_findings(got))
    return files


def render_findings(got: Collected) -> dict[str, str]:
    """The numbers the open-question answers rest on, computed from the measurements above."""
    tools = got.listing_ui
    several = sum(1 for t in tools.values() if len(t["outputVariants"]) > 1)
    q1 = [(f"- {several} of the {len(tools)} tools declare more than one variant, so \"required whenever a tool "
          "declares several\" would mean required on every call to this server.")]
    identical = sum(1 for m in got.measurements if m.fallback_identical)
    q1.append(f"- In {identical} of {len(got.measurements)} measured calls the fallback was byte-for-byte the "
              "`assistant/content` output an explicit request gets.")
    for m in got.measurements:
        fallback = m.rows[0].response_bytes
        every = next(r.response_bytes for r in m.rows if r.label.startswith("all "))
        legacy = next(r.response_bytes for r in m.rows if r.label.startswith("legacy pair ("))
        q1.append(f"- {m.title}: the fallback is {human(fallback)} bytes; every variant at once would be "
                  f"{every / fallback:.1f}× that, the legacy pair {legacy / fallback:.1f}×.")
    q1.append(f"- Making the selection mandatory costs {got.selection_bytes} bytes per request for a client that "
              "wants the fallback anyway.")

    error_shape = {k: v for k, v in shapes()["error"].items() if k != "$comment"}
    structured = sum(1 for t in tools.values() for v in t["outputVariants"] if v["format"] == "structured")
    per_variant = len(compact(error_shape)) + len(',"errorSchema":')
    q2 = [(f"- Every structured error output measured here ({sum(1 for e in got.errors if e['type'] != '(content)')}) "
          "follows the one error shape; the tool-specific keys beside `error` differ by audience "
          "(see the table)."),
          (f"- The error shape is {len(compact(error_shape))} bytes of JSON Schema. Inlined as an `errorSchema` on each of "
          f"the {structured} structured variants (Apps extension negotiated), it would add {human(structured * per_variant)} "
          f"bytes to a `tools/list` response of {human(got.listing_bytes)} bytes "
          f"(+{100 * structured * per_variant / got.listing_bytes:.0f}%).")]

    q3 = []
    for v in got.view:
        q3.append(f"- {v['title']}: the view needs {human(v['output_bytes'])} bytes; the whole result would add "
                  f"{human(v['whole'] - v['output_bytes'])} bytes it has no use for, the model's own text among them; "
                  f"a reduced `CallToolResult` adds {v['reduced'] - v['output_bytes']}.")
    return {"examples/findings-q1.md": GENERATED_NOTE + "\n".join(q1) + "\n",
            "examples/findings-q2.md": GENERATED_NOTE + "\n".join(q2) + "\n",
            "examples/findings-q3.md": GENERATED_NOTE + "\n".join(q3) + "\n"}


# ---- rendering: api/ -----------------------------------------------------------------------------

AUDIENCE_ROUTING = {
    "assistant": "eligible for the model's context.",
    "user": "shown to the person by the host; never added to the model's context automatically.",
    "programmatic": "for the client's own code (code mode, orchestration); neither shown nor given to the model.",
    UI_EXT: "for an MCP App view; listed only when the request negotiated the Apps extension.",
}
GROUPS = [
    ("Run code", ["execute_code", "execute_cell", "insert_execute_code_cell"]),
    ("Notebooks", ["use_notebook", "unuse_notebook", "list_notebooks", "read_notebook", "read_notebook_page",
                   "restart_notebook"]),
    ("Cells", ["read_cell", "insert_cell", "edit_cell_source", "overwrite_cell_source", "move_cell", "delete_cell",
               "clear_cell_output"]),
    ("Files and kernels", ["list_files", "list_kernels"]),
    ("Runtimes and sandboxes", ["connect_to_jupyter", "launch_sandbox", "list_sandboxes", "use_sandbox", "terminate_sandbox"]),
]


def shape_refs(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("shapes/"):
            found.append(ref[len("shapes/"):-len(".json")])
        for v in node.values():
            found += [r for r in shape_refs(v) if r not in found]
    elif isinstance(node, list):
        for v in node:
            found += [r for r in shape_refs(v) if r not in found]
    return found


def type_of(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    t = schema.get("type", "any")
    return " \\| ".join(t) if isinstance(t, list) else str(t)


def constraints(schema: dict[str, Any]) -> str:
    parts = []
    for k, label in (("minimum", "≥ {}"), ("exclusiveMinimum", "> {}"), ("maximum", "≤ {}"), ("exclusiveMaximum", "< {}"),
                     ("minLength", "at least {} character(s)"), ("maxLength", "at most {} character(s)"), ("pattern", "matches `{}`")):
        if k in schema:
            parts.append(label.format(schema[k]))
    return ", ".join(parts)


def arguments_md(input_schema: dict[str, Any]) -> str:
    props: dict[str, Any] = input_schema.get("properties", {})
    required = set(input_schema.get("required", []))
    if not props:
        text = "None."
        if input_schema.get("additionalProperties") is False:
            text += " Any argument is refused as `invalid-arguments` (a tool error)."
        return text + "\n"
    lines = ["| name | type | required | default | constraints | description |", "|---|---|---|---|---|---|"]
    for name, schema in props.items():
        default = f"`{json.dumps(schema['default'])}`" if "default" in schema else ""
        lines.append(f"| `{name}` | {type_of(schema)} | {'yes' if name in required else ''} | {default} | "
                     f"{constraints(schema)} | {md_escape(schema.get('description', ''))} |")
    text = "\n".join(lines) + "\n"
    if input_schema.get("additionalProperties") is False:
        text += "\nNo other argument is accepted: an unknown one is a tool error (`isError`, `error.type: \"invalid-arguments\"`).\n"
    return text


def output_example(norm: Normalizer, output: dict[str, Any]) -> str:
    payload = output["content"] if output["format"] == "content" else output["structuredContent"]
    return fence(pretty(norm(payload)), title=("content" if output["format"] == "content" else "structuredContent"))


def render_tool(name: str, declared: dict[str, Any], got: Collected, norm: Normalizer) -> str:
    wire_tool = got.listing_ui.get(name)
    out = [GENERATED_NOTE, f"# `{name}`\n"]
    if declared.get("title"):
        out.append(f"**{declared['title']}.** {declared.get('description', '')}\n")
    else:
        out.append(f"{declared.get('description', '')}\n")
    annotations = declared.get("annotations") or {}
    if annotations:
        out.append("Annotations: " + ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in annotations.items()) + ".\n")
    if declared.get("_meta"):
        out.append(f"Tool `_meta`: `{json.dumps(declared['_meta'], ensure_ascii=False)}`.\n")
    out.append(f"Declared in `variants/{name}.json`.\n")
    if wire_tool is None:
        out.append("!!! warning \"Not listed\"\n    The live server's tools/list at 2026-12-01 did not list this tool, "
                   "so this page has no wire schemas and no examples.\n")

    out.append("## Arguments\n")
    out.append(arguments_md(declared.get("inputSchema", {})))

    out.append("## Variants\n")
    out.append("| variant | schema | the consumer |\n|---|---|---|")
    for v in declared["outputVariants"]:
        sel = key(v)
        schema = v.get("schema")
        if v["format"] == "content":
            schema_text = "content blocks (no schema)"
        elif schema is None:
            schema_text = "none declared"
        else:
            refs = shape_refs(schema)
            schema_text = ("shape " + ", ".join(f"[`{r}`](shapes.md#{r})" for r in refs)) if refs else "its own"
            if isinstance(schema, dict) and list(schema) == ["$ref"]:
                schema_text = f"[`{refs[0]}`](shapes.md#{refs[0]})"
        out.append(f"| [`{sel}`](#{anchor(sel)}) | {schema_text} | {AUDIENCE_ROUTING.get(v['audience'], '')} |")
    out.append("")
    if any(v["audience"] == UI_EXT for v in declared["outputVariants"]):
        out.append(f"The `{UI_EXT}` variant is listed, and may be requested, only when the request negotiated the "
                   "MCP Apps extension ([MCP Apps](../reference/mcp-apps.md)).\n")

    example = got.api.get(name)
    trip = example.trip if example else None
    for v in declared["outputVariants"]:
        sel = key(v)
        out.append(f"### {sel} {{#{anchor(sel)}}}\n")
        out.append(f"Routing: {AUDIENCE_ROUTING.get(v['audience'], 'defined by its extension.')}\n")
        if v["format"] == "structured":
            if v.get("schema") is None:
                out.append("No schema is declared: the payload is not validated.\n")
            else:
                out.append(fence(pretty(v["schema"]), title=f"schema, as declared in variants/{name}.json"))
                wire_variant = next((w for w in (wire_tool or {}).get("outputVariants", []) if key(w) == sel), None)
                if wire_variant is not None and wire_variant.get("schema") != v["schema"]:
                    out.append(collapsible("schema on the wire (shapes inlined)", fence(pretty(wire_variant["schema"]), title="schema")))
        else:
            out.append("The payload is an array of MCP content blocks (`text`, `image`); no schema.\n")
        if trip is None:
            reason = ("the script has no scripted call for this tool (`API_SEQUENCE` in scripts/gen_docs.py)"
                      if example is None else "the server did not list this tool")
            out.append(f"!!! note \"No example\"\n    No example could be produced: {reason}.\n")
            continue
        if "error" in trip.message:
            out.append("!!! warning \"No example\"\n    The call failed with a JSON-RPC error "
                       f"({trip.message['error'].get('code')}); see the request below.\n")
            continue
        output = output_of(trip, sel)
        if output is None:
            out.append("!!! warning \"No example\"\n    The server returned no output for this variant.\n")
            continue
        label = "Example (the call failed: `isError: true`, so this is the error shape)" if trip.result.get("isError") else "Example"
        out.append(f"{label}:\n")
        out.append(output_example(norm, output))

    out.append("## The example call\n")
    if trip is None or example is None:
        out.append("No example could be produced for this tool (see above).\n")
    else:
        out.append(f"Every output above comes from this one call, which asked for every declared variant "
                   f"at 2026-12-01 with the Apps extension negotiated. Before it: {example.setup}\n")
        request, response = renumber(trip)
        out.append(fence(pretty(norm(request)), title="request"))
        extras = {k: v for k, v in (response.get("result") or {}).items() if k not in ("outputs",)}
        if extras:
            out.append("The result's other members (the outputs are shown above):\n")
            out.append(fence(pretty(norm(extras)), title="result, without outputs"))

    out.append("## Older protocol versions\n")
    assistant = next((v for v in declared["outputVariants"] if key(v) == "assistant/structured"), None)
    out.append("A client on 2025-06-18 … 2026-07-28 gets `content` from `assistant/content` and "
               + ("`structuredContent` from `assistant/structured`; " if assistant else "no `structuredContent` (this tool declares no `assistant/structured`); ")
               + "2024-11-05 and 2025-03-26 get `content` only. What the live server listed as `outputSchema`:\n")
    out.append("| version | `outputSchema` |\n|---|---|")
    for version in ("2024-11-05", "2025-11-25", "2026-07-28"):
        out.append(f"| {version} | {legacy_schema_cell(got, name, version)} |")
    out.append("\nSee [the versioned projection](../reference/legacy.md).\n")
    return "\n".join(out)


def render_api(got: Collected, norm: Normalizer) -> dict[str, str]:
    decls = declarations()
    files = {f"api/{name}.md": render_tool(name, d, got, norm) for name, d in decls.items()}
    files["api/index.md"] = render_api_index(decls, got)
    files["api/shapes.md"] = render_shapes(decls)
    return files


def render_api_index(decls: dict[str, dict[str, Any]], got: Collected) -> str:
    out = [GENERATED_NOTE, "# Tools\n",
           (f"The server serves {len(decls)} tools. Each is declared once, in `variants/<tool>.json`: its `inputSchema` "
           "and its `outputVariants`, each structured variant with its own JSON Schema (shared shapes live in "
           "`variants/shapes/`, see [Shapes](shapes.md)). Every page below was generated from that declaration "
           "and from one real call to the running server, which asked for every variant at once.\n"),
           ("Variants: **AC** `assistant/content`, **AS** `assistant/structured`, **PS** `programmatic/structured`, "
           "**UC** `user/content`, **US** `user/structured`, **UI** `io.modelcontextprotocol/ui/structured` "
           "(only with the Apps extension).\n")]
    abbreviations = dict(zip(SELECTOR_ORDER, ["AC", "AS", "PS", "UC", "US", "UI"], strict=True))
    groups = [(title, [n for n in names if n in decls]) for title, names in GROUPS]
    rest = sorted(set(decls) - {n for _, names in groups for n in names})
    if rest:
        groups.append(("Other tools", rest))
    for title, names in groups:
        if not names:
            continue
        out.append(f"## {title}\n")
        out.append("| tool | what it does | " + " | ".join(abbreviations.values()) + " |")
        out.append("|---|---|" + ":-:|" * len(abbreviations))
        for name in names:
            d = decls[name]
            have = {key(v) for v in d["outputVariants"]}
            marks = " | ".join("✓" if s in have else "" for s in abbreviations)
            out.append(f"| [`{name}`]({name}.md) | {md_escape(d.get('title') or '')} | {marks} |")
        out.append("")
    out.append(API_INDEX_TAIL)
    return "\n".join(out)


API_INDEX_TAIL = """## What each audience gets

| variant | executions (`execute_code`, `execute_cell`, `insert_execute_code_cell`) | listings (`list_files`, `list_kernels`, `list_notebooks`, `read_notebook`) | actions (cells, notebooks, sandboxes) |
|---|---|---|---|
| `assistant/content` | printed text and results (ANSI stripped, capped at `--output-cap`), images as image blocks, tracebacks on error | a title and a tab-separated table; how to get the next page | one sentence saying what happened |
| `assistant/structured` | the [outputs shape](shapes.md#outputs): `kind`, `result`, `outputs`, `count`, `images`; images as `{type, mimeType, bytes}`, never base64 | the [rows shape](shapes.md#rows): `kind`, `result` (the table as text), `columns`, `items`, `count`, `nextCursor` | the [message shape](shapes.md#message): `kind`, `result` |
| `programmatic/structured` | the [execution record](shapes.md#execution-record): `status`, `kernelId`, `executionCount`, nbformat `outputs` with whole mime bundles, `truncatedBytes`, `timings` | typed records and `nextCursor` | typed fields: ids, indexes, counts, the old source |
| `user/content` | rendered text and images for a person | – | – |
| `user/structured` | – | the [table shape](shapes.md#table): `title`, `columns` (`key`, `label`), `rows` | – |
| `io.modelcontextprotocol/ui/structured` | the [execution view](shapes.md#execution-view): `view: "execution"`, nbformat `outputs` | `view: "table"` or `"notebook"`: columns, rows, facets | – |

When a call fails (`isError: true`), every structured output follows the [error shape](shapes.md#error),
in every requested audience; see [Errors](../reference/errors.md).

## Execution behaviour

- State persists between `execute_code` calls: one default kernel, started on first use. A
  notebook has its own kernel, started by `use_notebook` or its first cell run.
- At `timeout` the kernel is interrupted; the call is `isError` (`error.type: "timeout"`) with
  what was printed so far.
- A kernel that dies mid-run gives `isError` (`kernel-died`) within about a second; the next
  call starts a new kernel and its result says earlier state is gone (`kernelRestarted`).
- While a run lasts, a request with a `progressToken` receives `notifications/progress` every
  5 s, so clients do not give up on long runs.
- Requests at 2026-12-01 are stateless: `use_notebook`, `use_sandbox` and `connect_to_jupyter`
  keep no per-client default for them (their results say so). A client with a session (an
  `initialize` handshake on stdio, or an HTTP session) keeps its default notebook and runtime.
"""


def render_shapes(decls: dict[str, dict[str, Any]]) -> str:
    out = [GENERATED_NOTE, "# Shapes\n",
           ("Shared schemas, in `variants/shapes/`. A declaration refers to one as `{\"$ref\": \"shapes/<name>.json\"}`; "
           "the server inlines it when it loads the declarations, so every schema on the wire is self-contained.\n")]
    users: dict[str, list[str]] = {}
    all_shapes = shapes()
    for name, d in decls.items():
        for v in d["outputVariants"]:
            for ref in shape_refs(v.get("schema") or {}):
                users.setdefault(ref, []).append(f"[`{name}`]({name}.md#{anchor(key(v))}) `{key(v)}`")
    for shape_name, shape in all_shapes.items():
        for ref in shape_refs(shape):
            users.setdefault(ref, []).append(f"[`{ref}`'s user `{shape_name}`](#{shape_name})")
    for shape_name, shape in all_shapes.items():
        out.append(f"## {shape_name} {{#{shape_name}}}\n")
        comment = shape.get("$comment")
        if comment:
            out.append(f"{comment}\n")
        used = users.get(shape_name, [])
        if shape_name == "error":
            out.append("Used by every structured output of a failed call (`isError: true`).\n")
        elif used:
            out.append("Used by: " + ", ".join(used) + ".\n")
        else:
            out.append("Not used by any declaration.\n")
        out.append(fence(pretty({k: v for k, v in shape.items() if k != "$comment"}), title=f"variants/shapes/{shape_name}.json"))
    return "\n".join(out)


# ---- main ----------------------------------------------------------------------------------------


def generate() -> tuple[dict[str, str], dict[str, float]]:
    norm = Normalizer()
    started = time.monotonic()
    got = collect(norm)
    files = render_examples(got, norm)
    files.update(render_api(got, norm))
    got.seconds["total"] = time.monotonic() - started
    return files, got.seconds


def on_disk(base: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in OWNED:
        for path in sorted((base / folder).rglob("*")):
            if path.is_file():
                found[path.relative_to(base).as_posix()] = path.read_text()
    return found


def write(files: dict[str, str], base: Path) -> None:
    for rel in on_disk(base):
        if rel not in files:
            (base / rel).unlink()
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def check(files: dict[str, str], base: Path) -> list[str]:
    problems: list[str] = []
    committed = on_disk(base)
    for rel in sorted(set(files) | set(committed)):
        if rel not in committed:
            problems.append(f"missing: docs/{rel} (the server produces it now)")
        elif rel not in files:
            problems.append(f"stale: docs/{rel} (nothing produces it any more)")
        elif committed[rel] != files[rel]:
            diff = difflib.unified_diff(committed[rel].splitlines(), files[rel].splitlines(),
                                        f"docs/{rel} (committed)", f"docs/{rel} (the server now)", lineterm="", n=1)
            lines = list(diff)
            problems.append("\n".join(lines[:40] + ([f"... {len(lines) - 40} more diff lines"] if len(lines) > 40 else [])))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with docs/ instead of writing; exit 1 on a difference")
    parser.add_argument("--out", type=Path, help="write under this folder instead of docs/")
    args = parser.parse_args(argv)
    files, seconds = generate()
    timing = ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items())
    if args.check:
        problems = check(files, args.out or DOCS)
        if problems:
            print("\n\n".join(problems))
            print(f"\n{len(problems)} generated file(s) differ from what the server says now. "
                  "Run `make docs-examples` (python scripts/gen_docs.py) and commit the result.")
            return 1
        print(f"{len(files)} generated files match the live server ({timing}).")
        return 0
    write(files, args.out or DOCS)
    print(f"wrote {len(files)} files under {args.out or DOCS} ({timing}).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
