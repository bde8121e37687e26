// Drive JupyterLab pages in headless Chromium for the live-notebook tests and benchmarks
// (playwright-core with Debian's chromium; nothing downloaded).
//
//   node harness/lab.mjs CONFIG.json
//
// CONFIG: {chromium, userDataDir, viewport?}. Then one JSON command per line on stdin, one JSON
// answer per line on stdout ({ok: true, value, at} or {ok: false, error}); `at` is Date.now()
// when the command finished, so the caller can time what the page saw against its own clock.
//
// Commands: {cmd: "open", url, timeoutMs}: a page with the notebook at `url`, once its cells show;
// {cmd: "watch", texts: {name: text}}: record when each text first shows in the notebook's DOM
// (window.labMarks, in ms since the epoch); {cmd: "eval", js, arg}: the value of (js)(arg) in the
// page; {cmd: "wait", js, arg, timeoutMs}: until (js)(arg) is truthy, its value; {cmd: "click",
// selector}; {cmd: "type", text, delayMs}; {cmd: "press", keys}; {cmd: "screenshot", path};
// {cmd: "console"}: what the page logged; {cmd: "closePage"}: close the page (the next "open" makes a new one in the
// same browser); {cmd: "close"}.
import { chromium } from "playwright-core";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";

const config = JSON.parse(await readFile(process.argv[2], "utf8"));
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
];

const context = await chromium.launchPersistentContext(config.userDataDir, {
  executablePath: config.chromium,
  headless: true,
  args: FLAGS,
  viewport: config.viewport ?? { width: 1280, height: 900 },
  deviceScaleFactor: 1,
});
let page = null;
const logged = [];

function watchTexts(texts) {
  // Runs in the page: a MutationObserver over the notebook panel, one mark per text.
  window.labWatch = Object.assign(window.labWatch ?? {}, texts);
  window.labMarks = window.labMarks ?? {};
  const look = () => {
    const panel = document.querySelector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook");
    if (!panel) return;
    const shown = panel.innerText;
    for (const [name, text] of Object.entries(window.labWatch)) {
      if (!(name in window.labMarks) && shown.includes(text)) window.labMarks[name] = Date.now();
    }
  };
  if (!window.labObserver) {
    window.labObserver = new MutationObserver(look);
    window.labObserver.observe(document.body, { subtree: true, childList: true, characterData: true });
  }
  look();
  return true;
}

async function run(command) {
  switch (command.cmd) {
    case "open": {
      page = page ?? (await context.newPage());
      page.on("console", (m) => logged.push(`${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => logged.push(`pageerror: ${e.message}`));
      await page.goto(command.url, { waitUntil: "load", timeout: command.timeoutMs ?? 60000 });
      await page.waitForSelector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell", { timeout: command.timeoutMs ?? 60000 });
      return page.url().replace(/token=[^&]+/, "token=***");
    }
    case "watch":
      return page.evaluate(watchTexts, command.texts);
    case "eval":
      return page.evaluate(new Function("arg", `return (${command.js})(arg);`), command.arg ?? null);
    case "wait": {
      const handle = await page.waitForFunction(new Function("arg", `return (${command.js})(arg);`), command.arg ?? null, {
        timeout: command.timeoutMs ?? 10000,
        polling: "raf",
      });
      return handle.jsonValue();
    }
    case "click":
      await page.click(command.selector, { timeout: command.timeoutMs ?? 10000 });
      return true;
    case "type":
      await page.keyboard.type(command.text, { delay: command.delayMs ?? 0 });
      return true;
    case "press":
      await page.keyboard.press(command.keys);
      return true;
    case "screenshot":
      await page.screenshot({ path: command.path, fullPage: false });
      return command.path;
    case "console":
      return logged.slice();
    case "closePage":
      await page?.close();
      page = null;
      logged.length = 0;
      return true;
    case "close":
      return true;
    default:
      throw new Error(`unknown command ${command.cmd}`);
  }
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  let answer;
  try {
    answer = { ok: true, value: await run(command), at: Date.now() };
  } catch (error) {
    answer = { ok: false, error: String(error?.stack ?? error), at: Date.now() };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
  if (command.cmd === "close") break;
}
await context.close();
