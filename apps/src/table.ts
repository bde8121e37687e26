// The table view: list_files, list_notebooks, list_kernels.
// View data: {view: "table", columns: [key], rows: [{key: value}], facets: {key: [value]}, nextCursor?}
import { el, setSubtitle, showError, startView, text, type UiData } from "./common";
import { outputsNode } from "./outputs";

interface TableData extends UiData {
  columns: string[];
  rows: Record<string, unknown>[];
  facets: Record<string, string[]>;
  nextCursor?: string;
}

const LABELS: Record<string, string> = { executionCount: "Exec", lastActivity: "Last activity", cellCount: "Cells" };

function label(key: string): string {
  return LABELS[key] ?? key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());
}

function cell(value: unknown): HTMLTableCellElement {
  if (typeof value === "number") return el("td", { class: "num" }, value.toLocaleString("en-US"));
  if (typeof value === "boolean") return el("td", {}, value ? "yes" : "no");
  if (value !== null && typeof value === "object") return el("td", {}, JSON.stringify(value));
  return el("td", {}, text(value));
}

startView("table", (ctx) => {
  let rows: Record<string, unknown>[] = [];
  let appendNext = false; // a "Load more" result extends the rows instead of replacing them
  let facets: Record<string, string[]> = {};
  let filter: { key: string; value: string } | null = null;

  function draw(data: TableData, into: HTMLElement): void {
    const redraw = (): void => draw(data, into);
    const body = el("tbody");
    const shown = rows.filter((row) => !filter || text(row[filter.key]) === filter.value);
    for (const row of shown) body.append(el("tr", {}, ...data.columns.map((key) => cell(row[key]))));
    const table = el("table", { class: "data" }, el("thead", {}, el("tr", {}, ...data.columns.map((k) => el("th", {}, label(k))))), body);

    const toolbar = el("div", { class: "toolbar" });
    for (const [key, values] of Object.entries(data.facets ?? {})) {
      if (!values.length) continue;
      const facet = el("div", { class: "facet", "data-facet": key }, el("span", { class: "label" }, `${label(key)}:`));
      const all = el("button", { class: filter?.key === key ? "" : "active" }, "all");
      all.onclick = () => {
        filter = null;
        redraw();
      };
      facet.append(all);
      for (const value of values) {
        const button = el("button", { class: filter?.key === key && filter.value === value ? "active" : "", "data-value": value }, value);
        button.onclick = () => {
          filter = { key, value };
          redraw();
        };
        facet.append(button);
      }
      toolbar.append(facet);
    }
    toolbar.append(el("span", { class: "count" }, filter ? `${shown.length} of ${rows.length} rows` : `${rows.length} rows`));

    into.replaceChildren(toolbar, rows.length ? table : el("p", { class: "muted" }, "No rows."));
    if (data.nextCursor) {
      const tool = ctx.toolName();
      const pager = el("div", { class: "pager" }, el("span", { class: "muted" }, "More rows follow."));
      if (tool && ctx.canCallTools()) {
        const more = el("button", { class: "more" }, "Load more");
        more.onclick = () => {
          appendNext = true;
          void ctx.call(tool, { ...ctx.arguments, cursor: data.nextCursor }).finally(() => (appendNext = false));
        };
        pager.append(more);
      }
      into.append(pager);
    }
  }

  return {
    render(received, into) {
      if (received.kind === "ui-error") {
        into.append(showError(received.data.error.message), outputsNode(received.data.outputs));
        return;
      }
      const data = received.data as TableData;
      if (appendNext) {
        // "Load more": the rows and each facet's values accumulate over the pages.
        rows = rows.concat(data.rows);
        for (const [key, values] of Object.entries(data.facets ?? {})) {
          facets[key] = [...new Set([...(facets[key] ?? []), ...values])].sort();
        }
      } else {
        rows = [...data.rows];
        facets = { ...(data.facets ?? {}) };
        filter = null;
      }
      appendNext = false;
      data.facets = facets;
      setSubtitle(`${ctx.toolName() ?? "listing"} · ${rows.length} rows`);
      draw(data, into);
    },
  };
});
