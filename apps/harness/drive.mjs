// Drive headless Chromium through the browser tests' scenarios (playwright-core, no browser download).
//
//   node harness/drive.mjs CONFIG.json
//
// CONFIG: {chromium, userDataDir, out, timeoutMs, scenarios: [{name, url, actions: [{click, renders}]}]}
// For each scenario: open the host page, wait until the view has rendered the tool result, read
// from the view frame what it received (window.mcpVariantsView) and what its DOM shows, save a
// screenshot; then each action (a click inside the view) and the same again. Writes
// OUT/results.json; the Python tests make the assertions.
import { chromium } from "playwright-core";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";

const config = JSON.parse(await readFile(process.argv[2], "utf8"));
await mkdir(config.out, { recursive: true });
const timeout = config.timeoutMs ?? 30000;

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

function snapshot() {
  // Runs inside the view frame.
  const all = (selector) => Array.from(document.querySelectorAll(selector));
  return {
    record: window.mcpVariantsView ?? null,
    state: document.body.dataset.state ?? null,
    mode: document.body.dataset.mode ?? null,
    renders: Number(document.body.dataset.renders ?? 0),
    subtitle: document.getElementById("subtitle")?.textContent ?? "",
    text: document.body.innerText,
    headers: all("table.data thead th").map((th) => th.textContent),
    rows: all("table.data tbody tr").map((tr) => Array.from(tr.cells).map((td) => td.textContent)),
    facets: all(".facet").map((f) => ({ key: f.dataset.facet, values: Array.from(f.querySelectorAll("button")).map((b) => b.textContent) })),
    images: all("img").map((img) => ({
      mime: img.dataset.mime ?? null,
      srcPrefix: img.src.slice(0, 22),
      width: img.naturalWidth,
      height: img.naturalHeight,
      complete: img.complete,
    })),
    outputs: all(".output").map((o) => ({ cls: o.className, text: o.innerText.slice(0, 2000) })),
    htmlTables: all(".html-output table").map((t) => t.innerText),
    cells: all("section.cell").map((c) => ({
      index: Number(c.dataset.index),
      cls: c.className,
      outputs: c.querySelectorAll(".output").length,
      images: c.querySelectorAll("img").length,
    })),
    errors: all(".banner.error").map((e) => e.innerText),
    buttons: all("button").map((b) => ({ cls: b.className, text: b.textContent, disabled: b.disabled })),
    scripts: document.scripts.length,
    pwned: window.pwned ?? null,
  };
}

async function viewFrame(page) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame.url() !== "about:srcdoc") continue;
      try {
        if (await frame.evaluate(() => Boolean(window.mcpVariantsView))) return frame;
      } catch {
        // not ready yet
      }
    }
    await page.waitForTimeout(50);
  }
  throw new Error("no view frame");
}

async function settle(frame, renders) {
  await frame.waitForFunction(
    (n) =>
      document.body.dataset.state === "rendered" &&
      Number(document.body.dataset.renders ?? 0) >= n &&
      Array.from(document.images).every((img) => img.complete),
    renders,
    { timeout },
  );
}

const context = await chromium.launchPersistentContext(config.userDataDir, {
  executablePath: config.chromium,
  headless: true,
  args: FLAGS,
  viewport: { width: 1000, height: 760 },
  deviceScaleFactor: 1,
});
const results = { browser: context.browser()?.version() ?? null, scenarios: [] };
try {
  for (const scenario of config.scenarios) {
    const page = await context.newPage();
    const console_ = [];
    page.on("console", (m) => console_.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => console_.push(`pageerror: ${e.message}`));
    const entry = { name: scenario.name, steps: [], console: console_, error: null };
    results.scenarios.push(entry);
    try {
      await page.goto(scenario.url, { waitUntil: "load", timeout });
      await page.waitForFunction(() => ["delivered", "no-view", "error"].includes(document.body.dataset.state), null, { timeout });
      const hostState = await page.evaluate(() => document.body.dataset.state);
      if (hostState !== "delivered") {
        entry.host = await page.evaluate(() => ({ state: document.body.dataset.state, text: document.body.innerText, log: window.hostLog }));
        await page.screenshot({ path: join(config.out, `${scenario.name}.png`), fullPage: true });
        continue;
      }
      const frame = await viewFrame(page);
      let renders = 1;
      await settle(frame, renders);
      await page.waitForTimeout(150); // let the host apply the view's size-changed
      const shot = join(config.out, `${scenario.name}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      entry.steps.push({ action: null, view: await frame.evaluate(snapshot), screenshot: shot });
      for (const [i, action] of (scenario.actions ?? []).entries()) {
        await frame.click(action.click, { timeout });
        renders = action.renders ?? renders + 1;
        await settle(frame, renders);
        // Undo the scrolling Playwright did to bring the button into view (in every frame).
        for (const f of page.frames()) await f.evaluate(() => window.scrollTo(0, 0)).catch(() => {});
        await page.waitForTimeout(150);
        const path = join(config.out, `${scenario.name}-${i + 1}.png`);
        await page.screenshot({ path, fullPage: true });
        entry.steps.push({ action, view: await frame.evaluate(snapshot), screenshot: path });
      }
      entry.host = await page.evaluate(() => ({ state: document.body.dataset.state, text: document.body.innerText, log: window.hostLog }));
    } catch (error) {
      entry.error = String(error?.stack ?? error);
      try {
        await page.screenshot({ path: join(config.out, `${scenario.name}-error.png`), fullPage: true });
      } catch {
        // the page may be gone
      }
    } finally {
      await page.close();
    }
  }
} finally {
  await context.close();
}
await writeFile(join(config.out, "results.json"), JSON.stringify(results, null, 1));
console.log(join(config.out, "results.json"));
