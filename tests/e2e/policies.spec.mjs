// Rego policies in the Rules tab (issue 15): v1 and v0 files added through the file input, by drop
// and by paste; how each file was read; findings beside the rules' with the same verdict and
// findings as `planlens check --policy` on the same plan; a policy OPA refuses to compile; a
// runaway policy stopped by the time limit, the page staying responsive; the policies' tests.
// The engine is a lazily loaded part: nothing of it is fetched before the first policy.
// At 1400x860 and 390x844.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const POLICIES = join(REPO, "tests", "fixtures", "policies");
const SAMPLE = join(REPO, "samples", "web-app-replace.json");
const CONFTEST_V1 = ["guardrails.rego", "lib.rego", "guardrails_test.rego"].map((f) => join(POLICIES, "conftest_v1", f));
const SPACELIFT_V0 = join(POLICIES, "spacelift_v0", "plan.rego");

const VIEWPORTS = [
  { name: "desktop", width: 1400, height: 860 },
  { name: "phone", width: 390, height: 844 },
];

/** `planlens check --format json` on the sample with `args`: its findings and exit code. */
function cli(args) {
  const bin = join(REPO, "target", "debug", "planlens");
  try {
    return { code: 0, out: JSON.parse(execFileSync(bin, ["check", SAMPLE, "--format", "json", ...args], { cwd: REPO, stdio: ["ignore", "pipe", "ignore"] }).toString()) };
  } catch (e) {
    return { code: e.status, out: e.stdout && e.stdout.length ? JSON.parse(e.stdout.toString()) : null };
  }
}

test.beforeAll(() => {
  // A no-op when `cargo test` already built the CLI from this source.
  test.setTimeout(600_000);
  execFileSync("cargo", ["build", "--quiet", "--bin", "planlens"], { cwd: REPO, stdio: "inherit" });
});

async function rulesTab(page) {
  await page.getByRole("tab", { name: /Rules/ }).click();
  await expect(page.getByTestId("policies")).toBeVisible();
}

for (const vp of VIEWPORTS) {
  test.describe(`${vp.name} ${vp.width}x${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } });

    test("v1 conftest policies: loaded on first use, read as conftest, same verdict and findings as the CLI", async ({ page }) => {
      const parts = [];
      page.context().on("request", (r) => {
        if (/\/part-rego/.test(r.url())) parts.push(r.url());
      });
      await gotoApp(page);
      await openPlan(page, SAMPLE);
      await rulesTab(page);
      expect(parts, "the engine is not fetched before a policy is added").toEqual([]);
      await page.getByTestId("policy-files").setInputFiles(CONFTEST_V1);
      await expect(page.getByTestId("policy-status")).toContainText("evaluated in", { timeout: 30_000 });
      expect(parts.some((u) => u.endsWith("part-rego_bg.wasm")), "the engine was fetched").toBe(true);
      const files = page.getByTestId("policy-file");
      await expect(files).toHaveCount(3);
      await expect(files.filter({ hasText: "guardrails.rego" }).getByTestId("policy-shape-read")).toContainText("conftest input · Rego v1 · package main");
      await expect(files.filter({ hasText: "guardrails_test.rego" }).getByTestId("policy-shape-read")).toContainText("test file");

      // The CLI on the same plan and policies: the same verdict, the same policy messages.
      const { code, out } = cli(CONFTEST_V1.flatMap((f) => ["--policy", f]));
      const verdict = { 0: "pass", 1: "warn", 2: "needs-approval", 4: "planning-failed" }[code];
      await expect(page.getByTestId("verdict").first()).toHaveAttribute("data-verdict", verdict);
      const expected = out.findings.filter((f) => f.rule.startsWith("data.")).map((f) => f.message).sort();
      expect(expected.length, "the policies find something on the sample").toBeGreaterThan(0);
      await expect.poll(async () => (await page.getByTestId("rules-panel").innerText()).length).toBeGreaterThan(0);
      const panel = await page.getByTestId("rules-panel").innerText();
      for (const message of expected) expect(panel, `the page lists "${message}"`).toContain(message);
      await expect(page.getByTestId("rules-counts")).toContainText(`${out.findings.length} finding`);

      // Kept across a reload (this browser only), and evaluated again from the cached engine.
      await page.reload();
      await expect(page.getByTestId("plan-summary")).toBeVisible();
      await rulesTab(page);
      await expect(page.getByTestId("policy-file")).toHaveCount(3);
      await expect(page.getByTestId("policy-status")).toContainText("evaluated in", { timeout: 30_000 });

      // The policies' tests, on request: PASS or FAIL each, as `planlens check --verify`.
      await page.getByTestId("policy-run-tests").click();
      await expect(page.getByTestId("policy-test").first()).toBeVisible({ timeout: 30_000 });
      // `--verify` exits 1 when a test fails (the fixture has one that does); its JSON is the same.
      let verify;
      try {
        verify = execFileSync(join(REPO, "target", "debug", "planlens"), ["check", "--verify", "--format", "json", ...CONFTEST_V1.flatMap((f) => ["--policy", f])], { cwd: REPO, stdio: ["ignore", "pipe", "ignore"] }).toString();
      } catch (e) {
        verify = e.stdout.toString();
      }
      const tests = JSON.parse(verify).tests;
      expect(tests.length).toBeGreaterThan(0);
      await expect(page.getByTestId("policy-test")).toHaveCount(tests.length);
      for (const t of tests) {
        await expect(page.getByTestId("policy-test").filter({ hasText: t.rule })).toHaveAttribute("data-passed", String(t.passed));
      }

      // Removing every file goes back to the rules alone.
      while ((await page.getByTestId("policy-remove").count()) > 0) await page.getByTestId("policy-remove").first().click();
      await expect(page.getByTestId("policy-status")).toHaveCount(0);
      const alone = cli([]);
      await expect(page.getByTestId("rules-counts")).toContainText(`${alone.out.findings.length} finding`);
    });

    test("a v0 Spacelift policy, pasted: Spacelift input with the environment as a stack label", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, SAMPLE);
      await rulesTab(page);
      await page.getByTestId("rules-environment").fill("prod");
      await page.locator(".policy-paste summary").click();
      await page.getByTestId("policy-paste-name").fill("plan");
      await page.getByTestId("policy-paste-text").fill(readFileSync(SPACELIFT_V0, "utf8"));
      await page.getByTestId("policy-paste-add").click();
      await expect(page.getByTestId("policy-status")).toContainText("evaluated in", { timeout: 30_000 });
      await expect(page.getByTestId("policy-shape-read")).toContainText("Spacelift input · Rego v0 · package spacelift");
      const { code, out } = cli(["--policy", SPACELIFT_V0, "--label", "environment=prod"]);
      const verdict = { 0: "pass", 1: "warn", 2: "needs-approval", 4: "planning-failed" }[code];
      await expect(page.getByTestId("verdict").first()).toHaveAttribute("data-verdict", verdict);
      const panel = await page.getByTestId("rules-panel").innerText();
      for (const f of out.findings.filter((f) => f.rule.startsWith("data."))) expect(panel).toContain(f.message);
      // With env:prod the large-instance rule says nothing.
      expect(panel).not.toContain("Large instances need the env:prod label");
    });

    test("a policy OPA refuses to compile: its error with file, line and column, and no verdict", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, SAMPLE);
      await rulesTab(page);
      await page.getByTestId("policy-files").setInputFiles(join(POLICIES, "refused", "unsafe_not.rego"));
      const errors = page.getByTestId("policy-errors");
      await expect(errors).toBeVisible({ timeout: 30_000 });
      await expect(errors).toContainText(/unsafe_not\.rego:\d+:\d+/);
      await expect(errors).toContainText(/unsafe/);
      await expect(page.getByTestId("verdict").first()).toHaveAttribute("data-verdict", "error");
      await expect(page.getByTestId("verdict").first()).toHaveText(/policies have errors/);
    });

    test("a runaway policy is stopped with a message and the page stays responsive", async ({ page }) => {
      test.setTimeout(90_000);
      await gotoApp(page);
      await openPlan(page, SAMPLE);
      await rulesTab(page);
      await page.getByTestId("policy-files").setInputFiles(join(POLICIES, "runaway", "loop.rego"));
      await expect(page.getByTestId("policy-status")).toContainText("Evaluating", { timeout: 30_000 });
      // While it runs, the page answers: another tab opens at once.
      await page.getByRole("tab", { name: /Resources/ }).click();
      await expect(page.getByTestId("resource-row").first()).toBeVisible({ timeout: 2_000 });
      await rulesTab(page);
      const errors = page.getByTestId("policy-errors");
      await expect(errors).toBeVisible({ timeout: 60_000 });
      await expect(errors).toContainText(/time limit|Stopped after/i);
      // Removed, the rules alone decide again.
      await page.getByTestId("policy-remove").click();
      await expect(page.getByTestId("policy-errors")).toHaveCount(0);
      await expect(page.getByTestId("verdict").first()).toHaveAttribute("data-verdict", "needs-approval");
    });
  });
}

test("Rego files dropped on the page join the policies instead of opening as a plan", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  await gotoApp(page);
  await openPlan(page, SAMPLE);
  const text = readFileSync(join(POLICIES, "conftest_v1", "guardrails.rego"), "utf8");
  const lib = readFileSync(join(POLICIES, "conftest_v1", "lib.rego"), "utf8");
  const dt = await page.evaluateHandle(([a, b]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([a], "guardrails.rego", { type: "text/plain" }));
    dt.items.add(new File([b], "lib.rego", { type: "text/plain" }));
    return dt;
  }, [text, lib]);
  await page.dispatchEvent(".app", "drop", { dataTransfer: dt });
  await expect(page.getByTestId("policies")).toBeVisible();
  await expect(page.getByTestId("policy-file")).toHaveCount(2);
  await expect(page.locator(".topbar .doc-name")).toHaveText("web-app-replace.json");
  await expect(page.getByTestId("policy-status")).toContainText("evaluated in", { timeout: 30_000 });
});
