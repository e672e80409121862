// Files as real tools write them open in the browser: UTF-16 (PowerShell's `>`), gzip, and the
// output of GitHub's setup-terraform wrapper, each with a note saying what was undone; the pickers
// offer every kind of file the loader reads (.tfstate, .yaml, .md …); a dropped .gz opens; a reload reopens the decoded plan. A state
// (`terraform show -json` without a plan file) opens as a state: its line, no verdict, no "No changes.".
// The UTF-16 and gzip files are made here from our fixtures, so nothing binary is committed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const read = (name) => readFileSync(join(FIXTURES, name));

const FORGET = "Plan: 2 to add, 0 to change, 0 to destroy. Also 2 to forget (removed from the state, not destroyed), which Terraform's line does not count.";
const IMPORT = "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.";

/** PowerShell's `terraform show -json plan.out > plan.json`: UTF-16 LE with a byte order mark. */
const utf16le = (bytes) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(bytes.toString("utf8"), "utf16le")]);

async function choose(page, name, buffer, mimeType = "application/octet-stream") {
  await page.locator("input[type=file][data-testid=plan-file]").setInputFiles({ name, mimeType, buffer });
}

async function expectOpened(page, name, sentence, note) {
  await expect(page.locator(".topbar .doc-name")).toHaveText(name);
  await expect(page.getByTestId("plan-summary")).toHaveText(sentence);
  await expect(page.getByTestId("load-error")).toHaveCount(0);
  await expect(page.getByTestId("load-warning")).toHaveCount(0);
  const notes = page.getByTestId("load-note");
  await expect(notes).toHaveCount(note.length);
  for (let i = 0; i < note.length; i++) {
    await expect(notes.nth(i)).toContainText(note[i]);
    await expect(notes.nth(i)).toBeVisible();
    await expect(notes.nth(i)).toHaveClass(/\bbanner-info\b/);
  }
  await expect(page.getByTestId("verdict")).toBeVisible();
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`real-world inputs (${device})`, () => {
    test.use({ viewport });

    test("the pickers offer every kind of file Planlens opens, and the page says what opens", async ({ page }) => {
      await gotoApp(page);
      // What the loader reads, under the names tools save it as: a name no `.ext` of the list
      // ends is greyed out in the system dialog.
      const names = [
        "plan.json", "plan.jsonl", "plan-log.log", "plan.txt", "atlantis-comment.md", "tfcmt.md",
        "terraform.tfstate", "terraform.tfstate.backup", "objects.yaml", "objects.yml", "plan.json.gz",
        "plans.zip", "plans.tar", "plans.tar.gz", "plans.tgz",
      ];
      for (const input of [page.getByTestId("plan-file"), page.getByTestId("landing-files")]) {
        const extensions = (await input.getAttribute("accept")).split(",").filter((t) => t.startsWith("."));
        for (const name of names) expect(extensions.some((e) => name.endsWith(e)), name).toBe(true);
      }
      const inputs = page.getByTestId("landing-inputs");
      await expect(inputs).toBeVisible();
      for (const what of ["terraform plan -json", "text plan", "Atlantis", "tfcmt", "state", ".tfstate", "driftctl", "tf-controller"]) {
        await expect(inputs, what).toContainText(what);
      }
    });

    test("a UTF-16 file opens with a note", async ({ page }) => {
      await gotoApp(page);
      await choose(page, "plan.json", utf16le(read("forget.json")));
      await expectOpened(page, "plan.json", FORGET, ["Decoded UTF-16 LE text (PowerShell's `>` writes UTF-16)."]);
    });

    test("a .gz file opens with a note, and a reload reopens the plan", async ({ page }) => {
      await gotoApp(page);
      const gz = gzipSync(read("forget.json"));
      await choose(page, "plan.json.gz", gz, "application/gzip");
      await expectOpened(page, "plan.json.gz", FORGET, [/^Decompressed gzip \(\d+(\.\d)? (bytes|KB) → \d+(\.\d)? KB\)\.$/]);
      // The tab keeps the decompressed plan: a reload opens it again, with nothing left to undo.
      await page.reload();
      await expectOpened(page, "plan.json.gz", FORGET, []);
    });

    test("setup-terraform wrapper output opens with a note saying what was removed", async ({ page }) => {
      await gotoApp(page);
      await choose(page, "wrapper_setup_terraform.txt", read("wrapper_setup_terraform.txt"), "text/plain");
      await expectOpened(page, "wrapper_setup_terraform.txt", IMPORT, [
        "Removed 1 line before the JSON (`[command]…`) and 7 lines after it (`::debug::`, `::set-output …::`): " +
          "written by GitHub's setup-terraform wrapper (`terraform_wrapper: false` turns it off). The JSON itself is unchanged.",
      ]);
      if (device === "desktop") await expect(page.getByTestId("resource-row")).toHaveCount(3);
    });

    test("a wrapped UTF-16 plan log in gzip opens with three notes", async ({ page }) => {
      await gotoApp(page);
      await choose(page, "plan.log.gz", gzipSync(utf16le(read("wrapper_plan_log.txt"))));
      await expectOpened(page, "plan.log.gz", "Plan: 1 to add, 0 to change, 0 to destroy.", [
        "Decompressed gzip (",
        "Decoded UTF-16 LE",
        "Removed 1 line before the JSON",
      ]);
    });

    test("a dropped .gz file opens: drops are not filtered by extension", async ({ page }) => {
      await gotoApp(page);
      const bytes = [...gzipSync(read("forget.json"))];
      const dataTransfer = await page.evaluateHandle((bytes) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], "plan.json.gz", { type: "application/gzip" }));
        return dt;
      }, bytes);
      await page.dispatchEvent(".app", "dragover", { dataTransfer });
      await page.dispatchEvent(".app", "drop", { dataTransfer });
      await expectOpened(page, "plan.json.gz", FORGET, ["Decompressed gzip ("]);
    });

    test("what other tools write is told true: actions to invoke, a move that is not drift, an apply log", async ({ page }) => {
      await gotoApp(page);
      // A plan that only invokes a provider action (Terraform 1.14) is not "No changes.", and the
      // action's configuration (a marked and a secret-named value) is nowhere on the page.
      await choose(page, "actions.json", read("action_invocations.json"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 0 to add, 0 to change, 0 to destroy. Actions: 1 to invoke.");
      await expect(page.getByTestId("count-action")).toHaveText("1 action to invoke: action.aws_lambda_invoke.notify");
      await expect(page.getByTestId("verdict")).toBeVisible();
      expect(await page.locator("body").innerText()).not.toContain("SECRET");
      // A resource a moved block renamed, listed with the drift as a no-op with equal values:
      // no drift, no tag-only finding.
      await choose(page, "moved.json", read("moved_refresh_only.json"));
      await expect(page.locator(".topbar .doc-name")).toHaveText("moved.json");
      await page.getByTestId("tab-drift").click();
      await expect(page.getByTestId("drift-item")).toHaveCount(0);
      expect(await page.locator("body").innerText()).not.toContain("Tag-only drift");
      // The log of an apply is refused: no summary, no verdict.
      await choose(page, "apply.log", read("apply_log.jsonl"));
      await expect(page.getByTestId("load-error")).toContainText("This is the log of `terraform apply -json`");
      await expect(page.getByTestId("load-error")).toBeVisible();
      // Text that is not a plan says what it is, not "This is not JSON".
      for (const [name, says] of [
        ["not_plans/atlantis_apply_comment.md", "This is an Atlantis comment of `apply`"],
        ["not_plans/driftctl_text_output.txt", "This is driftctl's text output"],
        ["not_plans/terraform_0_11_apply.log", "This is the output of `terraform apply`"],
      ]) {
        await choose(page, name.split("/")[1], read(name));
        await expect(page.getByTestId("load-error"), name).toContainText(says);
        await expect(page.getByTestId("load-error"), name).not.toContainText("not JSON");
      }
    });

    test("strangers' files told true: a plan log that reads data sources, its outputs, a state with checks, reformatted JSON", async ({ page }) => {
      await gotoApp(page);
      // OpenTofu logs the data sources a plan reads as apply_start/apply_complete of action read:
      // still a plan, judged as one.
      await choose(page, "tofu-plan.jsonl", read("plan_log_data_reads_removed.jsonl"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to add, 0 to change, 0 to destroy, 1 to forget.");
      await expect(page.getByTestId("load-error")).toHaveCount(0);
      await expect(page.getByTestId("verdict")).toBeVisible();
      // A plan log's outputs message lists the outputs it changes, by name, with no value.
      await choose(page, "plan-outputs.jsonl", read("plan_log_outputs.jsonl"));
      await expect(page.locator(".topbar .doc-name")).toHaveText("plan-outputs.jsonl");
      await page.getByTestId("tab-outputs").click();
      await expect(page.getByTestId("output-row")).toHaveCount(3);
      await expect(page.getByTestId("output-row").nth(2)).toContainText("deploy_hook_url");
      await expect(page.getByTestId("output-row").nth(2)).toContainText("sensitive");
      expect(await page.locator("body").innerText()).not.toContain("This plan changes no outputs.");
      // A shown state with only child modules and a checks key is a state: no verdict.
      await choose(page, "state-checks.json", read("states/shown_state_modules_checks.json"));
      await expect(page.getByTestId("plan-summary")).toHaveText("State: 2 resources in 1 module (Terraform 1.5.7).");
      await expect(page.getByTestId("verdict")).toHaveCount(0);
      // A bucket policy only reformatted outside Terraform is not drift; a real edit is.
      await choose(page, "policy.json", read("drift_json_whitespace.json"));
      await expect(page.locator(".topbar .doc-name")).toHaveText("policy.json");
      await page.getByTestId("tab-drift").click();
      await expect(page.getByTestId("drift-item")).toHaveCount(1);
      await expect(page.getByTestId("drift-item")).toContainText("aws_iam_policy.deploy");
    });

    test("a shown state opens as a state in every encoding: its line, no verdict, no \"No changes.\"", async ({ page }) => {
      await gotoApp(page);
      for (const [name, buffer] of [
        ["state.json", read("shown_state.json")],
        ["state.json.gz", gzipSync(read("shown_state.json"))],
      ]) {
        await choose(page, name, buffer);
        await expect(page.locator(".topbar .doc-name")).toHaveText(name);
        await expect(page.getByTestId("plan-summary")).toHaveText("State: 4 resources in 2 modules (Terraform 1.9.5).");
        await expect(page.getByTestId("load-error")).toHaveCount(0);
        await expect(page.getByTestId("verdict")).toHaveCount(0);
        const body = await page.locator("body").innerText();
        expect(body).not.toContain("No changes.");
        expect(body).not.toContain("SECRET");
      }
    });
  });
}
