// Drift in a real browser: every driftctl report and the refresh-only plan open on the Drift tab with
// their figures; our drift plan shows severity, what the plan does, relevant attributes and masked
// sensitive values, and links to the list and the graph; a plan log opens with its diagnostics.
// Expected values come from tests/fixtures/README.md and tests/core/drift.rs.

import { join } from "node:path";
import { test, expect, REPO, REAL, needsShared } from "./harness.mjs";
import { gotoApp, openPlan, closeDetail } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");

const item = (page, address) => page.locator(`[data-testid=drift-item][data-address="${address.replace(/"/g, '\\"')}"]`);

test.describe("Drift", () => {
  test("every driftctl report and a refresh-only plan open on the Drift tab", async ({ page }) => {
    needsShared(REAL);
    // [file, coverage, unmanaged, missing, changed, drifted items, alerts]
    const cases = [
      ["driftctl__scan_json_access_denied_alerts.json", "0 %", "0", "0", "—", 0, 3],
      ["driftctl__scan_json_v0_39_computed_fields_alerts.json", "100 %", "0", "0", "1", 1, 1],
      ["driftctl__scan_json_v0_39_with_differences.json", "33 %", "2", "2", "2", 4, 0],
      ["driftctl__scan_json_v0_40_current.json", "33 %", "2", "2", "—", 2, 0],
      ["driftctl__scan_json_v0_7_legacy.json", "33 %", "2", "2", "1", 3, 0],
    ];
    await gotoApp(page);
    for (const [name, coverage, unmanaged, missing, changed, items, alerts] of cases) {
      await openPlan(page, join(REAL, name));
      await expect(page.getByTestId("tab-drift"), name).toHaveAttribute("aria-selected", "true");
      await expect(page.getByTestId("plan-summary"), name).toContainText("driftctl:");
      await expect(page.getByTestId("driftctl-coverage").locator("b"), name).toHaveText(coverage);
      await expect(page.getByTestId("driftctl-unmanaged").locator("b"), name).toHaveText(unmanaged);
      await expect(page.getByTestId("driftctl-missing").locator("b"), name).toHaveText(missing);
      await expect(page.getByTestId("driftctl-changed").locator("b"), name).toHaveText(changed);
      await expect(page.getByTestId("drift-item"), name).toHaveCount(items);
      await expect(page.locator("[data-testid=driftctl-alerts] li"), name).toHaveCount(alerts);
    }
    // A changed resource with its changelog as a diff, computed fields marked.
    await openPlan(page, join(REAL, "driftctl__scan_json_v0_39_computed_fields_alerts.json"));
    await page.getByTestId("drift-item").click();
    await expect(page.getByTestId("drift-address")).toHaveText("module.module.aws_diff_resource.name");
    await expect(page.getByTestId("drift-attribute")).toHaveCount(5);
    await expect(page.locator("[data-testid=drift-attribute] .mark-computed")).toHaveCount(4);
    await expect(page.getByTestId("diff-tree")).toContainText('"foobar"');

    await openPlan(page, join(REAL, "terraform__equiv_drift_refresh_only.json"));
    await expect(page.getByTestId("tab-drift")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("refresh-only")).toBeVisible();
    await expect(page.getByTestId("summary-drift-note")).toContainText("Note: 1 resource has changed outside of Terraform.");
    await expect(item(page, "tfcoremock_simple_resource.drift")).toHaveAttribute("data-severity", "structural");
  });

  test("a failed plan, or one from a Terraform that reports no drift, never says 'No drift'", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "plan_errored.json"));
    await page.getByTestId("tab-drift").click();
    await expect(page.getByTestId("drift-incomplete")).toContainText("Drift not known: planning failed");
    await expect(page.getByTestId("no-drift")).toHaveCount(0);
    await expect(page.getByTestId("tab-drift").locator(".tab-count")).toHaveCount(0);
    // Nor "no outputs" or "no check results": Terraform stopped before it planned them.
    await page.getByTestId("tab-outputs").click();
    await expect(page.locator(".panel-empty")).toHaveText("Planning failed before Terraform planned the outputs: they are not known.");
    await page.getByTestId("tab-checks").click();
    await expect(page.getByTestId("checks-empty")).toContainText("their results are not known");

    await openPlan(page, join(FIXTURES, "tf0_14_unmarked_secrets.json"));
    await page.getByTestId("tab-drift").click();
    await expect(page.getByTestId("drift-incomplete")).toContainText(
      "Drift not known: Terraform 0.14.11 wrote this plan, and Terraform reports drift in its plans only since 0.15.4.",
    );
    await expect(page.getByTestId("no-drift")).toHaveCount(0);

    // A plan of today's Terraform that lists none has none.
    await openPlan(page, join(FIXTURES, "forget.json"));
    await page.getByTestId("tab-drift").click();
    await expect(page.getByTestId("no-drift")).toHaveText("No drift: nothing changed outside of Terraform.");
    await expect(page.getByTestId("tab-drift").locator(".tab-count")).toHaveText("0");
  });

  test("a drift report opened while the graph shows keeps the graph, and leaving it mid-frame is safe", async ({ page }) => {
    await gotoApp(page, "#tab=graph");
    await openPlan(page, join(FIXTURES, "drift_effects.json"));
    await openPlan(page, join(FIXTURES, "driftctl.json"));
    await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
    // Open a plan and leave the graph in the same moment: its pending frame must not fail.
    await page.getByTestId("plan-file").setInputFiles(join(FIXTURES, "drift_effects.json"));
    await page.getByTestId("tab-drift").click();
    await expect(page.getByTestId("drift-item")).toHaveCount(4);
    // (The harness fails the test on any page error.)
  });

  test("grades drift, says what the plan does, masks secrets and links to list and graph", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "drift_effects.json"));
    await expect(page.getByTestId("summary-drift-note")).toContainText("Note: 4 resources have changed outside of Terraform.");
    await expect(page.getByTestId("summary-drift-note")).toContainText("2 structural, 2 minor");
    // Drifted resources are marked in the list, the drift-only one included (no-ops are hidden).
    const row = (a) => page.locator(`[data-testid=resource-row][data-address="${a}"]`);
    await expect(row("google_compute_instance.vm").locator(".mark-drift-minor")).toHaveText("tags drifted");
    await expect(row("aws_instance.web").locator(".mark-drift")).toHaveText("drifted");

    await page.getByTestId("open-drift").click();
    await expect(page.getByTestId("tab-drift")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("drift-item")).toHaveCount(4);
    await page.getByTestId("drift-panel").getByRole("button", { name: "2 minor", exact: true }).click();
    await expect(page.getByTestId("drift-item")).toHaveCount(2);
    await expect(item(page, "aws_s3_bucket.logs")).toContainText("plan reverts it");
    await page.getByTestId("drift-panel").getByRole("button", { name: "All 4" }).click();

    await item(page, "aws_instance.web").click();
    await expect(page.getByTestId("drift-effect")).toContainText("The plan reverts part of this drift.");
    const attrs = page.getByTestId("drift-attribute");
    await expect(attrs).toHaveCount(2);
    await expect(attrs.nth(0)).toContainText("instance_type");
    await expect(attrs.nth(0)).toContainText("relevant to the plan");
    await expect(attrs.nth(0)).toContainText("reverted by the plan");
    await expect(attrs.nth(1)).toContainText("kept by the plan");

    // j / k walk the drifted resources.
    await page.keyboard.press("j");
    await expect(page.getByTestId("drift-address")).toHaveText("aws_s3_bucket.logs");
    await page.keyboard.press("k");
    await expect(page.getByTestId("drift-address")).toHaveText("aws_instance.web");

    // The sensitive password is named, its values never shown.
    await item(page, "aws_db_instance.main").click();
    await expect(page.getByTestId("drift-attribute")).toHaveText(/password/);
    await expect(page.getByTestId("diff-tree")).toContainText("(sensitive value)");
    expect(await page.evaluate(() => document.body.innerText)).not.toContain("hunter2");

    // From the drift to the graph, with the resource selected there.
    await item(page, "aws_instance.web").click();
    await page.getByTestId("drift-show-graph").click();
    await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("graph-canvas")).toBeVisible();
    await expect(page.getByTestId("diff-address")).toHaveText("aws_instance.web");
    await expect(page).toHaveURL(/r=aws_instance\.web/);
    // And to the list, where the diff says it drifted.
    await page.getByTestId("tab-drift").click();
    await page.getByTestId("drift-show-list").click();
    await expect(page.getByTestId("fact-drift")).toContainText("structural drift");
  });

  test("a terraform plan -json log opens with actions, drift and diagnostics", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "plan_log_drift.jsonl"));
    await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 2 to add, 1 to change, 2 to destroy.");
    await expect(page.getByTestId("plan-versions")).toContainText("plan -json log");
    await expect(page.getByTestId("log-diagnostic")).toContainText("Argument is deprecated (main.tf:12)");
    await expect(page.getByTestId("load-warning")).toHaveCount(0);
    await page.locator('[data-testid=resource-row][data-address="aws_instance.app[0]"]').click();
    await expect(page.getByTestId("fact-reason")).toBeVisible();
    await expect(page.getByTestId("fact-no-values")).toContainText("no attribute values");
    await page.getByTestId("tab-drift").click();
    await expect(page.getByTestId("drift-item")).toHaveCount(2);
    await expect(item(page, "aws_s3_bucket.old")).toContainText("plan recreates it");
  });
});

// Drift follows Terraform (issue 11): no drift from null becoming an empty value, drift outside
// relevant_attributes graded "not relevant", the same words for what the plan does in the header,
// the list and the attribute table, and a deleted object shown with its type and id.
for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`Drift follows Terraform (${device})`, () => {
    test.use({ viewport });

    test("a plan whose drift is only null becoming empty values passes, and irrelevant drift is shown as such", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "drift_noise_tf1_14.json"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to add, 1 to change, 0 to destroy.");
      await expect(page.getByTestId("verdict")).toHaveAttribute("data-verdict", "pass");
      await expect(page.getByTestId("summary-drift-note")).toContainText("Note: 1 resource changed outside of Terraform in ways that do not affect this plan.");
      await expect(page.getByTestId("summary-drift-note")).toContainText("0 structural, 0 minor, 1 not relevant");
      // The updated Lambda function's drift was only empty values: no drift mark on its row.
      const row = page.locator('[data-testid=resource-row][data-address="aws_lambda_function.api"]');
      await expect(row).toBeVisible();
      await expect(row.locator("[class*=mark-drift]")).toHaveCount(0);

      await page.getByTestId("open-drift").click();
      await expect(page.getByTestId("tab-drift")).toHaveAttribute("aria-selected", "true");
      await expect(page.getByTestId("drift-item")).toHaveCount(1);
      await expect(page.locator("[data-testid=drift-item][data-severity=structural]")).toHaveCount(0);
      const logGroup = item(page, "aws_cloudwatch_log_group.api");
      await expect(logGroup).toHaveAttribute("data-severity", "not-relevant");
      await expect(logGroup.locator(".sev-badge")).toHaveText("not relevant");
      await expect(logGroup.getByTestId("drift-item-effect")).toHaveText("plan keeps it");
      await expect(logGroup).toContainText("retention_in_days");
      await expect(page.getByTestId("drift-panel").getByRole("button", { name: "1 not relevant" })).toBeVisible();
      await expect(page.getByTestId("drift-panel").getByRole("button", { name: "0 structural" })).toBeVisible();

      await logGroup.click();
      await expect(page.getByTestId("drift-effect")).toHaveText("Changed outside Terraform. The plan keeps the drifted values.");
      const attr = page.getByTestId("drift-attribute");
      await expect(attr).toHaveCount(1);
      await expect(attr).toHaveAttribute("data-relevant", "false");
      await expect(attr).toContainText("retention_in_days");
      await expect(attr.locator(".mark-not-relevant")).toHaveText("not relevant to this plan");
      await expect(attr.getByTestId("drift-attribute-effect")).toHaveText("kept by the plan");
      await page.screenshot({ path: test.info().outputPath(`drift-noise-${device}.png`), fullPage: true });
    });

    test("the header, the list and the attribute table say the same thing about what the plan does", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "drift_set_and_deleted.json"));
      await page.getByTestId("open-drift").click();
      await expect(page.getByTestId("drift-item")).toHaveCount(4);
      // [address, list, header, per-attribute table]
      const cases = [
        ["aws_instance.app", "plan sets other values", "The plan sets the drifted attributes to other values.", ["set to another value by the plan"]],
        ["aws_instance.batch", "plan keeps part", "The plan keeps part of this drift and sets the rest to other values.", ["kept by the plan", "set to another value by the plan"]],
        ["aws_autoscaling_group.web", "plan keeps it", "The plan keeps the drifted values.", ["kept by the plan"]],
      ];
      for (const [address, label, sentence, effects] of cases) {
        await expect(item(page, address).getByTestId("drift-item-effect"), address).toHaveText(label);
        await item(page, address).click();
        await expect(page.getByTestId("drift-address")).toHaveText(address);
        await expect(page.getByTestId("drift-effect"), address).toHaveText(`Changed outside Terraform. ${sentence}`);
        await expect(page.getByTestId("drift-attribute-effect"), address).toHaveText(effects);
        await closeDetail(page);
      }
      // The case the issue saw: a header saying "keeps" over a table saying "set to another value".
      await item(page, "aws_instance.app").click();
      await expect(page.getByTestId("drift-effect")).not.toContainText("keeps");
      await page.screenshot({ path: test.info().outputPath(`drift-effects-${device}.png`), fullPage: true });
    });

    test("a resource deleted outside Terraform says what it was, in the Drift and Rules tabs", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "drift_set_and_deleted.json"));
      await page.getByTestId("open-drift").click();
      const logs = item(page, "aws_s3_bucket.logs");
      await expect(logs).toContainText("deleted outside Terraform: aws_s3_bucket, id acme-prod-logs");
      await expect(logs.getByTestId("drift-item-effect")).toHaveText("plan recreates it");
      await logs.click();
      await expect(page.getByTestId("drift-effect")).toHaveText("Deleted outside Terraform. The plan creates it again.");
      const deleted = page.getByTestId("drift-deleted");
      await expect(deleted).toBeVisible();
      await expect(deleted).toContainText("aws_s3_bucket");
      await expect(deleted).toContainText("aws_s3_bucket.logs");
      await expect(page.getByTestId("drift-deleted-id")).toHaveText("acme-prod-logs");
      await page.screenshot({ path: test.info().outputPath(`drift-deleted-${device}.png`), fullPage: true });

      await closeDetail(page);
      await page.getByTestId("tab-rules").click();
      const finding = page.getByTestId("finding").filter({ hasText: "aws_s3_bucket.logs" });
      await expect(finding).toContainText("Structural drift on aws_s3_bucket.logs needs a human: deleted outside Terraform: aws_s3_bucket, id acme-prod-logs");
      await expect(page.getByTestId("rules-panel")).not.toContainText("(none)");
    });
  });
}
