// The execution view: execute_code, execute_cell, insert_execute_code_cell.
// View data: {view: "execution", executionCount, outputs: [nbformat output], cell?: {notebook, cellId, cellIndex}}
import { el, setSubtitle, showError, startView, type UiData } from "./common";
import { outputsNode } from "./outputs";

interface ExecutionData extends UiData {
  executionCount: number | null;
  outputs: unknown[];
  cell?: { notebook: string; cellId: string; cellIndex: number };
}

function where(data: { cell?: ExecutionData["cell"] }): string {
  return data.cell ? `${data.cell.notebook} · cell ${data.cell.cellIndex} (${data.cell.cellId})` : "kernel";
}

startView("execution", (ctx) => ({
  render(received, into) {
    if (received.kind === "ui-error") {
      const { error, outputs } = received.data;
      const shown = Array.isArray(outputs) ? outputs : [];
      // The traceback is in the outputs when the code raised; show it only once.
      const hasTrace = shown.some((o) => (o as { output_type?: string }).output_type === "error");
      into.append(showError(error.message, hasTrace ? undefined : error.traceback), outputsNode(shown));
      setSubtitle(`${ctx.toolName() ?? "execution"} · ${error.type}`);
      return;
    }
    const data = received.data as ExecutionData;
    setSubtitle(`${ctx.toolName() ?? "execution"} · ${where(data)} · In [${data.executionCount ?? " "}]`);
    const list = outputsNode(data.outputs);
    into.append(list.childElementCount ? list : el("p", { class: "muted" }, "Ran without output."));
  },
}));
