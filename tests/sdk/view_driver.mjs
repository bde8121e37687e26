// Open each host page of tests/sdk/test_bookshelf_view.py in headless Chromium (playwright-core, Debian's chromium) and
// read what the bookshelf view shows once the real AppBridge has delivered the tool result.
//
//   node tests/sdk/view_driver.mjs CONFIG.json      CONFIG: {chromium, userDataDir, timeoutMs, scenarios: [{name, url}]}
//
// Prints {scenario: {host, items, error}} as JSON: the host page's state and log, and the view's list items.
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";

const config = JSON.parse(await readFile(process.argv[2], "utf8"));
const { chromium } = createRequire(config.appsPackage)("playwright-core");
const timeout = config.timeoutMs;
const context = await chromium.launchPersistentContext(config.userDataDir, {
  executablePath: config.chromium, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const results = {};
try {
  for (const scenario of config.scenarios) {
    const page = await context.newPage();
    const entry = { host: null, items: null, error: null, console: [] };
    results[scenario.name] = entry;
    page.on("console", (m) => entry.console.push(`${m.type()}: ${m.text()}`));
    try {
      await page.goto(scenario.url, { waitUntil: "load", timeout });
      await page.waitForFunction(() => ["delivered", "no-view", "error"].includes(document.body.dataset.state), null, { timeout });
      entry.host = await page.evaluate(() => ({ state: document.body.dataset.state, sent: window.hostLog.sent.map((s) => s.method) }));
      // The view's frame: the sandbox proxy's inner document, the one with the shelf list.
      const deadline = Date.now() + timeout;
      while (entry.items === null && Date.now() < deadline) {
        for (const frame of page.frames()) {
          try {
            const items = await frame.evaluate(() => {
              const shelf = document.getElementById("shelf");
              return shelf && shelf.children.length ? Array.from(shelf.children).map((li) => li.textContent) : null;
            });
            if (items) entry.items = items;
          } catch {
            // a frame not ready, or gone
          }
        }
        if (entry.items === null) await page.waitForTimeout(50);
      }
      entry.host.sentAfter = await page.evaluate(() => window.hostLog.sent.map((s) => s.method));
      entry.events = await page.evaluate(() => window.hostLog.events);
    } catch (error) {
      entry.error = String(error);
    }
    await page.close();
  }
} finally {
  await context.close();
}
console.log(JSON.stringify(results));
