// Since the last review (issue 29): the open plan compared with the plan last reviewed — its
// file, or the Planlens link the last comment carried. The paragraph says what changed since,
// what is no longer planned is listed, the list's rows that changed are marked and can be the only
// ones shown, and the diff says what changed since. At 1400x860 and 390x844.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan, closeDetail } from "./helpers.mjs";

const FIX = join(REPO, "tests", "fixtures", "compare");

function planlens(args) {
  const bin = join(REPO, "target", "debug", "planlens");
  if (!existsSync(bin)) execFileSync("cargo", ["build", "-q", "--bin", "planlens"], { cwd: REPO });
  return execFileSync(bin, args, { cwd: REPO, encoding: "utf8" });
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(device, () => {
    test.use({ viewport });

    test("compared with the last plan's file: what changed since, marked and filtered", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIX, "after.json"));
      await page.getByTestId("since-open").click();
      await page.getByTestId("since-file").setInputFiles(join(FIX, "before.json"));
      const text = page.getByTestId("since-text");
      await expect(text).toContainText("1 new change");
      await expect(text).toContainText("update");
      await expect(page.getByTestId("since-gone")).toContainText("aws_s3_bucket.delete_bucket");
      // Rows that changed since carry their mark.
      await expect(page.locator("[data-testid=resource-row][data-address='aws_s3_bucket.added_bucket'] [data-testid=since-mark]")).toHaveAttribute("data-since", "new");
      await expect(page.locator("[data-testid=resource-row][data-address='aws_s3_bucket.update_bucket'] [data-testid=since-mark]")).toHaveAttribute("data-since", "action");
      // Only what changed since.
      await page.getByTestId("since-only").click();
      const addresses = await page.locator("[data-testid=resource-row]").evaluateAll((rows) => rows.map((r) => r.dataset.address));
      expect(addresses).toContain("aws_s3_bucket.added_bucket");
      expect(addresses).not.toContain("aws_s3_bucket.noop_bucket");
      // The diff of a resource whose values changed says which, never a secret.
      await page.locator("[data-testid=resource-row][data-address='aws_s3_bucket.create_bucket']").click();
      const since = page.getByTestId("since-diff");
      await expect(since).toContainText("tags.team");
      await expect(since).toContainText("(sensitive value)");
      await page.screenshot({ path: `/tmp/shots/since-${device}.png` });
      await closeDetail(page);
      await page.getByTestId("since-clear").click();
      await expect(page.getByTestId("since-panel")).toHaveCount(0);
    });

    test("the last plan's file goes to the plan's worker as it is (gzip too), and Share carries it", async ({ page }) => {
      // The page hands the File over; the worker reads and decodes it as it reads an opened plan.
      const gz = join(mkdtempSync(join(tmpdir(), "since-")), "before.json.gz");
      writeFileSync(gz, gzipSync(readFileSync(join(FIX, "before.json"))));
      await gotoApp(page);
      await openPlan(page, join(FIX, "after.json"));
      await page.getByTestId("since-open").click();
      await page.getByTestId("since-file").setInputFiles(gz);
      await expect(page.getByTestId("since-text")).toContainText("1 new change");
      await expect(page.getByTestId("since-gone")).toContainText("aws_s3_bucket.delete_bucket");
      // The worker kept the older plan: the full link carries it (was=), and no longer once the
      // comparison is stopped.
      await page.getByTestId("share").click();
      expect(await page.getByTestId("share-full-link").inputValue()).toContain("was=");
      await page.keyboard.press("Escape");
      await page.getByTestId("since-clear").click();
      await page.getByTestId("share").click();
      expect(await page.getByTestId("share-full-link").inputValue()).not.toContain("was=");
    });

    test("the graph marks what changed since, its legend says so, and so does its SVG export", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIX, "after.json"));
      await page.getByTestId("since-open").click();
      await page.getByTestId("since-file").setInputFiles(join(FIX, "before.json"));
      await expect(page.getByTestId("since-text")).toContainText("1 new change");
      await page.getByTestId("tab-graph").click();
      await expect(page.getByTestId("graph-counts")).toHaveText(/resource instance/);
      // Badges on the canvas (a canvas has no DOM: it says how many boxes carry one).
      await expect.poll(async () => Number(await page.getByTestId("graph-canvas").getAttribute("data-since-marked"))).toBeGreaterThanOrEqual(3);
      // The status line says it in words, with what is gone (no node can show that).
      await expect(page.getByTestId("graph-since")).toHaveText(/\d+ resources marked since the last plan · 1 change no longer planned \(not in this graph\)/);
      await page.getByTestId("graph-legend").locator("summary").click();
      await expect(page.getByTestId("legend-since-new")).toContainText("new since the last plan");
      await expect(page.getByTestId("legend-since-action")).toContainText("its action changed");
      await expect(page.getByTestId("legend-since-values")).toContainText("its planned values changed");
      await expect(page.getByTestId("legend-since-gone")).toHaveText("1 change no longer planned (not in this graph)");
      await page.screenshot({ path: `/tmp/shots/since-graph-${device}.png` });
      await page.getByTestId("graph-legend").locator("summary").click();
      // The SVG export carries the badges and the legend's row.
      const exportSvg = page.getByTestId("graph-export-svg");
      if (!(await exportSvg.isVisible())) await page.getByTestId("graph-more").click();
      const [download] = await Promise.all([page.waitForEvent("download"), exportSvg.click()]);
      const svg = readFileSync(await download.path(), "utf8");
      expect(svg).toContain('data-address="aws_s3_bucket.added_bucket"');
      expect(svg).toMatch(/data-address="aws_s3_bucket.added_bucket"[^\n]*data-since="new"/);
      expect(svg).toMatch(/data-address="aws_s3_bucket.update_bucket"[^\n]*data-since="action"/);
      expect(svg).toContain("Since the last plan:");
      const more = page.getByTestId("graph-more");
      if ((await more.isVisible()) && (await more.getAttribute("aria-expanded")) === "true") await more.click();
      // Stopped comparing: no badge, no legend entry, no status.
      await page.getByTestId("since-clear").click();
      await expect(page.getByTestId("graph-since")).toHaveCount(0);
      await expect.poll(async () => page.getByTestId("graph-canvas").getAttribute("data-since-marked")).toBe("0");
      await page.getByTestId("graph-legend").locator("summary").click();
      await expect(page.getByTestId("legend-since-new")).toHaveCount(0);
    });

    test("compared with the link `planlens link` made of the last plan", async ({ page, origin }) => {
      const link = planlens(["link", "--base", `${origin}/`, join(FIX, "before.json")]).trim();
      await gotoApp(page);
      await openPlan(page, join(FIX, "after.json"));
      await page.getByTestId("since-open").click();
      await page.getByTestId("since-link").fill(link);
      await page.getByTestId("since-compare").click();
      await expect(page.getByTestId("since-text")).toContainText("1 new change");
      await expect(page.getByTestId("since-gone")).toContainText("aws_s3_bucket.delete_bucket");
    });

    test("a link that carries both plans reopens the comparison, and Share keeps both", async ({ page, origin }) => {
      const older = planlens(["link", "--base", `${origin}/`, join(FIX, "before.json")]).trim();
      const both = planlens(["link", "--base", `${origin}/`, "--since", older, join(FIX, "after.json")]).trim();
      expect(both).toContain("was=");
      await page.goto(both);
      await expect(page.getByTestId("since-text")).toContainText("1 new change");
      await expect(page.locator("[data-testid=resource-row][data-address='aws_s3_bucket.added_bucket'] [data-testid=since-mark]")).toHaveAttribute("data-since", "new");
      // The Share dialog's full link carries the older plan again.
      await page.getByTestId("share").click();
      const full = await page.getByTestId("share-full-link").inputValue();
      expect(full).toContain("was=");
    });
  });
}

// Sets (a roll-up of several plans) compared with the last review's set, plan by plan.

/** Writes a fixture of tests/fixtures/compare as `side/name` in a new temporary folder. */
function setWriter() {
  const dir = mkdtempSync(join(tmpdir(), "since-set-"));
  return (side, name, file) => {
    const path = join(dir, side, name);
    mkdirSync(join(dir, side), { recursive: true });
    writeFileSync(path, readFileSync(join(FIX, file)));
    return path;
  };
}
for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`${device} roll-up`, () => {
    test.use({ viewport });

    test("a roll-up compared with the last review's plans: each row says what changed since", async ({ page }) => {
      const write = setWriter();
      const older = [write("old", "app.json", "before.json"), write("old", "dns.json", "after.json"), write("old", "cache.json", "before.json")];
      const newer = [write("new", "app.json", "after.json"), write("new", "dns.json", "after.json"), write("new", "db.json", "before.json")];
      await gotoApp(page);
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(newer);
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(3);
      await page.getByTestId("rollup-since-open").click();
      await page.getByTestId("rollup-since-files").setInputFiles(older);
      await expect(page.getByTestId("rollup-since-text")).toHaveText("Since the last review: 1 new plan, 1 plan gone, 1 changed, 1 unchanged.");
      await expect(page.getByTestId("rollup-since-gone")).toContainText("cache");
      const since = (name) => page.locator(`[data-testid=fleet-row][data-id^='${name}'] [data-testid=rollup-since]`);
      await expect(since("app")).toHaveAttribute("data-since", "changed");
      await expect(since("app")).toContainText(/\d+ changes since/);
      await expect(since("dns")).toHaveText("unchanged since");
      await expect(since("db")).toHaveText("new plan since the last review");
      await page.screenshot({ path: `/tmp/shots/since-rollup-${device}.png`, fullPage: true });
      // Only plans that changed since.
      await page.getByTestId("rollup-since-only").click();
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(2);
      await expect(since("dns")).toHaveCount(0);
      // A row's plan opens compared with its namesake in the last review's set.
      await page.locator("[data-testid=fleet-row][data-id^='app'] [data-testid=fleet-row-head]").click();
      await expect(page.getByTestId("since-text")).toContainText("1 new change");
      await expect(page.locator("[data-testid=resource-row][data-address='aws_s3_bucket.added_bucket'] [data-testid=since-mark]")).toHaveAttribute("data-since", "new");
    });

    test("a roll-up compared with the set link of the last review; a redacted roll-up link says why not", async ({ page, origin }) => {
      const write = setWriter();
      const older = [write("old", "app.json", "before.json"), write("old", "dns.json", "after.json")];
      const newer = [write("new", "app.json", "after.json"), write("new", "dns.json", "after.json")];
      const link = planlens(["link", "--base", `${origin}/`, ...older]).trim();
      expect(link).toContain("s=");
      await gotoApp(page);
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(newer);
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(2);
      await page.getByTestId("rollup-since-open").click();
      await page.getByTestId("rollup-since-link").fill(`${origin}/#ru=abc`);
      await page.getByTestId("rollup-since-compare").click();
      await expect(page.getByTestId("rollup-since-error")).toContainText("carries no plans");
      await page.getByTestId("rollup-since-link").fill(link);
      await page.getByTestId("rollup-since-compare").click();
      await expect(page.getByTestId("rollup-since-text")).toHaveText("Since the last review: 0 new plans, 0 plans gone, 1 changed, 1 unchanged.");
    });
  });
}
