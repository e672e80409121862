// Screenshots the built app in headless Chromium:
//   node scripts/screenshot.mjs OUT.png [PLAN.json] [--select ADDRESS] [--hash FRAGMENT] [--click SELECTOR]…
//        [--phone] (390×844 instead of 1400×860) [--full] (the whole page) [--dist DIR] (default dist)
// For looking at what we build; not a test.
import { chromium } from "@playwright/test";
import { serve } from "../tests/e2e/serve.mjs";

const args = process.argv.slice(2);
const out = args[0];
const plan = args[1] && !args[1].startsWith("--") ? args[1] : null;
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; };
const server = await serve(opt("--dist") || "dist");
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
});
const phone = args.includes("--phone");
const page = await browser.newPage({ viewport: phone ? { width: 390, height: 844 } : { width: 1400, height: 860 } });
page.on("console", (m) => console.log("console:", m.type(), m.text()));
page.on("pageerror", (e) => console.log("pageerror:", e.message));
await page.goto(`http://127.0.0.1:${server.address().port}/${opt("--hash") ? "#" + opt("--hash") : ""}`);
await page.waitForSelector("[data-testid=plan-file]", { state: "attached" });
if (plan) {
  await page.setInputFiles("[data-testid=plan-file]", plan);
  await page.waitForSelector("[data-testid=plan-summary], [data-testid=load-error]");
}
if (opt("--select")) await page.click(`[data-testid=resource-row][data-address="${opt("--select").replace(/"/g, '\\"')}"]`);
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--click") { await page.click(args[i + 1]); await page.waitForTimeout(150); }
}
await page.waitForTimeout(300);
await page.screenshot({ path: out, fullPage: args.includes("--full") });
await browser.close();
server.close();
