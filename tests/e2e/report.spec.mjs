// A report file (`planlens report PLAN.json -o report.html`) opened from disk (file://): the app
// and the plan are inside, so it must make no request at all — every request the browser makes is
// recorded (and blocked) by a route on the whole context, and none may go anywhere but the file
// itself and the data: (or blob:) URLs the page makes. The plan's summary, list and a diff must render,
// the fragment's view must apply, and nothing of a secret may reach the page.
//
// The reports are written by the CLI (target/debug/planlens, built here if `cargo test` has not)
// from the app in DIST (dist/, or PLANLENS_DIST), as a CI job would.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { test, expect, REPO, DIST, REAL, needsShared, sharedFiles } from "./harness.mjs";
import { closeDetail } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const REAL_PLAN = join(REAL, "policy-engine__fv1_1_mixed_changes_drift.json");
const SAMPLE = join(REPO, "samples", "web-app-replace.json");
const RULES = join(FIXTURES, "rules", "warn_only.toml");

let out;
/** `file://` address of the report written for each plan path. */
const reports = new Map();

test.beforeAll(() => {
  // A no-op when `cargo test` already built the CLI from this source; a build may take minutes.
  test.setTimeout(600_000);
  execFileSync("cargo", ["build", "--quiet", "--bin", "planlens"], { cwd: REPO, stdio: "inherit" });
  out = mkdtempSync(join(tmpdir(), "planlens-report-"));
  const plans = [
    SAMPLE,
    join(FIXTURES, "share_secrets.json"),
    join(FIXTURES, "tf0_14_unmarked_secrets.json"),
  ];
  plans.push(...sharedFiles(REAL_PLAN));
  for (const plan of plans) {
    const file = join(out, `${basename(plan)}.html`);
    execFileSync(join(REPO, "target", "debug", "planlens"), ["report", plan, "-o", file, "--app", DIST], {
      cwd: REPO,
      stdio: ["ignore", "ignore", "pipe"],
    });
    reports.set(plan, pathToFileURL(file).href);
  }
  // With a rule file and a label, as `planlens link` takes them.
  const file = join(out, "with-rules.html");
  execFileSync(
    join(REPO, "target", "debug", "planlens"),
    ["report", SAMPLE, "-o", file, "--app", DIST, "--rules", RULES, "--label", "environment=prod"],
    { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] },
  );
  reports.set("with-rules", pathToFileURL(file).href);
});

test.afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/**
 * Opens the report of `plan` from disk with every request of the context recorded and blocked
 * (but the file itself); returns the recorded addresses. The harness checks, after the test, that
 * there were no uncaught errors and no console errors (a Content-Security-Policy violation is one).
 */
async function openReport(page, pageLog, plan, hash = "", key = plan) {
  const file = reports.get(key);
  pageLog.allowed.push(file, "blob:", "data:");
  const routed = [];
  await page.context().route("**/*", (route) => {
    const url = route.request().url();
    routed.push(url);
    return url === file ? route.continue() : route.abort();
  });
  await page.goto(file + hash);
  await expect(page.getByTestId("plan-summary")).toBeVisible();
  await expect(page.locator(".topbar .doc-name")).toHaveText(basename(plan));
  return { file, routed };
}

/** Every request of the context so far: only the report files opened, blob: and data: URLs. */
function expectNoRequest(pageLog, routed) {
  const files = [...reports.values()];
  const own = (u) => files.includes(u) || u.startsWith("blob:") || u.startsWith("data:");
  expect(routed.filter((u) => !own(u)), "requests routed").toEqual([]);
  expect(pageLog.requests.filter((u) => !own(u)), "requests made").toEqual([]);
}

const row = (page, address) => page.locator(`[data-testid=resource-row][data-address="${address}"]`);

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(device, () => {
    test.use({ viewport });

    test("a report opens from disk with no request: summary, list and a diff", async ({ page, pageLog }) => {
      const plan = SAMPLE;
      const { file, routed } = await openReport(page, pageLog, plan);
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
      expect(await page.getByTestId("resource-row").count()).toBeGreaterThan(8);
      await row(page, "aws_instance.bastion").click();
      await expect(page.getByTestId("diff-address")).toHaveText("aws_instance.bastion");
      await expect(page.getByTestId("diff-tree").first()).toContainText("ami");
      // The sensitive password of the sample is not in the page (its payload was stripped).
      await closeDetail(page);
      await row(page, "module.db.aws_db_instance.this").click();
      await page.getByTestId("show-unchanged-attrs").first().check();
      await expect(page.getByTestId("diff-tree").first()).toContainText("password");
      await expect(page.getByTestId("diff-tree").first()).toContainText("(sensitive value)");
      expect(await page.content()).not.toContain("SAMPLE-SECRET");
      // The app's files came from the page: the glue and the worker script are data: URLs, and
      // the worker that opened the plan runs (a worker that fails to start leaves the page to
      // open the plan itself, which would hide a report whose worker cannot start).
      expect(await page.evaluate(() => window.planlensGlueUrl)).toMatch(/^data:text\/javascript;base64,/);
      expect(await page.evaluate(() => window.planlensWorkerUrl)).toMatch(/^data:text\/javascript;base64,/);
      // (The open plan's worker, and one started ahead for the next plan.)
      await expect(page.locator("html")).toHaveAttribute("data-session", "worker");
      const workers = page.workers();
      expect(workers.length).toBeGreaterThanOrEqual(1);
      expect(workers.every((w) => w.url().startsWith("data:text/javascript;base64,"))).toBe(true);
      expect(await workers[0].evaluate(() => typeof self.postMessage)).toBe("function");
      // Once the plan is open the address keeps the view, as for a link.
      await expect.poll(() => page.evaluate(() => location.hash)).toContain("r=module.db.aws_db_instance.this");
      expectNoRequest(pageLog, routed);
    });

    test("a report's fragment sets the view: tab and selection", async ({ page, pageLog }) => {
      const plan = SAMPLE;
      const { file, routed } = await openReport(page, pageLog, plan, "#r=aws_instance.bastion");
      await expect(page.getByTestId("diff-address")).toHaveText("aws_instance.bastion");
      await closeDetail(page);
      await page.goto(file + "#tab=graph");
      await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
      await expect(page.locator(".topbar .doc-name")).toHaveText("web-app-replace.json");
      // The landing page (the logo) offers no samples: they are files of the site, not of the report.
      await page.locator(".topbar a.brand").click();
      await expect(page.getByTestId("back-to-plan")).toBeVisible();
      await expect(page.getByTestId("sample-web-app-replace")).toBeHidden();
      await page.getByTestId("back-to-plan").click();
      await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
      expectNoRequest(pageLog, routed);
    });

    test("a report's rules and label are used, as a link's", async ({ page, pageLog }) => {
      const { routed } = await openReport(page, pageLog, SAMPLE, "#tab=rules", "with-rules");
      const check = async () => {
        await expect(page.locator(".summary").getByTestId("verdict")).toHaveAttribute("data-verdict", "warn");
        await expect(page.getByTestId("rules-from-link")).toBeVisible();
        await expect(page.getByTestId("rules-environment")).toHaveValue("prod");
        expect(await page.getByTestId("link-rules").textContent()).toBe(readFileSync(RULES, "utf8"));
      };
      await check();
      // A reload reads the view the address now carries, the report's plan from the page.
      await expect.poll(() => page.evaluate(() => location.hash)).toContain("rules=");
      await page.reload();
      await check();
      expectNoRequest(pageLog, routed);
    });

    test("a report of a plan with secrets shows none of them", async ({ page, pageLog }) => {
      for (const [name, address] of [
        ["share_secrets.json", null],
        ["tf0_14_unmarked_secrets.json", "aws_db_instance.main"],
      ]) {
        const plan = join(FIXTURES, name);
        const { file, routed } = await openReport(page, pageLog, plan);
        const first = address ?? (await page.getByTestId("resource-row").first().getAttribute("data-address"));
        await row(page, first).click();
        await expect(page.getByTestId("diff-tree").first()).toBeVisible();
        await page.getByTestId("show-unchanged-attrs").first().check();
        if (address) await expect(page.getByTestId("diff-tree").first()).toContainText("(sensitive value)");
        expect(await page.locator("body").innerText(), name).not.toContain("SECRET-");
        expect(await page.content(), name).not.toContain("SECRET-");
        // The file itself carries the plan as a full link does: stripped.
        expect(readFileSync(new URL(file), "utf8"), name).not.toContain("SECRET-");
        expectNoRequest(pageLog, routed);
        await page.context().unrouteAll();
      }
    });

    test("a report of a real plan", async ({ page, pageLog }) => {
      // CI has ../shared beside the clone: there a missing real plan fails the test.
      needsShared(REAL_PLAN);
      const { file, routed } = await openReport(page, pageLog, REAL_PLAN);
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to add, 1 to change, 1 to destroy.");
      await row(page, "aws_s3_bucket.update_bucket").click();
      await expect(page.getByTestId("diff-address")).toHaveText("aws_s3_bucket.update_bucket");
      await expect(page.getByTestId("diff-tree").first()).toBeVisible();
      expectNoRequest(pageLog, routed);
    });
  });
}
