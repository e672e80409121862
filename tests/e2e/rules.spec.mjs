// Guardrail rules in a real browser: the verdict and findings of the built-in pack (the same as
// `planlens check` gives, for every real fixture), findings that jump to the list and the graph,
// the environment label, and the rule editor: live verdict, errors with line and column, kept in
// localStorage, exported and imported. Expected findings: tests/fixtures/rules/README.md.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const RULES = join(FIXTURES, "rules");
const REAL = join(REPO, "..", "shared", "fixtures", "real");

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
    out = e.stdout; // exit codes 1 and 2 are verdicts, not failures
  }
  return JSON.parse(out);
}

test.describe("Guardrail rules", () => {
  test("every real file gets the same verdict and findings as planlens check", async ({ page }) => {
    test.skip(!existsSync(REAL), `no real fixtures at ${REAL} (../shared is absent)`);
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
