// The keyboard (issue 25), at 1400×860 and 390×844: with a resource selected, Enter still works
// on a focused tab, button or link (the page's keys leave it to them); the resource list is one
// tab stop whose active row (the cursor) is outlined, moved with ↓/↑, Home/End and opened with
// Enter or Space; PageDown/PageUp/Home/End scroll the selected resource's diff wherever the focus
// is (the list keeps Home/End), and the diff is a tab stop of its own in which every scrolling key
// scrolls it.
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan, closeDetail } from "./helpers.mjs";

const SAMPLES = join(REPO, "samples");
const FIXTURES = join(REPO, "tests", "fixtures");
// A resource whose diff, unchanged attributes shown, is several screens long.
const LONG = { plan: join(FIXTURES, "diff_like_terraform_show.json"), address: "aws_security_group.web" };

const SIZES = [
  { name: "desktop 1400×860", phone: false, use: { viewport: { width: 1400, height: 860 } } },
  { name: "phone 390×844", phone: true, use: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } },
];

const row = (page, address) => page.locator(`[data-testid=resource-row][data-address="${address}"]`);
/** The rows in the DOM in list order (the list is virtual: those near the view). */
const listed = (page) =>
  page.getByTestId("resource-row").evaluateAll((rows) =>
    rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top)).map((r) => r.dataset.address),
  );
const focusedTestId = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);

/** The diff pane's scroll position and how far it can scroll. */
const diffScroll = (page) =>
  page.getByTestId("diff-panel").evaluate((el) => ({ top: el.scrollTop, max: el.scrollHeight - el.clientHeight, page: el.clientHeight }));

async function selectLong(page) {
  await openPlan(page, LONG.plan);
  await row(page, LONG.address).click();
  await expect(page.getByTestId("diff-address")).toHaveText(LONG.address);
  await page.getByTestId("show-unchanged-attrs").check();
  await expect.poll(async () => (await diffScroll(page)).max).toBeGreaterThan(1000);
}

for (const size of SIZES) {
  test.describe(`Keyboard (${size.name})`, () => {
    test.use(size.use);

    test("with a resource selected, Enter works on a focused tab, button and link", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      const [chosen] = await listed(page);
      await row(page, chosen).click();
      await expect(page.getByTestId("diff-address")).toHaveText(chosen);
      await closeDetail(page);

      await page.getByTestId("tab-graph").focus();
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
      await page.getByTestId("tab-resources").focus();
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("tab-resources")).toHaveAttribute("aria-selected", "true");
      // The selection is kept, not replaced by the list's cursor.
      await expect(row(page, chosen)).toHaveClass(/\bselected\b/);

      await page.getByTestId("share").focus();
      await page.keyboard.press("Enter");
      await expect(page.getByRole("dialog")).toBeVisible();
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog")).toHaveCount(0);

      // A link (the logo) follows on Enter too: the landing page shows, the plan still open.
      await page.locator(".topbar .brand").focus();
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("back-to-plan")).toBeVisible();
    });

    test("the list is one tab stop: Tab reaches it, its active row is outlined, keys move and open", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      const list = page.getByTestId("resource-list");
      const addresses = await listed(page);
      expect(addresses.length).toBeGreaterThan(3);

      await page.getByTestId("search").focus();
      for (let i = 0; i < 30 && (await focusedTestId(page)) !== "resource-list"; i++) await page.keyboard.press("Tab");
      await expect(list).toBeFocused();
      await expect(list).toHaveAttribute("role", "listbox");
      // The first row is the active one, and it shows: the list and the row are outlined.
      const first = row(page, addresses[0]);
      await expect(first).toHaveClass(/\bcursor\b/);
      await expect(list).toHaveAttribute("aria-activedescendant", await first.getAttribute("id"));
      await expect(first).toHaveAttribute("role", "option");
      expect(await list.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe("solid");
      expect(await first.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe("solid");

      await page.keyboard.press("ArrowDown");
      await expect(row(page, addresses[1])).toHaveClass(/\bcursor\b/);
      await expect(list).toHaveAttribute("aria-activedescendant", await row(page, addresses[1]).getAttribute("id"));
      // End: the last row (its line ends the list), scrolled into view.
      await page.keyboard.press("End");
      const cursor = page.locator("[data-testid=resource-row].cursor");
      await expect
        .poll(() => cursor.evaluate((r) => r.parentElement.offsetHeight - (r.offsetTop + r.offsetHeight)))
        .toBeLessThan(1);
      await expect(cursor).toBeInViewport();
      await page.keyboard.press("Home");
      await expect(first).toHaveClass(/\bcursor\b/);
      await page.keyboard.press("j");
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("diff-address")).toHaveText(addresses[1]);
      await expect(row(page, addresses[1])).toHaveAttribute("aria-selected", "true");
      await closeDetail(page);
      // Space opens the active row as Enter does.
      await list.focus();
      await page.keyboard.press("j");
      await page.keyboard.press(" ");
      await expect(page.getByTestId("diff-address")).toHaveText(addresses[2]);
    });

    test("PageDown, PageUp, Home and End scroll a long diff; focused, the diff scrolls with every key", async ({ page }) => {
      await gotoApp(page);
      await selectLong(page);
      // The checkbox keeps the focus after the click: from there the page's keys are the
      // field's. Clicking the row again puts the focus on the list, as a reader's click does.
      await closeDetail(page);
      await row(page, LONG.address).click();
      await expect.poll(async () => (await diffScroll(page)).top).toBe(0);

      await page.keyboard.press("PageDown");
      const { page: h } = await diffScroll(page);
      await expect.poll(async () => (await diffScroll(page)).top).toBeGreaterThan(h / 2);
      const afterOne = (await diffScroll(page)).top;
      await page.keyboard.press("PageDown");
      await expect.poll(async () => (await diffScroll(page)).top).toBeGreaterThan(afterOne);
      await page.keyboard.press("PageUp");
      await expect.poll(async () => (await diffScroll(page)).top).toBe(afterOne);
      if (size.phone) {
        // The detail is a sheet over the list: Home and End are the diff's.
        await page.keyboard.press("End");
        await expect.poll(async () => { const s = await diffScroll(page); return s.max - s.top; }).toBeLessThan(2);
        await page.keyboard.press("Home");
        await expect.poll(async () => (await diffScroll(page)).top).toBe(0);
      }

      // The diff is a tab stop named after its resource; focused, arrows, Space and End scroll it.
      const diff = page.getByTestId("diff-panel");
      await expect(diff).toHaveAttribute("tabindex", "0");
      await expect(diff).toHaveAttribute("aria-label", `Attribute diff of ${LONG.address}`);
      await diff.focus();
      await page.keyboard.press("Home");
      await expect.poll(async () => (await diffScroll(page)).top).toBe(0);
      await page.keyboard.press("ArrowDown");
      await expect.poll(async () => (await diffScroll(page)).top).toBeGreaterThan(0);
      await page.keyboard.press("End");
      await expect.poll(async () => { const s = await diffScroll(page); return s.max - s.top; }).toBeLessThan(2);
      // The list's cursor did not move meanwhile.
      await expect(row(page, LONG.address)).toHaveClass(/\bcursor\b/);
    });

    test("with no diff open, PageDown moves the list's cursor a page", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      const list = page.getByTestId("resource-list");
      await list.focus();
      const addresses = await listed(page);
      await expect(row(page, addresses[0])).toHaveClass(/\bcursor\b/);
      await page.keyboard.press("PageDown");
      await expect(row(page, addresses[0])).not.toHaveClass(/\bcursor\b/);
      await expect(page.locator("[data-testid=resource-row].cursor")).toHaveCount(1);
    });
  });
}
