// Open the demo's report in headless Chromium (playwright-core, /usr/bin/chromium) and record what
// a reviewer would see; tests/apps/test_report.py makes the assertions.
//
//   node harness/report.mjs CONFIG.json
//
// CONFIG: {chromium, userDataDir, report, out, timeoutMs, screenshot?}
// Writes OUT/report.json: how long the page took to open (its own clock, from navigation start
// to every view delivered and every image decoded), every request it made, console errors,
// each scenario's rows, each raw exchange (unfolded), the images, and what each view iframe
// shows and received. `screenshot`: also save the first screen (1280x800) there.
import { chromium } from "playwright-core";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const config = JSON.parse(await readFile(process.argv[2], "utf8"));
await mkdir(config.out, { recursive: true });
const timeout = config.timeoutMs ?? 30000;

const context = await chromium.launchPersistentContext(config.userDataDir, {
  executablePath: config.chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-dev-shm-usage"],
  viewport: { width: 1280, height: 800 },
  deviceScaleFactor: 1,
});
const page = await context.newPage();
const requests = [];
const console_ = [];
page.on("request", (request) => requests.push(request.url().slice(0, 200)));
page.on("console", (m) => { if (m.type() !== "debug") console_.push(`${m.type()}: ${m.text()}`); });
page.on("pageerror", (e) => console_.push(`pageerror: ${e.message}`));

const url = pathToFileURL(config.report).href;
await page.goto(url, { waitUntil: "load", timeout });
await page.waitForFunction(() => document.body.dataset.views !== "loading", null, { timeout });
await page.evaluate(async () => {
  await Promise.all(Array.from(document.images).map((img) => img.decode().catch(() => undefined)));
});
if (config.screenshot) await page.screenshot({ path: config.screenshot });

const page_ = await page.evaluate(() => {
  const all = (root, selector) => Array.from(root.querySelectorAll(selector));
  return {
    views: document.body.dataset.views,
    live: document.querySelector("[data-live]")?.dataset.live ?? null,
    header: document.querySelector("header")?.innerText ?? "",
    images: all(document, "img").map((img) => ({ width: img.naturalWidth, height: img.naturalHeight, complete: img.complete })),
    scenarios: all(document, "section.scenario").map((section) => ({
      id: section.id,
      title: section.dataset.scenario,
      passed: section.dataset.passed,
      rows: all(section, ".row").map((row) => ({
        audience: row.dataset.audience,
        selectors: row.dataset.selectors,
        nothing: Boolean(row.querySelector(":scope > .got > .nothing")),
        text: row.querySelector(".got").innerText,
        texts: all(row, "pre.text").map((pre) => pre.textContent),
        images: all(row, "img").length,
        trees: all(row, ".tree").length,
        iframes: all(row, "iframe.view").map((frame) => ({ payload: frame.dataset.payload, state: frame.dataset.state })),
      })),
    })),
  };
});

// Each raw exchange, unfolded as a reviewer would (its text is inflated on the first click). A click can miss
// on a loaded machine: the views' frames still resize as they render, and a layout shift between Playwright's
// hit check and the click moves the summary from under it (CI saw a details never opened, 60 s of waiting). As
// a person would, click again until it is open; then wait for its text, polling on a timer (rAF polling
// stalls when the renderer is starved).
async function unfold(id) {
  const folded = page.locator(`section#${id} details.raw`);
  for (let clicks = 0; !(await folded.evaluate((details) => details.open)); clicks++) {
    if (clicks === 5) throw new Error(`section#${id}: its raw exchange did not open after 5 clicks`);
    await folded.locator("summary").click();
    await page.waitForFunction((details) => details.open, await folded.elementHandle(), { timeout: 2000, polling: 100 }).catch(() => {});
  }
  await page.waitForFunction((details) => !details.querySelector("pre").textContent.startsWith("unfolding"),
    await folded.elementHandle(), { timeout, polling: 100 })
    .catch((error) => folded.evaluate((details) => details.querySelector("pre").textContent.slice(0, 80))
      .then((text) => { throw new Error(`section#${id}: open, its text still "${text}" after ${timeout} ms (${error.message})`); }));
  return folded.locator("pre").textContent();
}
for (const scenario of page_.scenarios) scenario.raw = await unfold(scenario.id);

// What each view shows and received, read inside its (opaque-origin) frame.
const frames = [];
for (const frame of page.frames()) {
  if (frame === page.mainFrame()) continue;
  const element = await frame.frameElement();
  const payload = await element.getAttribute("data-payload");
  const view = await frame.evaluate(async () => {
    await Promise.all(Array.from(document.images).map((img) => img.decode().catch(() => undefined)));
    return {
      state: document.body.dataset.state ?? null,
      mode: document.body.dataset.mode ?? null,
      text: document.body.innerText,
      rows: Array.from(document.querySelectorAll("table.data tbody tr")).map((tr) => Array.from(tr.cells).map((td) => td.textContent)),
      images: Array.from(document.images).map((img) => ({ width: img.naturalWidth, height: img.naturalHeight })),
      messages: window.mcpVariantsView?.messages ?? [],
    };
  });
  frames.push({ payload, view });
}

await writeFile(join(config.out, "report.json"), JSON.stringify({ browser: context.browser()?.version() ?? null, requests,
  console: console_, page: page_, frames, url }, null, 1));
await context.close();
console.log(join(config.out, "report.json"));
