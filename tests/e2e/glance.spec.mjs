// A PR link paints its glance first (issue 27): the summary strip and the list the link carries
// (`g=`), from the small first-paint module, before the app is even fetched; the app takes over
// once it has opened the plan, saying the same and keeping the row chosen meanwhile.
//
// The byte budget: what a link's summary needs before it paints (the page, its style, the boot
// script and the first-paint module) is counted from the requests the page made before the
// summary appeared, each file gzipped at level 6 (as budget.spec.mjs counts). The figures depend
// only on the build, so the test is deterministic; it prints them.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { test, expect, DIST, REAL, REPO, sharedFiles } from "./harness.mjs";

// Bytes of gzip (level 6) before a link's summary paints. 106,833 B on 2026-11-29 when the first
// paint arrived (planlens-glance_bg.wasm 88,766 B of it); before, the summary needed the whole app,
// 960 KB. The budget is that plus 5 %.
const BUDGET = 110 * 1024;

const VIEWPORTS = [
  { name: "desktop", width: 1400, height: 860 },
  { name: "phone", width: 390, height: 844 },
];

// Small plans as PRs carry them: a sample (always here) and real ones (../shared).
const PLANS = [
  join(REPO, "samples", "web-app-replace.json"),
  ...sharedFiles(
    join(REAL, "terraform-compliance__tf1_0_drift_and_deletes.json"),
    join(REAL, "terraform__showjson_modules.json"),
  ),
];
const DRIFTED = join(REAL, "terraform-compliance__tf1_0_drift_and_deletes.json");

const BIN = join(REPO, "target", "debug", "planlens");

test.beforeAll(() => {
  // A no-op when `cargo test` already built the CLI from this source.
  test.setTimeout(600_000);
  execFileSync("cargo", ["build", "--quiet", "--bin", "planlens"], { cwd: REPO, stdio: "inherit" });
});

/** The link `planlens link` makes for `plan` to the test server. */
function linkTo(plan, origin, ...args) {
  return execFileSync(BIN, ["link", plan, "--base", `${origin}/`, ...args]).toString().trim().split("\n").pop();
}

/** Holds the app's module back until `release()`: the first paint is then what the page shows. */
async function holdApp(page) {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  await page.route(/planlens-web-[0-9a-f]+_bg\.wasm$/, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

const glance = (page) => page.getByTestId("glance");

test("the bytes a link's summary needs stay within the budget, and none is the app's", async ({ page, origin }) => {
  const rows = [];
  for (const plan of PLANS) {
    const context = await page.context().browser().newContext();
    const visit = await context.newPage();
    // When the summary entered the page, on the wall clock requests are timed on.
    await visit.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.querySelector("[data-testid=glance] [data-testid=plan-summary]")) return;
        window.summaryAt = performance.timeOrigin + performance.now();
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    const requests = [];
    visit.on("request", (r) => requests.push(r));
    await visit.goto(linkTo(plan, origin));
    await expect(visit.locator("[data-testid=glance] [data-testid=plan-summary]")).not.toBeEmpty();
    const summaryAt = await visit.evaluate(() => window.summaryAt);
    // What the page had asked for by then (its document included), not what it fetches after.
    const before = [];
    for (const r of requests) {
      await r.response();
      if (r.timing().startTime <= summaryAt) before.push(new URL(r.url()).pathname);
    }
    await context.close();

    expect(before.filter((p) => /planlens-web|part-|worker\.js/.test(p)), "fetched before the summary").toEqual([]);
    expect(before).toContain("/planlens-glance_bg.wasm");
    let bytes = 0;
    const files = before.map((path) => {
      const file = path === "/" ? "index.html" : path.slice(1);
      const size = gzipSync(readFileSync(join(DIST, file)), { level: 6 }).length;
      bytes += size;
      return `${file} ${size}`;
    });
    rows.push({ plan: plan.split("/").pop(), bytes, files });
  }
  for (const r of rows) console.log(`link summary of ${r.plan}: ${r.bytes} B gzip -6 (budget ${BUDGET}): ${r.files.join(", ")}`);
  for (const r of rows) expect(r.bytes, r.plan).toBeLessThanOrEqual(BUDGET);
});

for (const vp of VIEWPORTS) {
  test.describe(`${vp.name} ${vp.width}x${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } });

    for (const plan of PLANS) {
      test(`${plan.split("/").pop()}: the glance says what the app says once it has the plan`, async ({ page, origin }) => {
        const release = await holdApp(page);
        await page.goto(linkTo(plan, origin));
        await expect(glance(page).getByTestId("plan-summary")).not.toBeEmpty();
        // Only the first paint is on the page: the app has not arrived.
        await expect(page.locator(".app")).toHaveCount(0);
        const said = {
          sentence: await glance(page).getByTestId("plan-summary").textContent(),
          versions: await glance(page).getByTestId("plan-versions").textContent(),
          chips: await glance(page).locator(".chips .chip").allTextContents(),
          banners: await glance(page).locator(".banner").allTextContents(),
          verdict: await glance(page).locator(".verdict").allTextContents(),
          rows: await glance(page).getByTestId("glance-row").evaluateAll((rows) => rows.map((r) => [r.dataset.address, r.dataset.action, r.textContent])),
        };
        expect(said.rows.length).toBeGreaterThan(0);
        release();
        await expect(glance(page)).toHaveCount(0);
        await expect(page.getByTestId("plan-summary")).toHaveText(said.sentence);
        expect(await page.getByTestId("plan-versions").textContent()).toBe(said.versions);
        expect(await page.locator(".summary .chips .chip").allTextContents()).toEqual(said.chips);
        expect(await page.locator(".summary .banner").allTextContents()).toEqual(said.banners);
        await expect(page.getByTestId("verdict")).toHaveText(said.verdict[0]);
        // The app's list is virtual: the rows on screen are the first of the glance's.
        const shown = await page.getByTestId("resource-row").evaluateAll((rows) =>
          rows.map((r) => [r.dataset.address, r.dataset.action, r.textContent]).sort((a, b) => a[0].localeCompare(b[0])),
        );
        const carried = new Map(said.rows.map((r) => [r[0], r]));
        for (const row of shown) expect(carried.get(row[0]), row[0]).toEqual(row);
      });
    }

    test("a row chosen on the first paint is the one selected when the app takes over", async ({ page, origin }) => {
      const release = await holdApp(page);
      await page.goto(linkTo(PLANS[0], origin));
      const row = glance(page).getByTestId("glance-row").last();
      const address = await row.getAttribute("data-address");
      await row.click();
      await expect(row).toHaveAttribute("aria-selected", "true");
      release();
      await expect(glance(page)).toHaveCount(0);
      await expect(page.locator(`[data-testid=resource-row][data-address="${address}"]`)).toHaveClass(/selected/);
      await expect(page.getByTestId("diff-address")).toContainText(address);
      if (vp.width < 800) await expect(page.getByTestId("sheet-back")).toBeVisible();
    });
  });
}

test("a link that selects a resource shows it selected on the first paint too", async ({ page, origin }) => {
  const release = await holdApp(page);
  const address = "aws_instance.bastion";
  await page.goto(linkTo(PLANS[0], origin).replace("#", `#r=${encodeURIComponent(address)}&`));
  await expect(glance(page).locator(`[data-testid=glance-row][data-address="${address}"]`)).toHaveAttribute("aria-selected", "true");
  await expect(glance(page).locator(".row.selected")).toHaveCount(1);
  release();
  await expect(glance(page)).toHaveCount(0);
  await expect(page.locator(`[data-testid=resource-row][data-address="${address}"]`)).toHaveClass(/selected/);
});

test("a reader with rules of their own sees no verdict until the app has judged the plan", async ({ page, origin }) => {
  await page.goto("/");
  await page.evaluate(() => localStorage.setItem("planlens:rules", '[[rule]]\nid = "x"\nseverity = "warn"\nmessage = "m"\n'));
  await page.goto("about:blank");
  const release = await holdApp(page);
  await page.goto(linkTo(PLANS[0], origin));
  await expect(glance(page).getByTestId("plan-summary")).not.toBeEmpty();
  await expect(glance(page).locator(".verdict")).toHaveCount(0);
  await expect(glance(page).getByTestId("finding-mark")).toHaveCount(0);
  release();
  await expect(glance(page)).toHaveCount(0);
  await expect(page.getByTestId("verdict")).toBeVisible();
});

test("a link whose label was changed, or that carries no glance, opens without a first paint", async ({ page, origin }) => {
  const link = linkTo(PLANS[0], origin);
  let painted = false;
  await page.exposeFunction("sawGlance", () => (painted = true));
  await page.addInitScript(() => {
    new MutationObserver(() => document.getElementById("glance") && window.sawGlance()).observe(document, { childList: true, subtree: true });
  });
  for (const url of [link.replace("#", "#env=prod&"), link.replace(/&g=[^&]*/, "")]) {
    await page.goto("about:blank");
    await page.goto(url);
    await expect(page.getByTestId("resource-row").first()).toBeVisible();
    expect(painted, url.slice(0, 80)).toBe(false);
  }
});

test("the drifted plan's glance marks drift and findings as the app does", async ({ page, origin }) => {
  test.skip(!sharedFiles(DRIFTED).length, `SKIPPED: ${DRIFTED} is absent`);
  const release = await holdApp(page);
  await page.goto(linkTo(DRIFTED, origin));
  await expect(glance(page).getByTestId("summary-drift-note")).toContainText("changed outside of Terraform");
  await expect(glance(page).locator(".mark-drift").first()).toBeVisible();
  await expect(glance(page).getByTestId("finding-mark").first()).toHaveText("deny");
  release();
  await expect(glance(page)).toHaveCount(0);
});
