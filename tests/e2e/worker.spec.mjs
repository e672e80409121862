// Plans open in a Web Worker (src/worker.rs, src/ui/backend.rs): every real fixture opens there,
// the page says so (`<html data-session="worker">`), the page keeps answering while a large plan
// opens, and Cancel stops a large open and leaves the open plan as it was. At 1400×860 and 390×844.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { REPO, expect, test, REAL, needsShared } from "./harness.mjs";
import { closeDetail, gotoApp, openPlan } from "./helpers.mjs";

const SAMPLE = join(REPO, "samples", "web-app-replace.json");

/** A valid plan of about `mb` megabytes: many small creates. */
function bigPlan(dir, mb, name = "big-plan.json") {
  const one = (i) =>
    `{"address":"aws_s3_object.o[${i}]","mode":"managed","type":"aws_s3_object","name":"o","index":${i},` +
    `"provider_name":"registry.terraform.io/hashicorp/aws","change":{"actions":["create"],"before":null,` +
    `"after":{"bucket":"b","key":"k${i}","content":"${"x".repeat(300)}"},"after_unknown":{"id":true}}}`;
  const n = Math.ceil((mb * 1024 * 1024) / one(0).length);
  const path = join(dir, name);
  const parts = ['{"format_version":"1.2","terraform_version":"1.9.5","resource_changes":['];
  for (let i = 0; i < n; i++) parts.push((i ? "," : "") + one(i));
  parts.push("]}");
  writeFileSync(path, parts.join(""));
  return path;
}

for (const [label, viewport] of [
  ["desktop 1400×860", { width: 1400, height: 860 }],
  ["phone 390×844", { width: 390, height: 844 }],
]) {
  test.describe(`Web Worker, ${label}`, () => {
    test.use({ viewport });

    test("every real fixture opens in a worker, with its summary", async ({ page }) => {
      needsShared(REAL);
      test.setTimeout(240_000);
      await gotoApp(page);
      const names = readdirSync(REAL).filter((n) => n.endsWith(".json")).sort();
      expect(names.length).toBeGreaterThanOrEqual(37);
      for (const name of names) {
        await closeDetail(page);
        await openPlan(page, join(REAL, name));
        await expect.soft(page.locator("html"), name).toHaveAttribute("data-session", "worker");
        await expect.soft(page.getByTestId("plan-summary"), name).not.toBeEmpty();
      }
      // The open plan's worker and one started ahead for the next plan; the others were stopped.
      await expect.poll(() => page.workers().length).toBe(2);
    });

    test("a plan chosen while another opens wins, and its own worker answers its diffs", async ({ page }) => {
      test.setTimeout(120_000);
      const dir = mkdtempSync(join(tmpdir(), "planlens-big-"));
      try {
        const first = bigPlan(dir, 10, "first-plan.json");
        const big = bigPlan(dir, 40);
        await gotoApp(page);
        await openPlan(page, SAMPLE);
        // A plan, and while it opens a larger one: the first finishes first, but the larger one
        // was chosen last, so it is the one shown — and asked for diffs.
        const input = page.locator("input[type=file][data-testid=plan-file]");
        await input.setInputFiles(first);
        await expect(page.getByTestId("load-progress")).toContainText("first-plan.json");
        await input.setInputFiles(big);
        await expect(page.locator(".topbar .doc-name")).toHaveText(basename(big), { timeout: 60_000 });
        await expect(page.getByTestId("load-error")).toHaveCount(0);
        await page.locator("[data-testid=resource-row]").first().click();
        await expect(page.getByTestId("diff-address")).toHaveText("aws_s3_object.o[0]");
        await expect(page.getByTestId("diff-tree").first()).toContainText('key = "k0"');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test("Cancel stops a large open; the open plan stays and the page kept answering", async ({ page }) => {
      test.setTimeout(120_000);
      const dir = mkdtempSync(join(tmpdir(), "planlens-big-"));
      try {
        const big = bigPlan(dir, 120);
        await gotoApp(page);
        await openPlan(page, SAMPLE);
        await page.evaluate(() => {
          window.__longest = 0;
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
          }).observe({ type: "longtask" });
        });
        await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(big);
        const progress = page.getByTestId("load-progress");
        await expect(progress).toBeVisible();
        await expect(progress).toContainText(basename(big));
        const cancel = page.getByTestId("load-cancel");
        // A finger can press it on a phone.
        if (viewport.width < 800) expect((await cancel.boundingBox()).height).toBeGreaterThanOrEqual(40);
        await cancel.click();
        await expect(progress).toHaveCount(0);
        await expect(page.getByTestId("load-error")).toHaveCount(0);
        // The cancelled plan never lands: the sample stays open, and its worker still answers.
        await page.waitForTimeout(2000);
        await expect(page.locator(".topbar .doc-name")).toHaveText(basename(SAMPLE));
        await page.locator("[data-testid=resource-row]").first().click();
        await expect(page.getByTestId("diff-tree").first()).toBeVisible();
        await expect.poll(() => page.workers().length).toBe(2);
        // The page itself never blocked for long while the worker read the file (a loose bound:
        // this is not a timing test, it fails only if the page parsed the plan itself).
        expect(await page.evaluate(() => window.__longest)).toBeLessThan(1000);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
