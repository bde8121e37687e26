// Bundle each MCP App view into one self-contained HTML file (inline JS and CSS).
//
//   node build.mjs                      -> ../src/mcp_variants/apps/views/<view>.html
//                                          and ../src/mcp_variants/report/report-host.js
//   node build.mjs --out DIR            -> DIR/<view>.html and DIR/report-host.js (tests rebuild
//                                          into a temp dir and compare)
//   node build.mjs --harness DIR        -> DIR/host.html and DIR/sandbox.html (the browser tests' host)
//
// The output depends only on the sources, package-lock.json and the pinned esbuild: no
// timestamps, no absolute paths, a fixed order. tests/apps checks the committed files
// are byte-identical to a rebuild.
import { build, transform } from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const VIEWS = [
  { name: "table", title: "Table" },
  { name: "execution", title: "Execution outputs" },
  { name: "notebook", title: "Notebook" },
];

function option(flag) {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function bundle(entry) {
  const result = await build({
    entryPoints: [join(here, entry)],
    absWorkingDir: here,
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    charset: "utf8",
    legalComments: "eof",
    sourcemap: false,
    write: false,
    logLevel: "warning",
  });
  // Inline in <script>: a literal "</script" (in a string or regex) would end the element.
  return result.outputFiles[0].text.replaceAll("</script", "<\\/script").replaceAll("<!--", "<\\!--");
}

async function css(file) {
  const source = await readFile(join(here, file), "utf8");
  return (await transform(source, { loader: "css", minify: true, charset: "utf8" })).code.trim();
}

function fill(template, values) {
  // split/join, not String.replace: bundled JS is full of `$&`-like sequences.
  let out = template;
  for (const [key, value] of Object.entries(values)) out = out.split(`@@${key}@@`).join(value);
  return out;
}

async function buildViews(outDir) {
  const template = await readFile(join(here, "src/template.html"), "utf8");
  const style = await css("src/style.css");
  await mkdir(outDir, { recursive: true });
  for (const view of VIEWS) {
    const js = await bundle(`src/${view.name}.ts`);
    const html = fill(template, { NAME: view.name, TITLE: view.title, CSS: style, JS: js.trimEnd() });
    await writeFile(join(outDir, `${view.name}.html`), html);
    console.log(`${view.name}.html  ${(html.length / 1024).toFixed(0)} KiB`);
  }
}

async function buildReportHost(outDir) {
  // The reviewer's report embeds this script (gzip) and inflates it itself: JS only, no page.
  await mkdir(outDir, { recursive: true });
  const js = await bundle("report/host.ts");
  await writeFile(join(outDir, "report-host.js"), js);
  console.log(`report-host.js  ${(js.length / 1024).toFixed(0)} KiB`);
}

async function buildHarness(outDir) {
  await mkdir(outDir, { recursive: true });
  for (const page of ["host", "sandbox"]) {
    const template = await readFile(join(here, `harness/${page}.html`), "utf8");
    const js = await bundle(`harness/${page}.ts`);
    await writeFile(join(outDir, `${page}.html`), fill(template, { JS: js.trimEnd() }));
  }
}

const harness = option("--harness");
if (harness) {
  await buildHarness(resolve(harness));
} else {
  const out = option("--out");
  await buildViews(resolve(out ?? join(here, "../src/mcp_variants/apps/views")));
  await buildReportHost(resolve(out ?? join(here, "../src/mcp_variants/report")));
}
