// Human-readable plans open like plans, at desktop and phone sizes, and say they were read from
// text: a dropped OpenTofu text plan gives Terraform's sentence, a banner on what a text leaves
// out, each resource with its action (replace orders, deposed, import, forget, read, drift only),
// and a diff of only what the text showed, with its note; a pasted Atlantis comment opens; a
// tf-controller message cut at 20,000 characters says it was cut and is never judged as a whole plan.
// The fixtures are in tests/fixtures/text_plans (see tests/fixtures/README.md).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan, closeDetail } from "./helpers.mjs";

const DIR = join(REPO, "tests", "fixtures", "text_plans");

const rowByAddress = (page, address) =>
  page.locator(`[data-testid=resource-row][data-address="${address.replace(/["\\]/g, "\\$&")}"]`);

/** Drops a file on the page as a user would. */
async function drop(page, name) {
  const text = readFileSync(join(DIR, name), "utf8");
  const dataTransfer = await page.evaluateHandle(
    ({ text, name }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: "text/plain" }));
      return dt;
    },
    { text, name },
  );
  await page.dispatchEvent(".app", "dragover", { dataTransfer });
  await page.dispatchEvent(".app", "drop", { dataTransfer });
  await expect(page.locator(".topbar .doc-name")).toHaveText(name);
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`A human-readable plan opens and says it was read from text (${device})`, () => {
    test.use({ viewport });

    test("dropped: summary, actions, a diff of what the text showed", async ({ page }) => {
      await gotoApp(page);
      await drop(page, "opentofu_drift.txt");
      await expect(page.getByTestId("plan-summary")).toHaveText(
        "Plan: 1 to import, 3 to add, 2 to change, 4 to destroy, 1 to forget.",
      );
      await expect(page.getByTestId("load-error")).toHaveCount(0);
      await expect(page.getByTestId("banner-text-plan")).toContainText("Read from a human-readable plan");
      await expect(page.getByTestId("banner-text-plan")).toContainText("no dependency edges");
      await expect(page.getByTestId("plan-versions")).toHaveText("OpenTofu · human-readable plan (read from text)");
      await page.screenshot({ path: `test-results/text-plan-${device}-summary.png` });

      // Every change the text names, with the action it names.
      for (const [address, action] of [
        ["aws_instance.web[0]", "create"],
        ["aws_db_instance.main", "update"],
        ["aws_launch_template.app", "replace-cbd"], // +/-: create before destroy
        ["aws_instance.bastion", "replace"],
        ["aws_iam_role.legacy", "forget"],
        ["data.aws_iam_policy_document.assume", "read"],
        ['module.net.aws_subnet.private["b"]', "delete"],
      ]) {
        await expect(rowByAddress(page, address), address).toHaveAttribute("data-action", action);
      }

      // The diff: the changed and shown attributes, the secret as a mark, and the note.
      await rowByAddress(page, "aws_db_instance.main").click();
      await expect(page.getByTestId("diff-address")).toHaveText("aws_db_instance.main");
      await expect(page.getByTestId("fact-text-plan")).toContainText("Read from text: only the attributes the text shows");
      const tree = page.getByTestId("diff-tree");
      await expect(tree).toContainText("instance_class");
      await expect(tree).toContainText("db.t3.medium");
      await expect(tree).toContainText("db.r5.large");
      // The text says the password changes; its value is in no view.
      await expect(tree).toContainText("~ password = (sensitive value) → (sensitive value)");
      expect(await page.locator("body").innerText()).not.toContain("not in the text");
      await page.screenshot({ path: `test-results/text-plan-${device}-diff.png` });
      await closeDetail(page);

      // A replace the text forces: its replace path is marked.
      await rowByAddress(page, "aws_launch_template.app").click();
      await expect(page.getByTestId("diff-address")).toHaveText("aws_launch_template.app");
      await expect(page.getByTestId("diff-tree")).toContainText("image_id");
      await expect(page.getByTestId("diff-tree")).toContainText("forces replacement");
      await closeDetail(page);

      // Rules: the value a text hides is "not checked", never a silent pass.
      await page.getByRole("tab", { name: /Rules/ }).click();
      await expect(page.locator("body")).toContainText("Not checked on 1 resource");
    });

    test("pasted Atlantis comment, and a cut controller message", async ({ page }) => {
      await gotoApp(page);
      await page.getByTestId("paste-box").fill(readFileSync(join(DIR, "atlantis_comment.md"), "utf8"));
      await page.getByTestId("paste-open").click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to add, 1 to change, 0 to destroy.");
      await expect(page.getByTestId("banner-text-plan")).toBeVisible();
      await expect(rowByAddress(page, "aws_instance.app")).toHaveAttribute("data-action", "update");

      // A comment of two projects planning the same address is never judged as one plan: each
      // project is a plan of its own, in the roll-up (issue 28).
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(join(DIR, "atlantis_two_projects.md"));
      await expect(page.getByTestId("fleet-summary")).toContainText("2 plans: 2 with changes");
      const rows = page.locator("[data-testid=fleet-row][data-kind=plan]");
      expect(await rows.evaluateAll((r) => r.map((x) => x.dataset.id))).toEqual(["envs (production)", "envs (staging)"]);
      await expect(page.getByTestId("rollup-verdict")).toContainText(/needs approval/i);
      await rows.first().getByTestId("fleet-row-head").click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to add, 0 to change, 1 to destroy.");

      await openPlan(page, join(DIR, "tf_controller_drift_message_cut.txt"));
      await expect(page.getByTestId("banner-incomplete")).toContainText("it was cut");
      await expect(page.getByTestId("plan-summary")).toHaveText(
        "Plan: 24 to add, 3 to change, 0 to destroy. The text was cut: there may be more changes.",
      );
      await expect(page.getByTestId("verdict")).toContainText(/plan incomplete/i);
      await page.screenshot({ path: `test-results/text-plan-${device}-cut.png` });
    });

    test("a text whose changes do not add up to its Plan: line never says there are none", async ({ page }) => {
      // A CI step filtered one resource's block out: one create is read, the text plans two.
      await gotoApp(page);
      await openPlan(page, join(DIR, "plan_line_disagrees.txt"));
      await expect(page.getByTestId("banner-incomplete")).toContainText("do not add up");
      await expect(page.getByTestId("verdict")).toContainText(/plan incomplete/i);
      // Only the no-ops hidden: the list's empty state must not say there are no changes.
      await expect(rowByAddress(page, "aws_s3_bucket.assets")).toHaveAttribute("data-action", "create");
      await page.getByTestId("tab-drift").click();
      await expect(page.getByTestId("drift-incomplete")).toContainText("Drift not known: this is not the whole plan");
      await expect(page.getByTestId("no-drift")).toHaveCount(0);
      await expect(page.getByTestId("tab-drift").locator(".tab-count")).toHaveCount(0);

      // Terraform 0.11's wording: each resource with its action, values not read.
      await openPlan(page, join(DIR, "terraform_0_11_plan.txt"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 3 to add, 1 to change, 3 to destroy.");
      await expect(page.getByTestId("banner-incomplete")).toHaveCount(0);
      await expect(rowByAddress(page, "module.queue.aws_sqs_queue.jobs")).toHaveAttribute("data-action", "delete");
      await expect(rowByAddress(page, "aws_instance.web")).toHaveAttribute("data-action", /replace/);
      await expect(page.getByTestId("verdict")).toContainText(/needs approval/i);
    });
  });
}
