// The readers' part (part-readers: human-readable plans, Terraform states, `terraform plan -json`
// logs, driftctl reports, src/load/readers.rs; Kubernetes objects and the fleet, crates/load/src/kube/,
// src/fleet.rs), at desktop and phone sizes. Viewing plan JSON
// never fetches it; the first of those files fetches it (the page says it is loading "the reader
// of …"), and each opens as it did when its reader was in the first-visit module: the summary,
// its rows, and a refusal with the reader's own message. The service worker is blocked here, so
// every request seen is the page's or its workers' own (offline.spec.mjs covers the cache).
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan, chooseFile } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`The readers' part (${device})`, () => {
    test.use({ viewport, serviceWorkers: "block" });

    test("plan JSON opens without it; a text plan, a state, a plan log and a driftctl report fetch it and open", async ({ page }) => {
      const parts = [];
      page.context().on("request", (r) => {
        const path = new URL(r.url()).pathname;
        if (/\/part-/.test(path)) parts.push(path);
      });
      await gotoApp(page);
      // Plan JSON: a sample and a file, with drift. No part is fetched.
      await page.getByTestId("sample-web-app-replace").click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
      await openPlan(page, join(FIXTURES, "drift_effects.json"));
      await page.waitForLoadState("networkidle");
      expect(parts, "parts fetched for plan JSON").toEqual([]);

      // A human-readable plan: the part is fetched, and the plan reads as before.
      await openPlan(page, join(FIXTURES, "text_plans", "opentofu_drift.txt"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 3 to add, 2 to change, 4 to destroy, 1 to forget.");
      expect(parts).toEqual(expect.arrayContaining(["/part-readers.js", "/part-readers_bg.wasm"]));
      expect(parts.filter((p) => !/^\/part-readers(\.js|_bg\.wasm)$/.test(p)), "other parts").toEqual([]);
      await expect(page.locator('[data-testid=resource-row][data-address="aws_instance.web[0]"]')).toBeVisible();
      await page.screenshot({ path: `test-results/readers-part-${device}-text-plan.png` });

      // A raw state, a plan log and a driftctl report.
      await openPlan(page, join(FIXTURES, "states", "modules.tfstate"));
      await expect(page.getByTestId("plan-summary")).toHaveText("State: 9 resources in 4 modules (Terraform 1.9.5).");
      await expect(page.getByTestId("resource-row")).toHaveCount(10);
      await page.screenshot({ path: `test-results/readers-part-${device}-state.png` });
      await openPlan(page, join(FIXTURES, "plan_log_drift.jsonl"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 2 to add, 1 to change, 2 to destroy.");
      await openPlan(page, join(FIXTURES, "driftctl.json"));
      await expect(page.getByTestId("plan-summary")).toContainText("driftctl: 5 resources");
      await expect(page.getByTestId("tab-drift")).toHaveAttribute("aria-selected", "true");

      // A file the reader refuses: its own message, and the open plan stays.
      await chooseFile(page, join(FIXTURES, "text_plans", "no_plan.txt"));
      await expect(page.getByTestId("load-error")).toContainText("it has no plan in it");
      await expect(page.getByTestId("load-error")).toContainText("Copy the whole output of `terraform plan`");
    });

    test("Kubernetes objects fetch it: a plan Secret opens as its plan, several files as the fleet, whose row's plan opens", async ({ page }) => {
      const parts = [];
      page.context().on("request", (r) => {
        const path = new URL(r.url()).pathname;
        if (/\/part-/.test(path)) parts.push(path);
      });
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "drift_effects.json"));
      await page.waitForLoadState("networkidle");
      expect(parts, "parts fetched for plan JSON").toEqual([]);
      // A plan Secret as JSON: the part unpacks it, and it opens as the plan it holds.
      await openPlan(page, join(FIXTURES, "kube", "plan-secret.json"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 2 to add, 2 to change, 2 to destroy.");
      await expect(page.getByTestId("load-note").first()).toContainText("Read the plan from Secret team-a/tfplan-default-web.json");
      expect(parts).toEqual(expect.arrayContaining(["/part-readers.js", "/part-readers_bg.wasm"]));
      expect(parts.filter((p) => !/^\/part-readers(\.js|_bg\.wasm)$/.test(p)), "other parts").toEqual([]);
      // A Secret the reader refuses: its own message.
      await chooseFile(page, join(FIXTURES, "kube", "plan-secret-bad-base64.json"));
      await expect(page.getByTestId("load-error")).toContainText("not valid base64");
      // Workspaces with their plan chunks and state, opened together: the fleet, read in the part.
      await page
        .locator("input[type=file][data-testid=plan-file]")
        .setInputFiles([join(FIXTURES, "kube", "terraforms.json"), join(FIXTURES, "kube", "team-a.json")]);
      await expect(page.getByTestId("fleet")).toBeVisible();
      await expect(page.getByTestId("fleet-row")).toHaveCount(16);
      const web = page.locator('[data-id="team-a/web"]');
      await web.getByTestId("fleet-row-head").click();
      await expect(web.getByTestId("fleet-open")).toHaveText(["Open the plan", "Open the state"]);
      await page.screenshot({ path: `test-results/readers-part-${device}-fleet.png` });
      // Its plan, joined from 4 chunks by the part that keeps the fleet.
      await web.getByTestId("fleet-open").first().click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 2 to add, 2 to change, 2 to destroy.");
      await expect(page.getByTestId("load-note").first()).toContainText(
        "Read the plan from Secret team-a/tfplan-default-web.json (4 chunks)",
      );
    });
  });
}
