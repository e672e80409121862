// Guardrail rules in a real browser: the verdict and findings of the built-in pack (the same as
// `planlens check` gives, for every real fixture), findings that jump to the list and the graph,
// the environment label, and the rule editor: live verdict, errors with line and column, kept in
// localStorage, exported and imported. Expected findings: tests/fixtures/rules/README.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, expect, REPO, REAL, needsShared } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const RULES = join(FIXTURES, "rules");

/** The verdict badge of the summary strip (the Rules tab repeats it). */
const verdict = (page) => page.locator(".summary").getByTestId("verdict");
const finding = (page, rule) => page.locator(`[data-testid=finding][data-rule="${rule}"]`);

/** The CLI's verdict and findings for a file: the browser must give the same. */
function cliCheck(path) {
  const bin = join(REPO, "target", "debug", "planlens");
  if (!existsSync(bin)) execFileSync("cargo", ["build", "-q", "--bin", "planlens"], { cwd: REPO });
  let out;
  try {
    out = execFileSync(bin, ["check", "--format", "json", path], { encoding: "utf8" });
  } catch (e) {
    out = e.stdout; // exit codes 1, 2 and 4 are verdicts, not failures
  }
  return JSON.parse(out);
}

test.describe("Guardrail rules", () => {
  test("every real file gets the same verdict and findings as planlens check", async ({ page }) => {
    needsShared(REAL);
    test.setTimeout(240_000);
    await gotoApp(page);
    const names = readdirSync(REAL).filter((n) => n.endsWith(".json")).sort();
    for (const name of names) {
      const expected = cliCheck(join(REAL, name));
      await openPlan(page, join(REAL, name));
      await expect(verdict(page), name).toHaveAttribute("data-verdict", expected.verdict);
      await page.getByTestId("tab-rules").click();
      if (expected.findings.length === 0) {
        await expect(page.getByTestId("finding"), name).toHaveCount(0);
        continue;
      }
      const shown = await page.getByTestId("finding").evaluateAll((els) =>
        els.map((e) => [e.dataset.rule, e.querySelector(".finding-message").textContent]),
      );
      expect(shown, name).toEqual(expected.findings.map((f) => [f.rule, f.message]));
    }
  });

  test("findings jump to their resource in the list and the graph", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(RULES, "guardrails.json"));
    await expect(verdict(page)).toHaveText("needs approval");
    // Flagged rows carry a mark in the list.
    const row = (a) => page.locator(`[data-testid=resource-row][data-address="${a.replace(/"/g, '\\"')}"]`);
    await expect(row("aws_instance.api").getByTestId("finding-mark")).toHaveText("deny");
    await expect(row('module.sg["a"].aws_security_group.this').getByTestId("finding-mark")).toHaveText("warn");
    await expect(row("data.aws_ami.ubuntu").getByTestId("finding-mark")).toHaveCount(0);

    await verdict(page).click();
    await expect(page.getByTestId("tab-rules")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("finding")).toHaveCount(7);
    await expect(page.getByTestId("rules-counts")).toContainText("5 deny · 1 warn · 1 info");
    // The sensitive password is never in a finding.
    await expect(page.getByTestId("findings")).not.toContainText("SECRET-DB-PASSWORD-42");

    await finding(page, "large-instance-outside-prod").click();
    await expect(page.getByTestId("tab-resources")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("diff-address")).toHaveText("aws_instance.api");
    await expect(row("aws_instance.api")).toHaveClass(/selected/);

    await page.getByTestId("tab-rules").click();
    await finding(page, "security-group-changed").getByTestId("finding-graph").click();
    await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("diff-address")).toHaveText('module.sg["a"].aws_security_group.this');

    // Saying the plan is for prod lifts the instance-type rule.
    await page.getByTestId("tab-rules").click();
    await expect(page.getByTestId("rules-environment")).toHaveAttribute("placeholder", "from the plan: staging");
    await page.getByTestId("rules-environment").fill("prod");
    await expect(finding(page, "large-instance-outside-prod")).toHaveCount(0);
    await expect(page.getByTestId("finding")).toHaveCount(6);
  });

  test("editing rules changes the verdict live; errors name line, column and rule; rules persist", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "forget.json"));
    await expect(verdict(page)).toHaveAttribute("data-verdict", "pass");
    await page.getByTestId("tab-rules").click();
    await expect(page.getByTestId("rules-ok")).toHaveText("7 rules: 7 built-in, 0 yours.");

    const editor = page.getByTestId("rules-text");
    await editor.fill(
      '[[rule]]\nid = "no-forget"\nseverity = "deny"\nactions = ["forget"]\nmessage = "Forgetting {address}"\n',
    );
    await expect(verdict(page)).toHaveAttribute("data-verdict", "needs-approval");
    await expect(finding(page, "no-forget")).toHaveCount(2);
    await expect(page.getByTestId("rules-ok")).toHaveText("8 rules: 7 built-in, 1 yours.");

    // A typo: the verdict is withheld and the error says where.
    await editor.fill(
      '[[rule]]\nid = "no-forget"\nseverity = "deny"\nactoins = ["forget"]\nmessage = "Forgetting {address}"\n',
    );
    await expect(verdict(page)).toHaveAttribute("data-verdict", "error");
    await expect(verdict(page)).toHaveText("rules have errors");
    await expect(page.getByTestId("rules-not-evaluated")).toBeVisible();
    await expect(page.getByTestId("rule-error")).toHaveCount(1);
    await expect(page.getByTestId("rule-error")).toContainText('line 4, column 1 (rule "no-forget"): unknown key "actoins"');
    // Clicking the error puts the caret there.
    await page.getByTestId("rule-error").click();
    const caret = await editor.evaluate((ta) => ta.selectionStart);
    expect(caret).toBe('[[rule]]\nid = "no-forget"\nseverity = "deny"\n'.length);

    // Fixed again; the rules survive a reload (localStorage), the plan too (sessionStorage).
    await editor.fill('[[rule]]\nid = "no-forget"\nseverity = "warn"\nactions = ["forget"]\nmessage = "Forgetting {address}"\n');
    await expect(verdict(page)).toHaveAttribute("data-verdict", "warn");
    await page.reload();
    await expect(verdict(page)).toHaveAttribute("data-verdict", "warn");
    await page.getByTestId("tab-rules").click();
    await expect(page.getByTestId("rules-text")).toHaveValue(/severity = "warn"/);

    // Export gives the file; Import replaces the rules.
    const download = page.waitForEvent("download");
    await page.getByTestId("rules-export").click();
    const file = await (await download).path();
    expect(readFileSync(file, "utf8")).toContain('id = "no-forget"');
    await page.getByTestId("rules-import").setInputFiles(join(RULES, "warn_only.toml"));
    await expect(page.getByTestId("rules-text")).toHaveValue(/include_builtin = false/);
    await expect(page.getByTestId("rules-ok")).toHaveText("1 rule: 0 built-in (turned off), 1 yours.");
    await openPlan(page, join(RULES, "guardrails.json"));
    await expect(verdict(page)).toHaveAttribute("data-verdict", "warn");
    // Cleared: the built-in pack alone again.
    await page.getByTestId("tab-rules").click();
    await page.getByTestId("rules-clear").click();
    await expect(verdict(page)).toHaveAttribute("data-verdict", "needs-approval");
  });
});

/** A plan that deletes `deletes` buckets and updates `groups` security groups, as a temp file. */
function scalePlan(deletes, groups) {
  const change = (address, type, actions, before, after) => ({
    address, mode: "managed", type, name: address.split(".")[1],
    provider_name: "registry.terraform.io/hashicorp/aws",
    change: { actions, before, after },
  });
  const changes = [];
  for (let i = 0; i < deletes; i++) {
    changes.push(change(`aws_s3_bucket.b${String(i).padStart(3, "0")}`, "aws_s3_bucket", ["delete"], {}, null));
  }
  for (let i = 0; i < groups; i++) {
    changes.push(change(`aws_security_group.g${i}`, "aws_security_group", ["update"], { name: "a" }, { name: "b" }));
  }
  const dir = mkdtempSync(join(tmpdir(), "planlens-scale-"));
  const path = join(dir, "many-destroys.json");
  writeFileSync(path, JSON.stringify({ format_version: "1.2", terraform_version: "1.9.5", resource_changes: changes }));
  return path;
}

const tabCount = (page, tab) => page.getByTestId(`tab-${tab}`).locator(".tab-count");

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`Planning status and findings at scale (${device})`, () => {
    test.use({ viewport });

    test("a plan log with only an error: planning failed, the diagnostic in full, never a pass", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "plan_log_error_only.jsonl"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Planning failed: Reference to undeclared resource.");
      await expect(verdict(page)).toHaveAttribute("data-verdict", "planning-failed");
      await expect(verdict(page)).toHaveText("planning failed");
      await expect(page.locator(".verdict-pass")).toHaveCount(0);
      await expect(page.locator("body")).not.toContainText("No changes");
      await expect(page.getByTestId("banner-errored")).toBeVisible();
      // No question whether the file was made by terraform plan -json: it was.
      await expect(page.getByTestId("load-warning")).toHaveCount(0);

      const d = page.getByTestId("log-diagnostic");
      await expect(d).toHaveCount(1);
      await expect(d).toHaveAttribute("data-severity", "error");
      await expect(d).toBeVisible();
      await expect(d).toContainText("Reference to undeclared resource (network.tf:12)");
      await expect(d).toContainText('in resource "aws_subnet" "private"');
      await expect(d.getByTestId("diag-detail")).toHaveText(
        'A managed resource "aws_vpc" "mian" has not been declared in the root module.',
      );
      await expect(d.getByTestId("diag-snippet")).toHaveText("12  vpc_id     = aws_vpc.mian.id");
      await expect(d.getByTestId("diag-highlight")).toHaveText("aws_vpc.mian");
      await expect(d.getByTestId("diag-highlight")).toBeVisible();
      await expect(page.getByTestId("list-empty")).toContainText("Planning failed before Terraform planned any change");

      await page.getByTestId("tab-rules").click();
      await expect(page.getByTestId("rules-planning")).toContainText("Planning failed: Reference to undeclared resource.");
      await expect(page.getByTestId("rules-planning")).toBeVisible();
    });

    test("an errored show -json plan is planning failed although its partial plan has a deny", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "plan_errored.json"));
      await expect(verdict(page)).toHaveAttribute("data-verdict", "planning-failed");
      await expect(page.getByTestId("plan-summary")).toContainText("Planning failed");
      await expect(page.getByTestId("banner-errored")).toContainText("terraform show -json leaves them out");
      await page.getByTestId("tab-rules").click();
      await expect(finding(page, "destroy-needs-approval")).toHaveCount(1);
      await expect(page.getByTestId("rules-planning")).toContainText("partial plan");
    });

    test("an incomplete plan says so and is not a pass", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "deferred.json"));
      await expect(verdict(page)).toHaveAttribute("data-verdict", "incomplete");
      await expect(verdict(page)).toHaveText("plan incomplete");
      await expect(page.getByTestId("banner-incomplete")).toHaveText(
        "Plan incomplete: 3 changes were deferred to a later plan; plan again after applying this one.",
      );
    });

    test("many destroys: the plan-level finding first, grouped by rule, counts that agree, filters", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, scalePlan(150, 3));
      await expect(verdict(page)).toHaveAttribute("data-verdict", "needs-approval");
      // One count everywhere: the tab badge, the panel heading, the groups.
      await expect(tabCount(page, "rules")).toHaveText("154");
      await page.getByTestId("tab-rules").click();
      await expect(page.getByTestId("rules-counts")).toContainText("154 findings: 151 deny · 3 warn · 0 info");
      const groups = page.getByTestId("finding-group");
      await expect(groups).toHaveCount(3);
      expect(await groups.evaluateAll((els) => els.map((e) => [e.dataset.rule, +e.dataset.count]))).toEqual([
        ["too-many-destroys", 1],
        ["destroy-needs-approval", 150],
        ["security-group-changed", 3],
      ]);
      await expect(groups.nth(1).getByTestId("finding-group-count")).toHaveText("— 150 deny");
      const first = page.getByTestId("finding").first();
      await expect(first).toHaveAttribute("data-rule", "too-many-destroys");
      await expect(first).toContainText("More than 5 destroys in one plan (150)");
      await expect(first).toBeInViewport();

      // A long group shows a page, then more on demand.
      const destroys = groups.nth(1).getByTestId("finding");
      await expect(destroys).toHaveCount(100);
      await groups.nth(1).getByTestId("findings-more").click();
      await expect(destroys).toHaveCount(150);
      await expect(groups.nth(1).getByTestId("findings-more")).toHaveCount(0);
      // Folding a group hides its findings.
      await groups.nth(1).getByTestId("finding-group-head").click();
      await expect(destroys).toHaveCount(0);
      await groups.nth(1).getByTestId("finding-group-head").click();

      // Filters: severity, rule, text.
      await page.getByTestId("findings-sev-warn").click();
      await expect(groups).toHaveCount(1);
      await expect(groups.first()).toHaveAttribute("data-rule", "security-group-changed");
      await expect(page.getByTestId("finding")).toHaveCount(3);
      await expect(page.getByTestId("findings-shown")).toContainText("3 of 154 findings match");
      await page.getByTestId("findings-sev-all").click();
      await page.getByTestId("findings-rule").selectOption("too-many-destroys");
      await expect(page.getByTestId("finding")).toHaveCount(1);
      await page.getByTestId("findings-rule").selectOption("");
      await page.getByTestId("findings-search").fill("b042");
      await expect(page.getByTestId("finding")).toHaveCount(1);
      await expect(page.getByTestId("finding")).toHaveAttribute("data-address", "aws_s3_bucket.b042");
      await page.getByTestId("findings-reset").click();
      await expect(page.getByTestId("findings-search")).toHaveValue("");
      // Every finding again (the group shown in full stays so).
      await expect(page.getByTestId("finding")).toHaveCount(154);
      // The badge did not move with the filters.
      await expect(tabCount(page, "rules")).toHaveText("154");
    });

    test("a generated 10k plan: the aggregate first, the badge equals the heading", async ({ page }) => {
      const gen = join(REPO, "..", "shared", "tools", "gen_plan.py");
      needsShared(gen);
      test.setTimeout(120_000);
      const path = join(mkdtempSync(join(tmpdir(), "planlens-10k-")), "p10k.json");
      writeFileSync(path, execFileSync("python3", [gen, "--resources", "10000", "--seed", "1"], { maxBuffer: 1 << 26 }));
      const expected = cliCheck(path);
      await gotoApp(page);
      await openPlan(page, path);
      await expect(tabCount(page, "rules")).toHaveText(String(expected.findings.length));
      await page.getByTestId("tab-rules").click();
      await expect(page.getByTestId("rules-counts")).toContainText(`${expected.findings.length} findings:`);
      await expect(page.getByTestId("finding-group").first()).toHaveAttribute("data-rule", "too-many-destroys");
      await expect(page.getByTestId("finding").first()).toHaveAttribute("data-rule", expected.findings[0].rule);
      expect(expected.findings[0].rule).toBe("too-many-destroys");
      // At most one page per group is in the page.
      expect(await page.getByTestId("finding").count()).toBeLessThanOrEqual(100 * 7);
    });
  });
}
