// The first-visit size budget (issue 14): what the landing page and viewing a plan download,
// wasm + JS, gzip-compressed, must stay within 400 KiB. A size test, not a timed one: the figures
// depend only on the build, so it is deterministic.
//
// The budget is NOT met yet (896 KiB on 2026-11-25; README, "Size"). So two checks per size: the
// budget itself, marked as failing (`test.fail`: Playwright reports it as an error the day it
// passes, so the mark is removed then), and a ceiling at today's size, which fails the build when
// the download grows.
//
// Every .js and .wasm response of the browser context is recorded (the page, and workers started
// by it: the worker runs the same wasm, handed over as a compiled module, so a URL is counted once
// however often it is requested). Each file is gzipped with Node's zlib at level 6 — zlib's
// default, and the middle level static hosts such as GitHub Pages compress with on the fly — which
// is what the budget is checked against; level 9 (the best gzip can do) is printed beside it.
import { gzipSync } from "node:zlib";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { test, expect, DIST } from "./harness.mjs";
import { gotoApp } from "./helpers.mjs";

const BUDGET = 400 * 1024; // bytes of gzip (level 6), wasm + JS together
// Today's total plus 2 %: growing past it fails. 1,057,232 B gzip -6 on 2026-11-25 before the
// readers of text plans, states, plan logs and driftctl reports became a lazily loaded part and the
// app's sorts shared one compiled sort; 982,961 B after; 917,397 B once Kubernetes objects and
// the fleet's reading joined that part (README, "Size"). 945,359 B on 2026-11-28 after issue 25's
// corrections (+15 KB: the graph's pure camera and framing, the list's keyboard cursor, text-plan
// element rows in the diff, driftctl's partial scans, the comment's output table); the ceiling
// moved to that plus 0.3 %, so the next growth still fails. 954,199 B after the core became a
// workspace of crates (issue 26; main built the same day measured 945,574 B): +0.91 %, the
// generic code each crate now instantiates for itself (Cargo shares no generics between crates in
// release builds), within the split's ±1 %. The ceiling is that plus 0.2 %. 960,457 B on
// 2026-11-29 when share links began to carry their glance (issue 27: +6.3 KB, the glance's writer
// and the components both the app and the link's first paint render it with), and 967,063 B once
// the page module-preloads the first paint's glue on every visit (6.4 KB: a link's first paint
// then waits one round trip less); the ceiling is that plus 0.2 %. 1,025,550 B once plans open
// together (issue 28: +58 KB, measured against 2c92e5a with twiggy diff — the roll-up of plans
// in the Fleet view, the set's expansion and naming, Atlantis, digger and Terragrunt splitting,
// the pool of workers that read the plans, PlanRow's serde, folder walking, set and roll-up
// links; the zip and tar readers, +52 KB more, were moved to the readers' part instead). A link's
// first paint does not wait for this module (issue 27). 1,087,407 B once a plan can be compared
// with the last one reviewed in the page (issue 29: +62 KB, the comparison in the plan's worker
// and its panel; 42 KB raw of it is the comparison's own functions, the rest their generic code).
// Both are candidates for a lazily loaded part, as the readers are. Then, issue 28's last gap
// and issue 29's page work (measured together after the merge, split by builds of each side):
// +11.5 KB once the roll-up's rows are judged by the Rego policies in the page too (the set's
// workers load the Rego part and call it per plan, the rows judged again when the rules, label or
// policies change, the watchdog that stops a runaway policy, the roll-up's words for a policy
// that could not run); +23.2 KB once the last plan's file goes to the worker as a File (about
// +3.7 KB), the graph marks what changed since (about +3.0 KB) and a roll-up is compared with the
// last review's set in the page (about +16.5 KB: its panel, the worker's message and
// `sets_since`). 1,122,126 B in all; the ceiling is that plus 0.2 %.
const CEILING = 1_124_400;

const VIEWPORTS = [
  { name: "desktop", width: 1400, height: 860 },
  { name: "phone", width: 390, height: 844 },
];

/** The bytes of a response: its body, or the built file it was served from. */
async function bytesOf(response, origin) {
  try {
    return await response.body();
  } catch {
    // Chromium does not always keep a worker's response body; the file is the same bytes.
    const path = decodeURIComponent(new URL(response.url()).pathname);
    const file = join(DIST, path);
    if (!response.url().startsWith(origin) || !existsSync(file)) throw new Error(`no bytes for ${response.url()}`);
    return readFileSync(file);
  }
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Opens the landing page and views a plan; prints and returns the gzip bytes of wasm + JS. */
async function firstVisit(page, origin, vp) {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    const seen = new Map(); // URL -> Promise<Buffer>
    const precached = new Set(); // URLs only the service worker fetched (its cache, for offline use)
    const record = (response) => {
      const url = response.url();
      const path = url.startsWith("blob:") || url.startsWith("data:") ? "" : new URL(url).pathname;
      if (!/\.(m?js|wasm)$/.test(path) || seen.has(url)) return;
      // A service worker filling its offline cache after the page is up is not what the page
      // needs to show a plan; those files are listed, not counted. The worker's own script (the
      // page registers it) and a file the page itself asks for are counted.
      const sw = response.request().serviceWorker();
      if (sw && sw.url() !== url) {
        precached.add(url);
        return;
      }
      precached.delete(url);
      seen.set(url, bytesOf(response, origin));
    };
    // The context sees the page's and its workers' requests alike.
    page.context().on("response", record);

    // The landing page …
    await gotoApp(page);
    await expect(page.getByTestId("sample-web-app-replace")).toBeVisible();
    // … then viewing a plan: open a sample, its summary and list, one resource's diff.
    await page.getByTestId("sample-web-app-replace").click();
    await expect(page.getByTestId("plan-summary")).toBeVisible();
    await page.getByTestId("resource-row").first().click();
    await expect(page.getByTestId("diff-panel")).toBeVisible();
    await page.waitForLoadState("networkidle");

    const files = [];
    for (const [url, bytes] of seen) {
      const raw = await bytes;
      files.push({
        file: url.startsWith(origin) ? url.slice(origin.length) : url,
        raw: raw.length,
        gz6: gzipSync(raw, { level: 6 }).length,
        gz9: gzipSync(raw, { level: 9 }).length,
      });
    }
    files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const sum = (k) => files.reduce((s, f) => s + f[k], 0);
    const total = { raw: sum("raw"), gz6: sum("gz6"), gz9: sum("gz9") };
    const lines = [
      `first-visit wasm + JS (${vp.name}), ${files.length} file(s):`,
      ...files.map((f) => `  ${f.file}: ${kib(f.raw)} raw, gzip -6 ${kib(f.gz6)} (${f.gz6} B), gzip -9 ${kib(f.gz9)} (${f.gz9} B)`),
      `  total: ${kib(total.raw)} raw, gzip -6 ${kib(total.gz6)} (${total.gz6} B), gzip -9 ${kib(total.gz9)} (${total.gz9} B); ` +
        `budget ${kib(BUDGET)} gzip -6: ${total.gz6 <= BUDGET ? "within" : `over by ${kib(total.gz6 - BUDGET)}`}`,
    ];
    for (const url of [...precached].filter((u) => !seen.has(u)).sort()) lines.push(`  not counted (service worker cache only): ${url}`);
    console.log(lines.join("\n"));

    // The lazily loaded parts (the readers of text plans, states, plan logs and driftctl reports,
    // the YAML reader, the Rego engine) are fetched on first use only: not by a first visit, and
    // not by the service worker ahead of time either.
    const parts = [...seen.keys(), ...precached].filter((u) => /\/part-[^/]*$/.test(new URL(u).pathname));
    expect(parts, "no lazily loaded part is fetched on a first visit").toEqual([]);
    // Something was counted: the app's glue and its wasm at least.
    expect(files.some((f) => f.file.endsWith(".wasm")), "a .wasm was loaded").toBe(true);
    expect(files.some((f) => f.file.endsWith(".js")), "a .js was loaded").toBe(true);
    return total.gz6;
}

for (const vp of VIEWPORTS) {
  test(`first visit (${vp.name} ${vp.width}x${vp.height}): wasm + JS of the landing page and of viewing a plan ≤ 400 KiB gzip`, async ({ page, origin }) => {
    test.fail(true, "over the 400 KiB budget (896 KiB on 2026-11-25): remove this mark when it passes");
    expect(await firstVisit(page, origin, vp), `gzip -6 bytes of wasm + JS for the first visit (budget ${BUDGET})`).toBeLessThanOrEqual(BUDGET);
  });

  test(`first visit (${vp.name} ${vp.width}x${vp.height}): wasm + JS do not grow past today's ${kib(CEILING)}`, async ({ page, origin }) => {
    expect(await firstVisit(page, origin, vp), `gzip -6 bytes of wasm + JS for the first visit (ceiling ${CEILING})`).toBeLessThanOrEqual(CEILING);
  });
}
