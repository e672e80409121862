// A pull request's plans in one review (issue 28): several files chosen together, a folder, an
// archive and a pasted comment open as ONE roll-up — a headline in the peers' words, the worst
// verdict, one row per plan sorted by what needs a person — whose rows open each plan with every
// view and lead back to the roll-up where it was left; a search across every plan names the plan
// of each hit; the share link reopens the roll-up. At 1400x860 and 390x844.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, expect, REPO, REAL, DIST, needsShared } from "./harness.mjs";
import { gotoApp } from "./helpers.mjs";

const FIX = join(REPO, "tests", "fixtures");
const THREE = [
  join(REAL, "terraform__showjson_basic_delete.json"),
  join(REAL, "terraform__showjson_drift.json"),
  join(FIX, "plan_errored.json"),
];

async function openSet(page, paths) {
  await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(paths);
  await expect(page.getByTestId("fleet")).toBeVisible();
  await expect(page.getByTestId("load-error")).toHaveCount(0);
}

/** The CLI, built first when `cargo test` has not built it. */
function planlens(args) {
  const bin = join(REPO, "target", "debug", "planlens");
  if (!existsSync(bin)) execFileSync("cargo", ["build", "-q", "--bin", "planlens"], { cwd: REPO });
  return execFileSync(bin, args, { cwd: REPO, encoding: "utf8" });
}

async function rowNames(page) {
  return page.locator("[data-testid=fleet-row][data-kind=plan]").evaluateAll((rows) =>
    rows.map((r) => [r.dataset.id, r.dataset.attention]),
  );
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(device, () => {
    test.use({ viewport });

    test("three plan files chosen together open as one roll-up, what needs a person first", async ({ page }) => {
      needsShared(REAL);
      await gotoApp(page);
      await openSet(page, THREE);
      await expect(page.getByTestId("fleet-summary")).toContainText("3 plans: 2 with changes, 1 failed");
      await expect(page.getByTestId("rollup-verdict")).toContainText("Verdict: planning failed");
      expect(await rowNames(page)).toEqual([
        ["plan_errored", "failed"],
        ["terraform__showjson_basic_delete", "needs-approval"],
        ["terraform__showjson_drift", "needs-approval"],
      ]);
      const first = page.locator("[data-testid=fleet-row][data-id=terraform__showjson_basic_delete]");
      await expect(first.getByTestId("rollup-summary")).toHaveText("Plan: 0 to add, 1 to change, 1 to destroy.");
      await expect(first.getByTestId("rollup-meta")).toContainText("~1 -1");
      await page.screenshot({ path: `/tmp/shots/plans-${device}.png`, fullPage: false });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });

    test("a row opens its plan with every view, and the way back keeps the roll-up's place", async ({ page }) => {
      needsShared(REAL);
      await gotoApp(page);
      await openSet(page, THREE);
      await page.getByTestId("fleet-search").fill("drift");
      await page.locator("[data-testid=fleet-row][data-id=terraform__showjson_drift] [data-testid=fleet-row-head]").click();
      await expect(page.getByTestId("plan-summary")).toBeVisible();
      await expect(page.locator(".topbar .doc-name")).toHaveText("terraform__showjson_drift");
      await expect(page.getByTestId("fleet-back")).toHaveText("← Back to the roll-up (3 plans)");
      await page.getByTestId("fleet-back").click();
      await expect(page.getByTestId("fleet")).toBeVisible();
      await expect(page.getByTestId("fleet-search")).toHaveValue("drift");
      await expect(page.locator("[data-testid=fleet-row][data-id=terraform__showjson_drift] [data-testid=fleet-row-head]")).toBeFocused();
    });

    test("the keyboard walks the roll-up and Enter opens a plan", async ({ page }) => {
      needsShared(REAL);
      await gotoApp(page);
      await openSet(page, THREE);
      await page.locator("[data-testid=fleet-row-head]").first().focus();
      await page.keyboard.press("ArrowDown");
      await expect(page.locator("[data-testid=fleet-row-head]").nth(1)).toBeFocused();
      await page.keyboard.press("j");
      await expect(page.locator("[data-testid=fleet-row-head]").nth(2)).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page.locator(".topbar .doc-name")).toHaveText("terraform__showjson_drift");
    });

    test("a search across every plan names the plan of each hit and opens it selected", async ({ page }) => {
      needsShared(REAL);
      await gotoApp(page);
      await openSet(page, THREE);
      await page.keyboard.press("/");
      await page.keyboard.type("test_instance delete");
      const hits = page.getByTestId("rollup-hit");
      await expect(hits).toHaveCount(1);
      await expect(hits.first()).toContainText("terraform__showjson_basic_delete");
      await expect(hits.first()).toContainText("test_instance.test-delete");
      await hits.first().click();
      await expect(page.locator(".topbar .doc-name")).toHaveText("terraform__showjson_basic_delete");
      await expect(page.locator("[data-testid=resource-row][aria-selected=true]")).toHaveAttribute("data-address", "test_instance.test-delete");
    });

    test("a folder of a Terragrunt --json-out-dir tree is one row per unit, named by its path", async ({ page }) => {
      await gotoApp(page);
      await page.getByTestId("landing-folder").setInputFiles(join(FIX, "sets", "terragrunt"));
      await expect(page.getByTestId("fleet")).toBeVisible();
      await expect(page.getByTestId("fleet-summary")).toContainText("5 plans: 4 with changes, 1 with no changes");
      const names = (await rowNames(page)).map(([n]) => n).sort();
      expect(names).toEqual(["dev/app", "dev/network", "prod/app", "prod/db", "prod/network"]);
      // The group filter: prod only.
      await page.getByTestId("fleet-namespace").selectOption("prod");
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(3);
      await page.screenshot({ path: `/tmp/shots/plans-folder-${device}.png` });
    });

    test("a zip of the tree opens the same roll-up, read by the readers' part", async ({ page }) => {
      await gotoApp(page);
      await openSet(page, [join(FIX, "sets", "terragrunt.zip")]);
      await expect(page.getByTestId("fleet-summary")).toContainText("5 plans: 4 with changes, 1 with no changes");
      // What is not a plan is said, never dropped silently.
      await expect(page.getByTestId("fleet-problem").first()).toContainText("README.md");
      const names = (await rowNames(page)).map(([n]) => n).sort();
      expect(names).toEqual(["dev/app", "dev/network", "prod/app", "prod/db", "prod/network"]);
    });

    test("a zip bomb is refused with the limit, nothing opened", async ({ page }) => {
      await gotoApp(page);
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(join(FIX, "sets", "zip_bomb.zip"));
      await expect(page.getByTestId("load-error")).toContainText("unpacks to more than 512 MB");
      await expect(page.getByTestId("fleet")).toHaveCount(0);
    });

    test("a pasted Atlantis comment of three projects is three rows, the failed one first", async ({ page }) => {
      const { readFileSync } = await import("node:fs");
      await gotoApp(page);
      await page.getByTestId("paste-box").fill(readFileSync(join(FIX, "sets", "atlantis_three_projects.md"), "utf8"));
      await page.getByTestId("paste-open").click();
      await expect(page.getByTestId("fleet")).toBeVisible();
      expect(await rowNames(page)).toEqual([
        ["live/database (staging)", "failed"],
        ["live/network", "changes"],
        ["api-prod", "no-changes"],
      ]);
      await expect(page.locator("[data-testid=fleet-row]").first().getByTestId("rollup-summary")).toHaveText("Planning failed: Unsupported argument.");
      // The failed project opens with Terraform's error.
      await page.locator("[data-testid=fleet-row-head]").first().click();
      await expect(page.getByTestId("plan-summary")).toContainText("Planning failed");
      await page.screenshot({ path: `/tmp/shots/plans-atlantis-${device}.png` });
    });

    test("the link `planlens link` makes of a set reopens the roll-up, and a row opens its plan", async ({ page, origin }) => {
      const link = planlens(["link", "--base", `${origin}/`, join(FIX, "sets", "terragrunt")]).trim();
      expect(link).toContain("#s=");
      await page.goto(link);
      await expect(page.getByTestId("fleet")).toBeVisible();
      await expect(page.getByTestId("fleet-summary")).toContainText("5 plans: 4 with changes, 1 with no changes");
      await page.locator("[data-testid=fleet-row][data-id='prod/db'] [data-testid=fleet-row-head]").click();
      await expect(page.locator(".topbar .doc-name")).toHaveText("prod/db");
      await expect(page.getByTestId("plan-summary")).toContainText("1 to destroy");
      // The address bar is the row's deep link: the set and which plan; it reopens that plan.
      await expect(page).toHaveURL(/#.*pl=\d+.*&s=/);
      const deep = page.url();
      await page.goto("about:blank");
      await page.goto(deep);
      await expect(page.locator(".topbar .doc-name")).toHaveText("prod/db");
      await page.getByTestId("fleet-back").click();
      await expect(page.getByTestId("fleet-summary")).toContainText("5 plans");
      await expect(page).not.toHaveURL(/pl=/);
      // The redacted roll-up: rows only, which show what they change instead of opening.
      const redacted = planlens(["link", "--redacted", "--base", `${origin}/`, join(FIX, "sets", "terragrunt")]).trim();
      await page.goto("about:blank");
      await page.goto(redacted);
      await expect(page.getByTestId("rollup-redacted")).toBeVisible();
      await page.locator("[data-testid=fleet-row][data-id='prod/db'] [data-testid=fleet-row-head]").click();
      await expect(page.getByTestId("fleet-details")).toContainText("prod_db");
    });

    test("a report of a set opens from disk on the roll-up with every plan, fetching nothing", async ({ page, pageLog }) => {
      const file = join(mkdtempSync(join(tmpdir(), "planlens-set-")), "report.html");
      planlens(["report", join(FIX, "sets", "atlantis_three_projects.md"), "-o", file, "--app", DIST]);
      const url = `file://${file}`;
      pageLog.allowed.push(url, "blob:", "data:");
      await page.goto(url);
      await expect(page.getByTestId("fleet")).toBeVisible();
      expect((await rowNames(page)).map(([n]) => n)).toEqual(["live/database (staging)", "live/network", "api-prod"]);
      await page.locator("[data-testid=fleet-row][data-id='live/network'] [data-testid=fleet-row-head]").click();
      await expect(page.getByTestId("plan-summary")).toContainText("1 to add, 1 to change");
    });

    test("Share on the roll-up gives the link of every plan, the redacted roll-up and one comment", async ({ page }) => {
      await gotoApp(page);
      await page.getByTestId("landing-folder").setInputFiles(join(FIX, "sets", "terragrunt"));
      await expect(page.getByTestId("fleet")).toBeVisible();
      await page.getByTestId("rollup-share").click();
      const full = await page.getByTestId("rollup-share-full-link").inputValue();
      expect(full).toContain("#s=");
      await expect(page.getByTestId("rollup-share-redacted-link")).toHaveValue(/#ru=/);
      const markdown = await page.getByTestId("rollup-share-markdown-text").inputValue();
      expect(markdown).toMatch(/^### Planlens: 5 plans: 4 with changes, 1 with no changes/);
      expect(markdown).toContain("| `prod/db` |");
      // The same comment the CLI writes for the same plans (the link's payload aside: the folder
      // picker may list the plans in another order than the CLI's walk).
      const cli = planlens(["summary", "--format", "markdown", "--base", full.split("#")[0], join(FIX, "sets", "terragrunt")]);
      const unlinked = (text) => text.replace(/#s=[A-Za-z0-9_-]+/, "#s=…");
      expect(unlinked(markdown)).toBe(unlinked(cli));
      // The link reopens the roll-up.
      await page.goto(full);
      await expect(page.getByTestId("fleet-summary")).toContainText("5 plans");
    });

    test("three files dropped on the page open as the roll-up", async ({ page }) => {
      const { readFileSync } = await import("node:fs");
      await gotoApp(page);
      const files = ["plan_errored.json", "drift_set_and_deleted.json", "noop_with_delete_reason.json"].map((name) => ({
        name,
        text: readFileSync(join(FIX, name), "utf8"),
      }));
      const transfer = await page.evaluateHandle((files) => {
        const dt = new DataTransfer();
        for (const f of files) dt.items.add(new File([f.text], f.name, { type: "application/json" }));
        return dt;
      }, files);
      await page.dispatchEvent(".app", "dragenter", { dataTransfer: transfer });
      await page.dispatchEvent(".app", "drop", { dataTransfer: transfer });
      await expect(page.getByTestId("fleet")).toBeVisible();
      expect((await rowNames(page)).map(([n]) => n)).toEqual(["plan_errored", "drift_set_and_deleted", "noop_with_delete_reason"]);
    });

    test("200 small plans are one list to scan, filtered by a chip", async ({ page }) => {
      const { readFileSync } = await import("node:fs");
      await gotoApp(page);
      const text = readFileSync(join(FIX, "plan_errored.json"), "utf8");
      const other = readFileSync(join(FIX, "noop_with_delete_reason.json"), "utf8");
      const files = Array.from({ length: 200 }, (_, i) => ({
        name: `stacks/unit-${i + 1}/plan.json`,
        mimeType: "application/json",
        buffer: Buffer.from(i % 10 === 0 ? text : other),
      }));
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(files);
      await expect(page.getByTestId("fleet")).toBeVisible();
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(200);
      await expect(page.getByTestId("fleet-summary")).toContainText("200 plans:");
      await page.getByTestId("fleet-chip-failed").click();
      await expect(page.locator("[data-testid=fleet-row][data-kind=plan]")).toHaveCount(20);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });

    test("a rule written in a plan's Rules tab judges the roll-up's rows again on the way back", async ({ page }) => {
      await gotoApp(page);
      await openSet(page, [join(FIX, "plan_errored.json"), join(FIX, "import_move_read.json")]);
      const row = page.locator("[data-testid=fleet-row][data-id=import_move_read]");
      await expect(row.getByTestId("rollup-row-verdict")).toHaveText("pass");
      await row.getByTestId("fleet-row-head").click();
      await expect(page.getByTestId("fleet")).toHaveCount(0);
      await page.getByRole("tab", { name: /Rules/ }).click();
      await page.getByTestId("rules-text").fill(
        '[[rule]]\nid = "imports-need-a-person"\nseverity = "deny"\nmessage = "Import: {address}"\nactions = ["import"]\n',
      );
      await expect(page.getByTestId("rules-ok")).toBeVisible({ timeout: 10000 });
      await page.getByTestId("fleet-back").click();
      await expect(row.getByTestId("rollup-row-verdict")).toHaveText("needs approval", { timeout: 20000 });
      await expect(row.getByTestId("rollup-meta")).toContainText("1 deny");
    });

    test("Rego policies judge every row; a policy that fails leaves its plans without a verdict, saying why", async ({ page }) => {
      await gotoApp(page);
      await openSet(page, [join(FIX, "plan_errored.json"), join(FIX, "import_move_read.json")]);
      const row = page.locator("[data-testid=fleet-row][data-id=import_move_read]");
      await expect(row.getByTestId("rollup-row-verdict")).toHaveText("pass");
      await expect(page.getByTestId("rollup-judged-by")).toHaveCount(0);
      const drop = async (name, text) => {
        const dt = await page.evaluateHandle(([n, t]) => {
          const dt = new DataTransfer();
          dt.items.add(new File([t], n, { type: "text/plain" }));
          return dt;
        }, [name, text]);
        await page.dispatchEvent(".app", "drop", { dataTransfer: dt });
      };
      // A policy that denies every change: the rows are judged again with it, in the set's
      // workers, and the row says what the policy found.
      await drop(
        "every_change.rego",
        'package main\n\ndeny contains msg if {\n\tsome rc in input.resource_changes\n\tmsg := sprintf("seen by policy: %s", [rc.address])\n}\n',
      );
      await expect(row.getByTestId("rollup-row-verdict")).toHaveText("needs approval", { timeout: 20000 });
      await expect(row).toHaveAttribute("data-attention", "needs-approval");
      await expect(page.getByTestId("rollup-judged-by")).toContainText("the rules and your 1 Rego policy");
      await expect(page.getByTestId("rollup-policies")).toHaveCount(0);
      // The roll-up's comment carries the policy's finding, as `planlens summary --policy` does.
      await page.getByTestId("rollup-share").click();
      await expect(page.getByTestId("rollup-share-markdown-text")).toHaveValue(/seen by policy: /, { timeout: 20000 });
      // A policy that does not compile: no verdict, and why.
      await drop("broken.rego", "package main\n\ndeny contains msg if {\n");
      await expect(page.getByTestId("rollup-policies")).toContainText("could not run on 2 of 2 plans", { timeout: 20000 });
      await expect(page.getByTestId("rollup-policies")).toContainText("broken.rego");
      await expect(row.getByTestId("rollup-row-verdict")).toHaveText("no verdict: policies failed");
      // A plan whose planning failed stays failed.
      const failed = page.locator("[data-testid=fleet-row][data-id=plan_errored]");
      await expect(failed.getByTestId("rollup-row-verdict")).toHaveText("planning failed");
      await expect(page.getByTestId("rollup-verdict")).toContainText("1 with no verdict: the policies did not run");
      await expect(page.getByTestId("rollup-judged-by")).toHaveCount(0);
      const width0 = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width0).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: `/tmp/shots/plans-policies-${device}.png`, fullPage: false });
      // Removing the policies judges the plans again by the rules alone.
      await page.getByTestId("rollup-remove-policies").click();
      await expect(row.getByTestId("rollup-row-verdict")).toHaveText("pass", { timeout: 20000 });
      await expect(page.getByTestId("rollup-policies")).toHaveCount(0);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });
  });
}
