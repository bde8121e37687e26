// @ts-check
// A fixed program, as a code-mode model writes it for @cloudflare/codemode: an async arrow function on `codemode`,
// typed by the bindings generated from the tools' programmatic/structured schemas (codemode.d.ts). tsc checks it
// before the run. It lists notebooks and files (paging through nextCursor), runs cells, reads a plot's bytes and
// branches on error.type.
async () => {
  const opened = await codemode.use_notebook({ notebook: "analysis.ipynb", create: true });
  const notebooks = (await codemode.list_notebooks({})).notebooks.map((n) => n.path);
  const files = [];
  let page = await codemode.list_files({ path: "data", limit: 2 });
  files.push(...page.files.map((f) => f.path));
  while (page.nextCursor !== undefined) {
    page = await codemode.list_files({ path: "data", limit: 2, cursor: page.nextCursor });
    files.push(...page.files.map((f) => f.path));
  }
  const total = await codemode.insert_execute_code_cell({ notebook: opened.notebook, source: "print(sum(range(10)))" });
  const printed = total.outputs.map((o) => (o.output_type === "stream" ? o.text : "")).join("");
  const plot = await codemode.insert_execute_code_cell({
    notebook: opened.notebook,
    source: "from PIL import Image as I; import io; from IPython.display import Image, display\n" +
      "b = io.BytesIO(); I.new('RGB', (4, 3), 'red').save(b, 'PNG'); display(Image(b.getvalue()))",
  });
  const pngs = plot.outputs.flatMap((o) => (o.output_type === "display_data" ? [String(o.data["image/png"])] : []));
  const png = atob(pngs[0]);
  let failure = "none";
  try {
    await codemode.insert_execute_code_cell({ notebook: opened.notebook, source: "1 / 0" });
  } catch (e) {
    /** @type {ToolErrorOutput} */
    const output = JSON.parse(e instanceof Error ? e.message : String(e));
    failure = output.error.type + ": " + (output.error.ename ?? "?");
  }
  return { notebooks, files, printed, pngSignature: png.slice(1, 4), pngBytes: png.length, pngBase64: pngs[0],
           failure, cell: total.cell?.cellIndex ?? -1, cellsBefore: opened.cellCount };
}
