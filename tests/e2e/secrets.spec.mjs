// Secrets a plan does not mark (Terraform 0.14, or a provider that forgot) stay hidden in the page,
// both share links and the Markdown comment; the Share dialog says plainly when a plan has no
// marks and offers the redacted link first; the user's own patterns mask more and are kept.
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan, closeDetail } from "./helpers.mjs";

const OLD_PLAN = `${REPO}tests/fixtures/tf0_14_unmarked_secrets.json`;
const MARKED_PLAN = `${REPO}tests/fixtures/share_secrets.json`;

for (const [width, height] of [[1400, 860], [390, 844]]) {
  test.describe(`at ${width}×${height}`, () => {
    test.use({ viewport: { width, height } });

    test("an unmarked password is masked in the diff, outputs and rules", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, OLD_PLAN);
      await page.locator('[data-testid=resource-row][data-address="aws_db_instance.main"]').click();
      await page.getByTestId("show-unchanged-attrs").first().check();
      const tree = page.getByTestId("diff-tree").first();
      await expect(tree).toContainText("password");
      await expect(tree).toContainText("(sensitive value)");
      await expect(tree).toContainText('identifier = "orders"');
      await closeDetail(page);
      await page.locator('[data-testid=resource-row][data-address="aws_lambda_function.worker"]').click();
      await page.getByTestId("show-unchanged-attrs").first().check();
      await expect(page.getByTestId("diff-tree").first()).toContainText("DB_HOST");
      await closeDetail(page);
      await page.getByRole("tab", { name: /Outputs/ }).click();
      await expect(page.locator("body")).toContainText("db_password");
      await page.getByRole("tab", { name: /Rules/ }).click();
      await expect(page.getByTestId("mask-this-plan")).toContainText("marks no resource value sensitive");
      await expect(page.getByTestId("mask-this-plan")).toContainText("9 values are masked by name");
      expect(await page.locator("body").innerText()).not.toMatch(/SECRET-/);
    });

    test("the Share dialog says the plan has no marks, offers the redacted link first, and no link or comment carries a secret", async ({ page, context }) => {
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await gotoApp(page);
      await openPlan(page, OLD_PLAN);
      await page.getByTestId("share").click();
      const dialog = page.getByTestId("share-dialog");
      await expect(dialog.getByTestId("share-markdown")).toBeVisible();
      await expect(dialog.getByTestId("share-no-marks")).toContainText("This plan marks no resource value sensitive.");
      await expect(dialog.getByTestId("share-no-marks")).toContainText("masked 9 values by name");
      await expect(dialog.getByTestId("share-promise")).toContainText("a secret under another name would too");
      // The redacted link comes first.
      const sections = await dialog.locator("[data-testid^=share-][data-testid$=-link]").evaluateAll((els) => els.map((e) => e.dataset.testid));
      expect(sections.slice(0, 2)).toEqual(["share-redacted-link", "share-full-link"]);
      // The comment links the redacted form, not the plan.
      const markdown = await dialog.getByTestId("share-markdown-text").inputValue();
      expect(markdown).toContain("redacted link");
      expect(markdown).not.toMatch(/SECRET-/);
      const full = await dialog.getByTestId("share-full-link").inputValue();
      const redacted = await dialog.getByTestId("share-redacted-link").inputValue();
      expect(markdown).toContain(redacted);
      expect(markdown).not.toContain(full);
      // The full link, opened in a new page, shows every diff without a secret.
      const other = await context.newPage();
      await other.goto(full);
      await expect(other.getByTestId("plan-summary")).toBeVisible();
      for (const address of ["aws_db_instance.main", "aws_lambda_function.worker", "aws_secretsmanager_secret_version.api"]) {
        await other.locator(`[data-testid=resource-row][data-address="${address}"]`).click();
        await other.getByTestId("show-unchanged-attrs").first().check();
        await expect(other.getByTestId("diff-tree").first()).toBeVisible();
        expect(await other.locator("body").innerText()).not.toMatch(/SECRET-/);
        await closeDetail(other);
      }
      await other.close();
    });

    test("a plan with its own marks gets the full link first and no warning", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, MARKED_PLAN);
      await page.getByTestId("share").click();
      const dialog = page.getByTestId("share-dialog");
      await expect(dialog.getByTestId("share-markdown")).toBeVisible();
      await expect(dialog.getByTestId("share-no-marks")).toHaveCount(0);
      const sections = await dialog.locator("[data-testid^=share-][data-testid$=-link]").evaluateAll((els) => els.map((e) => e.dataset.testid));
      expect(sections.slice(0, 2)).toEqual(["share-full-link", "share-redacted-link"]);
    });

    test("the user's own patterns mask more, keep the selection, and survive a reload", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, OLD_PLAN);
      const row = page.locator('[data-testid=resource-row][data-address="aws_db_instance.main"]');
      await row.click();
      await closeDetail(page);
      await page.getByRole("tab", { name: /Rules/ }).click();
      await page.getByTestId("mask-patterns").fill("identifier\n*_host");
      await page.getByTestId("mask-apply").click();
      await expect(page.getByTestId("mask-status")).toHaveText("Saved: 2 patterns of yours.");
      await expect(page.getByTestId("mask-this-plan")).toContainText("13 values are masked by name");
      await page.getByRole("tab", { name: /Resources/ }).click();
      await expect(row).toHaveClass(/selected/);
      // On a phone the sheet was closed to reach the tabs: open it again.
      if (width < 800) await row.click();
      await page.getByTestId("show-unchanged-attrs").first().check();
      const tree = page.getByTestId("diff-tree").first();
      await expect(tree).toContainText("identifier = (sensitive value)");
      await expect(page.getByTestId("diff-address")).toContainText("aws_db_instance.main");
      // Kept in this browser: a new page opens plans with them.
      await page.reload();
      await expect(page.locator("input[type=file][data-testid=plan-file]")).toBeAttached();
      // The plan this tab kept reopens (in its worker) with the selection the address names;
      // then the file is opened again, as a new page would.
      await expect(page.getByTestId("diff-address")).toContainText("aws_db_instance.main");
      await closeDetail(page);
      await openPlan(page, OLD_PLAN);
      await page.getByRole("tab", { name: /Rules/ }).click();
      await expect(page.getByTestId("mask-patterns")).toHaveValue("identifier\n*_host");
      await expect(page.getByTestId("mask-this-plan")).toContainText("13 values are masked by name");
      // Emptied: back to the built-in names.
      await page.getByTestId("mask-patterns").fill("");
      await page.getByTestId("mask-apply").click();
      await expect(page.getByTestId("mask-this-plan")).toContainText("9 values are masked by name");
    });
  });
}
