"""Every request the chapter examples and the API pages show, in the order the server gets them.

`collect` lays out a temporary root, starts a Jupyter server (for `connect_to_jupyter`) and
our server, and records: the chapter examples, one all-variants call per tool for the API
pages, the measurements, the handshake eras (2025-11-25, 2024-11-05: a process each) and one
call over streamable HTTP. The order matters: placeholders are numbered as ids are met.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_variants.conformance.wire import RoundTrip
from mcp_variants.jupyter.server_launcher import JupyterServerProcess

from .measurements import measure
from .normalize import Normalizer
from .recording import Recorder, call_over_http, output_of
from .records import ApiExample, Collected
from .sample_files import NOTEBOOK, NOTEBOOK_CELL_IDS, SHOW_CHART, lay_out_measurements, lay_out_root
from .selection import AC, AS, PS, UC, UI, UI_EXT, UIS, US, all_selectors

LEGACY_VERSIONS = ("2025-11-25", "2024-11-05")


def collect(norm: Normalizer) -> Collected:
    got = Collected()
    with tempfile.TemporaryDirectory(prefix="mcp-variants-docs-") as tmp:
        folder = Path(tmp)
        root = folder / "root"
        root.mkdir()
        norm.literal(str(root), "<root>")
        norm.literal(str(folder), "<tmp>")
        norm.literal(sys.executable, "<python>")  # the server's Python, which list_kernels names: a path of this machine
        norm.fixed_cell_ids.update(NOTEBOOK_CELL_IDS)
        lay_out_root(root)
        jupyter = JupyterServerProcess(folder / "jupyter").spawn()  # starts while the chapter examples run
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


# (tool, arguments, the state before the call, for its page); connect_to_jupyter's arguments are the Jupyter server's
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
    ("list_variables", {"notebook": NOTEBOOK}, "The cells `load` and `sum(data)` ran in the notebook's kernel."),
    ("inspect_variable", {"notebook": NOTEBOOK, "name": "data"}, "The cell `load` defined `data` in the notebook's kernel."),
    ("edit_cell_source", {"notebook": NOTEBOOK, "cell_id": "total", "old_string": "2 + 2", "new_string": "max(data)"},
     "The cell `total` holds `2 + 2`."),
    ("overwrite_cell_source", {"notebook": NOTEBOOK, "cell_id": "total", "source": "min(data)"},
     "The cell `total` holds `max(data)` after `edit_cell_source`."),
    ("move_cell", {"notebook": NOTEBOOK, "cell_id": "total", "target_index": 1}, "The cell `total` is at index 3."),
    ("clear_cell_output", {"notebook": NOTEBOOK, "cell_id": "load"}, "The cell `load` has the output `execute_cell` saved."),
    ("delete_cell", {"notebook": NOTEBOOK, "cell_id": "total"}, "The cell `total` is at index 1 after `move_cell`."),
    ("execute_notebook", {"notebook": NOTEBOOK},
     "`analysis.ipynb` has two code cells after `delete_cell`: `load` and the one `insert_execute_code_cell` added."),
    ("restart_notebook", {"notebook": NOTEBOOK}, "`analysis.ipynb` is open with a running kernel."),
    ("unuse_notebook", {"notebook": NOTEBOOK}, "`analysis.ipynb` is open with a running kernel."),
    ("connect_to_jupyter", {"url": "<jupyter-url>", "token": "<jupyter-token>"},
     "The script started a stock `jupyter-server` on 127.0.0.1 with a token of its own."),
    ("launch_sandbox", {}, "Nothing (the call takes about two seconds: a Jupyter server starts)."),
    ("list_sandboxes", {}, "`launch_sandbox` started the sandbox `s-1`."),
    ("use_sandbox", {"sandbox_id": "s-1"}, "The sandbox `s-1` runs."),
    ("terminate_sandbox", {"sandbox_id": "s-1"}, "The sandbox `s-1` runs."),
]


def api_examples(server: Recorder, norm: Normalizer, got: Collected, jupyter: JupyterServerProcess) -> None:
    for tool, arguments, setup in API_SEQUENCE:
        example = ApiExample(tool, setup)
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
        for version in LEGACY_VERSIONS:
            record(got, norm, f"initialize-{version}", server.initialize(version))
            listed = record(got, norm, f"tools-list-{version}", server.request("tools/list", {}, version=version))
            got.listing_legacy[version] = {t["name"]: t for t in listed.result["tools"]}
            record(got, norm, f"legacy-call-{version}", server.call("execute_code", {"code": "print(1 + 1)"}, version=version))
            if version == "2025-11-25":
                record(got, norm, "legacy-listing-2025-11-25", server.call("list_kernels", {}, version=version))


def http_example(root: Path, norm: Normalizer, got: Collected) -> None:
    got.http_url, got.http = call_over_http(root, "list_kernels", {}, [AC])
    norm.learn(got.http.message)
