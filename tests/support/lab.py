"""A person in JupyterLab: one JupyterLab page in headless Chromium, driven from Python.

`apps/harness/lab.mjs` (playwright-core with Debian's chromium, as the MCP Apps browser tests
use) runs the page and takes one JSON command per line; `LabPage` sends them. What the page
shows is read from its DOM; which cell is which, from the notebook model JupyterLab itself
keeps (the test JupyterLab exposes its app as window.jupyterapp). Keystrokes are real key
events into the cell's editor, so what the page types goes through JupyterLab's own shared
model and room, as a person's would.

The live-notebook browser tests and the latency benchmark both use it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.processes import PipedProcess

REPO = Path(__file__).resolve().parents[2]
APPS = REPO / "apps"

# In the page: the panel of the notebook at `path`, and its model's cells.
PANEL = """(path) => {
  for (const widget of window.jupyterapp.shell.widgets("main")) {
    if (widget.context && widget.context.path === path) return widget;
  }
  return null;
}"""
CELLS = f"""(path) => {{
  const panel = ({PANEL})(path);
  if (!panel) return null;
  const nodes = Array.from(panel.content.node.querySelectorAll(".jp-Cell"));
  return panel.content.model.sharedModel.cells.map((cell, index) => ({{
    id: cell.id, type: cell.cell_type, source: cell.getSource(),
    outputs: cell.cell_type === "code" ? cell.getOutputs().map((o) => o.text ?? (o.data && o.data["text/plain"]) ?? o.ename ?? "") : [],
    executionCount: cell.cell_type === "code" ? cell.execution_count : null,
    shown: nodes[index] ? nodes[index].innerText : null,
  }}));
}}"""


CHROMIUM = Path(os.environ.get("MCP_VARIANTS_CHROMIUM", "/usr/bin/chromium"))


def _node_major(node: str) -> int:
    try:
        out = subprocess.run([node, "--version"], check=False, capture_output=True, text=True, timeout=20).stdout
    except OSError:
        return 0
    match = re.match(r"v(\d+)", out.strip())
    return int(match.group(1)) if match else 0


def find_node(minimum: int) -> str | None:
    """A Node of at least `minimum`: the one on PATH, else tests/outside's Node 22; None without one."""
    candidates = [shutil.which("node"), str(REPO / "tests" / "outside" / "node_modules" / ".bin" / "node")]
    return next((c for c in candidates if c and Path(c).exists() and _node_major(c) >= minimum), None)


class LabError(RuntimeError):
    """The page could not do what it was asked (the message has the browser's reason)."""


class LabPage:
    """A JupyterLab page; `open` a notebook (or `open_in_app` another), then read, watch and type; `close_notebook`,
    `close_page` (the browser stays for the next `open`), `close` at the end."""

    def __init__(self, node: str, chromium: Path, profile: Path) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        config = profile.parent / f"{profile.name}.json"
        config.write_text(json.dumps({"chromium": str(chromium), "userDataDir": str(profile)}))
        self.process = PipedProcess([node, str(APPS / "harness" / "lab.mjs"), str(config)], cwd=APPS)
        self.path: str | None = None
        self.loaded = False  # JupyterLab is loaded in the page: `open_in_app` opens notebooks in it

    def command(self, cmd: str, **fields: Any) -> tuple[Any, float]:
        """Run one command in the page: its value, and the page's clock (ms since the epoch) when it finished."""
        self.process.write((json.dumps({"cmd": cmd, **fields}) + "\n").encode())
        line = self.process.stdout.readline()
        if not line:
            raise LabError(f"the browser driver exited: {self.process.stderr.text()[-2000:]}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise LabError(f"{cmd} failed in the page: {answer['error']}")
        return answer["value"], float(answer["at"])

    def open(self, server: JupyterServerProcess, path: str, timeout: float = 90) -> None:
        """The notebook at `path` open in JupyterLab, once its cells show and its kernel is ready."""
        # A workspace of its own, reset: JupyterLab would otherwise reopen what an earlier page had open.
        url = f"{server.url}lab/workspaces/{uuid.uuid4().hex[:12]}/tree/{quote(path)}?reset&token={server.token}"
        self.command("open", url=url, timeoutMs=int(timeout * 1000))
        self.loaded = True
        self._until_ready(path, timeout)

    def open_in_app(self, path: str, timeout: float = 90) -> None:
        """The notebook at `path` opened in the JupyterLab this page loaded (`open`), as from its file browser, without
        loading the page again; once its cells show and its kernel is ready. What `watch` noted before is forgotten."""
        assert self.loaded, "open() loads JupyterLab first"
        self.eval("""(path) => {
            window.labWatch = {};
            window.labMarks = {};
            window.jupyterapp.commands.execute("docmanager:open", {path});
            return true;
        }""", path)
        self._until_ready(path, timeout)

    def _until_ready(self, path: str, timeout: float) -> None:
        self.path = path
        self.wait(f"""(path) => {{
            const panel = ({PANEL})(path);
            return panel && panel.isVisible && panel.content.node.querySelector(".jp-Cell") !== null &&
                   panel.sessionContext.session?.kernel?.connectionStatus === "connected" &&
                   panel.sessionContext.session.kernel.status === "idle";
        }}""", path, timeout=timeout)

    def close_notebook(self) -> None:
        """Dispose of the open notebook's panel, as closing its tab does but without "Save your work?" (its room holds
        every edit: JupyterLab saves the file from there). LabError if a dialog stays over the page."""
        dialog = self.eval(f"""(path) => {{
            ({PANEL})(path)?.dispose();
            return document.querySelector(".jp-Dialog")?.innerText ?? null;
        }}""", self.path)
        self.path = None
        if dialog is not None:
            raise LabError(f"a dialog stays open: {dialog}")

    def eval(self, js: str, arg: Any = None) -> Any:
        return self.command("eval", js=js, arg=arg)[0]

    def wait(self, js: str, arg: Any = None, *, timeout: float = 10) -> Any:
        """Until (js)(arg) is truthy in the page (checked every frame); its value."""
        return self.command("wait", js=js, arg=arg, timeoutMs=int(timeout * 1000))[0]

    @property
    def model(self) -> str:
        """A JavaScript expression: the open notebook's cells as `cells()` gives them (for `wait`)."""
        return f"({CELLS})({json.dumps(self.path)})"

    def cells(self) -> list[dict[str, Any]]:
        """The notebook as the page has it: each cell's id, type, source, outputs' text, and what it shows."""
        cells: list[dict[str, Any]] = self.eval(CELLS, self.path)
        return cells

    def watch(self, **texts: str) -> None:
        """From now on, note when each text first shows in the notebook (`marks`)."""
        self.command("watch", texts=texts)

    def marks(self) -> dict[str, float]:
        """When each watched text showed, in ms since the epoch (the page's clock: this machine's)."""
        marks: dict[str, float] = self.eval("() => window.labMarks ?? {}")
        return marks

    def wait_shown(self, text: str, *, timeout: float = 10) -> float:
        """Until `text` shows in the notebook; when it did (ms since the epoch)."""
        js = f"""(text) => {{
            const panel = ({PANEL})({json.dumps(self.path)});
            return panel && panel.content.node.innerText.includes(text) ? Date.now() : 0;
        }}"""
        return float(self.wait(js, text, timeout=timeout))

    def edit_cell(self, index: int) -> None:
        """Put the cursor at the end of cell `index`'s source, in edit mode, as a click there would."""
        self.eval(f"""(index) => {{
            const notebook = ({PANEL})({json.dumps(self.path)}).content;
            notebook.activeCellIndex = index;
            notebook.mode = "edit";
            const editor = notebook.activeCell.editor;
            editor.focus();
            const lines = editor.lineCount;
            editor.setCursorPosition({{line: lines - 1, column: editor.getLine(lines - 1).length}});
            return true;
        }}""", index)

    def select_cell(self, index: int) -> None:
        """Cell `index` selected in command mode (keys like "a" then act on it)."""
        self.eval(f"""(index) => {{
            const notebook = ({PANEL})({json.dumps(self.path)}).content;
            notebook.activeCellIndex = index;
            notebook.mode = "command";
            notebook.node.focus();
            return true;
        }}""", index)

    def type(self, text: str, delay_ms: int = 0) -> None:
        """Real key events, into whatever has the focus."""
        self.command("type", text=text, delayMs=delay_ms)

    def press(self, keys: str) -> None:
        self.command("press", keys=keys)

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.command("screenshot", path=str(path))
        return path

    def console(self) -> list[str]:
        logged: list[str] = self.command("console")[0]
        return logged

    def conflict_dialog(self) -> str | None:
        """The text of a JupyterLab dialog (file changed on disk, conflict, reload), if one shows."""
        text: str | None = self.eval("() => document.querySelector('.jp-Dialog')?.innerText ?? null")
        return text

    def close_page(self) -> None:
        """Close the page, keeping the browser: the next `open` loads JupyterLab afresh in a new page."""
        self.command("closePage")
        self.path = None
        self.loaded = False

    def close(self) -> None:
        with contextlib.suppress(LabError, OSError, ValueError):
            self.command("close")
        self.process.stop(grace=10)


def now_ms() -> float:
    """This process's clock in the page's units (ms since the epoch)."""
    return time.time() * 1000
