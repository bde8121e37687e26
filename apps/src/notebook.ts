// The notebook view: read_notebook, read_notebook_page (App-only: the view's pager), read_cell.
// View data: {view: "notebook", notebook, start, total, cells, nextCursor?} or {view: "cell", notebook, cell}
import { el, setSubtitle, showError, startView, text, type UiData } from "./common";
import { outputsNode } from "./outputs";

interface Cell {
  index: number;
  id: string;
  type: "code" | "markdown" | "raw";
  source: string;
  executionCount: number | null;
  outputs?: unknown[];
}

interface NotebookData extends UiData {
  notebook: string;
  start: number;
  total: number;
  cells: Cell[];
  nextCursor?: string;
}

const PAGER_TOOL = "read_notebook_page";

function markdown(source: string): HTMLElement {
  // Markdown is shown as text; headings stand out. No HTML from the notebook is interpreted.
  const node = el("div", { class: "text" });
  for (const line of source.split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    node.append(heading ? el("div", { class: "h" }, heading[1]) : el("div", {}, line || "\u00a0"));
  }
  return node;
}

function cellNode(cell: Cell): HTMLElement {
  const prompt = cell.type === "code" ? `In [${cell.executionCount ?? " "}]:` : "";
  const source = cell.type === "markdown" ? markdown(cell.source) : el("pre", {}, cell.source);
  const node = el(
    "section",
    { class: `cell cell-${cell.type}`, "data-index": String(cell.index), "data-id": cell.id },
    el("div", { class: "source" }, el("div", { class: "prompt" }, prompt), source),
  );
  if (cell.outputs && cell.outputs.length) node.append(outputsNode(cell.outputs));
  return node;
}

startView("notebook", (ctx) => {
  let pageSize = 0;

  function pager(data: NotebookData): HTMLElement | null {
    if (data.start === 0 && !data.nextCursor) return null;
    const bar = el("div", { class: "pager" });
    if (!ctx.canCallTools()) {
      bar.append(el("span", { class: "muted" }, "More cells: this host cannot page (no serverTools)."));
      return bar;
    }
    const size = pageSize || data.cells.length || 20;
    const prev = el("button", { class: "prev" }, "← Previous");
    prev.disabled = data.start === 0;
    prev.onclick = () => void ctx.call(PAGER_TOOL, { notebook: data.notebook, start: Math.max(0, data.start - size), limit: size });
    const next = el("button", { class: "next" }, "Next →");
    next.disabled = !data.nextCursor;
    next.onclick = () => void ctx.call(PAGER_TOOL, { notebook: data.notebook, cursor: data.nextCursor, limit: size });
    bar.append(prev, next);
    return bar;
  }

  return {
    render(received, into) {
      if (received.kind === "ui-error") {
        into.append(showError(received.data.error.message, received.data.error.traceback));
        return;
      }
      const data = received.data;
      if (data.view === "cell") {
        const cell = data.cell as Cell;
        setSubtitle(`${text(data.notebook)} · cell ${cell.index}`);
        into.append(el("div", { class: "cells" }, cellNode(cell)));
        return;
      }
      const page = data as NotebookData;
      if (!pageSize) pageSize = Number(ctx.arguments.limit) || page.cells.length;
      const last = page.start + page.cells.length - 1;
      const range = page.cells.length ? `cells ${page.start}–${last} of ${page.total}` : `no cells (of ${page.total})`;
      setSubtitle(`${page.notebook} · ${range}`);
      into.append(el("div", { class: "cells" }, ...page.cells.map(cellNode)));
      const bar = pager(page);
      if (bar) into.append(bar);
    },
  };
});
