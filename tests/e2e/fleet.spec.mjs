// The Fleet view (issue 16): `kubectl get terraform -A` opened alone or with plan and state Secrets
// shows one row per tf-controller workspace, most urgent first; chips, the namespace filter and the
// search narrow it; a row opens with Enter and shows what the workspace needs; its plan (joined
// from chunks), state, text plan or drift plan opens with every view, and the Fleet button leads
// back. JSON and YAML give the same rows. At 1400x860 and 390x844.
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp } from "./helpers.mjs";

const KUBE = join(REPO, "tests", "fixtures", "kube");
const kube = (name) => join(KUBE, name);

const ORDER = [
  ["team-c/cache", "failing"],
  ["team-c/db", "failing"],
  ["team-e/monitoring", "failing"],
  ["team-b/edge", "drifted"],
  ["team-c/storage", "locked"],
  ["team-b/queue", "stale"],
  ["team-a/web", "awaiting-approval"],
  ["team-d/sandbox", "awaiting-approval"],
];

async function openFiles(page, names) {
  await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(names.map(kube));
  await expect(page.getByTestId("fleet")).toBeVisible();
  await expect(page.getByTestId("load-error")).toHaveCount(0);
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(device, () => {
    test.use({ viewport });

    test("a list of workspaces opens as the fleet, most urgent first", async ({ page }) => {
      await gotoApp(page);
      await openFiles(page, ["terraforms.yaml"]);
      await expect(page.getByTestId("fleet-summary")).toHaveText("Fleet: 16 workspaces — 8 need a person");
      const rows = page.getByTestId("fleet-row");
      await expect(rows).toHaveCount(16);
      for (let i = 0; i < ORDER.length; i++) {
        await expect(rows.nth(i)).toHaveAttribute("data-id", ORDER[i][0]);
        await expect(rows.nth(i)).toHaveAttribute("data-attention", ORDER[i][1]);
      }
      await expect(rows.nth(0).getByTestId("fleet-ready")).toHaveText("False: Gave up: retry limit reached");
      await expect(page.locator('[data-id="team-a/web"] [data-testid=fleet-plan]')).toHaveText(
        "plan-main-9f8e7d6c5b · awaits approval",
      );
      // Nothing spills out sideways, on a phone too.
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });

    test("chips, namespace and search narrow the rows; the keyboard opens them", async ({ page }) => {
      await gotoApp(page);
      await openFiles(page, ["terraforms.json"]);
      const rows = page.getByTestId("fleet-row");
      await page.getByTestId("fleet-chip-failing").click();
      await expect(rows).toHaveCount(3);
      await expect(page.getByTestId("fleet-count")).toHaveText("3 of 16 workspaces shown");
      await page.getByTestId("fleet-chip-failing").click();
      await page.getByTestId("fleet-needs-human").click();
      await expect(rows).toHaveCount(8);
      await page.getByTestId("fleet-needs-human").click();
      await page.getByTestId("fleet-namespace").selectOption("team-d");
      await expect(rows).toHaveCount(2);
      await page.getByTestId("fleet-namespace").selectOption("");
      // `/` searches: a drifted resource's address finds its workspace.
      await page.keyboard.press("/");
      await expect(page.getByTestId("fleet-search")).toBeFocused();
      await page.keyboard.type("aws_security_group.web");
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toHaveAttribute("data-id", "team-b/edge");
      await page.keyboard.press("Escape");
      await expect(rows).toHaveCount(16);
      // Rows are buttons: Tab reaches them, ↓ moves, Enter opens what the workspace needs.
      await rows.nth(0).getByTestId("fleet-row-head").focus();
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      await expect(rows.nth(3).getByTestId("fleet-row-head")).toBeFocused();
      await page.keyboard.press("Enter");
      const drift = rows.nth(3).getByTestId("fleet-drift");
      await expect(drift).toContainText("Drift detected at 2026-11-24T19:42:10Z");
      await expect(drift).toContainText("aws_security_group.web changed outside Terraform; plan: update");
      await expect(drift).toContainText("aws_s3_bucket.logs deleted outside Terraform; plan: create");
      await expect(rows.nth(3).getByTestId("fleet-row-head")).toHaveAttribute("aria-expanded", "true");
      // An open row fits the screen too: no box and no text wider than the page (long revisions
      // and commands wrap).
      await rows.nth(6).getByTestId("fleet-row-head").click();
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll("[data-testid=fleet] *:not(.visually-hidden)")]
          .filter(
            (e) =>
              e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 ||
              e.scrollWidth > e.clientWidth + 1,
          )
          .map((e) => `${e.tagName}.${e.className}`),
      );
      expect(wide).toEqual([]);
    });

    test("a row's chunked plan and its state open with every view, and the way back keeps the fleet", async ({ page }) => {
      await gotoApp(page);
      await openFiles(page, ["terraforms.json", "team-a.json", "configmap-text-plan.json"]);
      const web = page.locator('[data-id="team-a/web"]');
      await web.getByTestId("fleet-row-head").click();
      await expect(web.getByTestId("fleet-approve")).toContainText(
        `kubectl patch terraform web -n team-a --type merge -p '{"spec":{"approvePlan":"plan-main-9f8e7d6c5b"}}'`,
      );
      const open = web.getByTestId("fleet-open");
      await expect(open).toHaveText(["Open the plan", "Open the state"]);
      await open.first().click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 2 to add, 2 to change, 2 to destroy.");
      await expect(page.getByTestId("fleet")).toHaveCount(0);
      await expect(page.getByTestId("load-note").first()).toContainText(
        "Read the plan from Secret team-a/tfplan-default-web.json (4 chunks)",
      );
      await page.getByTestId("tab-graph").click();
      await expect(page.locator(".graph-tab")).toBeVisible();
      // Back to the fleet, then its state.
      await page.getByTestId("fleet-back").click();
      await expect(page.getByTestId("fleet")).toBeVisible();
      await web.getByTestId("fleet-row-head").click();
      await web.getByTestId("fleet-open").nth(1).click();
      await expect(page.getByTestId("plan-summary")).toContainText("State: 1 resource in 1 module");
      // The drift plan of team-b/edge, read from its Ready message.
      await page.getByTestId("fleet-back").click();
      const edge = page.locator('[data-id="team-b/edge"]');
      await edge.getByTestId("fleet-row-head").click();
      await expect(edge.getByTestId("fleet-open")).toHaveText(["Open the text plan", "Open the drift plan"]);
      await edge.getByTestId("fleet-open").nth(1).click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to add, 1 to change, 0 to destroy.");
      // With a plan open behind it, the fleet's keys are the fleet's (the page's own keys walk
      // the plan's list): ↓ and Enter open a row, Enter on its button opens its plan.
      await page.getByTestId("fleet-back").click();
      await page.locator('[data-id="team-c/cache"] [data-testid=fleet-row-head]').focus();
      for (let i = 0; i < 6; i++) await page.keyboard.press("ArrowDown");
      await expect(web.getByTestId("fleet-row-head")).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(web.getByTestId("fleet-row-head")).toHaveAttribute("aria-expanded", "true");
      await web.getByTestId("fleet-open").first().focus();
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 2 to add, 2 to change, 2 to destroy.");
      // And from the fleet back to the open plan.
      await page.getByTestId("fleet-back").click();
      await page.getByTestId("fleet-to-plan").click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 2 to add, 2 to change, 2 to destroy.");
    });

    test("a plan Secret alone opens as its plan, with its state Secret too; files that make neither are refused", async ({ page }) => {
      await gotoApp(page);
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(kube("plan-secret-chunked.json"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 2 to add, 2 to change, 2 to destroy.");
      await expect(page.getByTestId("fleet-back")).toHaveCount(0);
      // A plan Secret and its state Secret chosen together: the plan, as one file holding both.
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles([
        kube("plan-secret.json"),
        kube("state-secret.json"),
      ]);
      await expect(page.locator(".topbar .doc-name")).toContainText("tfplan-default-web.json");
      await expect(page.getByTestId("load-error")).toHaveCount(0);
      const sentence = await page.getByTestId("plan-summary").innerText();
      expect(sentence).toMatch(/^Plan: /);
      // A plan Secret beside a plan that is no Kubernetes object: two plans, one row each (issue
      // 28), the Secret's plan read from it; the plan open before stays behind the roll-up.
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles([
        kube("plan-secret.json"),
        join(REPO, "tests", "fixtures", "blast_radius.json"),
      ]);
      await expect(page.getByTestId("fleet-summary")).toContainText("2 plans");
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(2);
      await page.getByTestId("fleet-to-plan").click();
      await expect(page.getByTestId("plan-summary")).toHaveText(sentence);
    });
  });
}
