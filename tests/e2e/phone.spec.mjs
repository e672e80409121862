// Planlens on a phone (390×844, and the narrowest width we support, 360): every tab fits the
// screen without scrolling the page sideways, the resource list shows at least ten rows, the
// detail opens as a full-screen sheet with a way back, dialogs fit, and what a finger presses is at
// least 40 px tall.

import { join } from "node:path";
import { test, expect, REPO, REAL, sharedFiles } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const SAMPLES = join(REPO, "samples");
const FIXTURES = join(REPO, "tests", "fixtures");
const TABS = ["resources", "graph", "drift", "rules", "outputs", "checks"];

/** How far the page itself scrolls sideways (0 when everything fits). */
async function sidewaysOverflow(page) {
  return page.evaluate(() => {
    const el = document.scrollingElement;
    return el.scrollWidth - el.clientWidth;
  });
}

/** Elements that stick out past the right edge of the screen, with what they are. */
async function outsideTheScreen(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      // Content of an element that scrolls sideways by itself (the tab bar, code) may run on.
      let p = el.parentElement;
      let scrolls = false;
      while (p && p !== document.body) {
        const o = getComputedStyle(p).overflowX;
        if (o === "auto" || o === "scroll" || o === "hidden") {
          scrolls = true;
          break;
        }
        p = p.parentElement;
      }
      if (!scrolls && r.right > width + 1) {
        out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} right=${Math.round(r.right)}`);
      }
    }
    return out.slice(0, 5);
  });
}

async function expectFits(page, what) {
  expect(await sidewaysOverflow(page), `${what}: the page scrolls sideways`).toBeLessThanOrEqual(0);
  expect(await outsideTheScreen(page), `${what}: elements past the right edge`).toEqual([]);
}

for (const width of [390, 360]) {
  test.describe(`Phone ${width}×844`, () => {
    test.use({ viewport: { width, height: 844 }, hasTouch: true, isMobile: true });

    test("every tab of a plan and of a drift report fits the screen", async ({ page }) => {
      await gotoApp(page);
      await expectFits(page, "landing");
      const files = [join(SAMPLES, "web-app-replace.json"), join(SAMPLES, "drift-refresh.json"), join(FIXTURES, "driftctl.json")];
      const nested = join(REAL, "terraform-compliance__module_count_for_each_tree.json");
      files.push(...sharedFiles(nested));
      for (const path of files) {
        await openPlan(page, path);
        for (const tab of TABS) {
          await page.getByTestId(`tab-${tab}`).click();
          await expect(page.getByTestId(`tab-${tab}`)).toHaveAttribute("aria-selected", "true");
          await expectFits(page, `${path} ${tab}`);
        }
        await page.getByTestId("tab-resources").click();
      }
    });

    test("the graph fills the screen below the tabs", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "modules-for-each.json"));
      await page.getByTestId("tab-graph").click();
      const canvas = page.locator("canvas.graph-canvas");
      await expect(canvas).toBeVisible();
      const box = await canvas.boundingBox();
      expect(box.width).toBeGreaterThanOrEqual(width - 1);
      expect(box.height).toBeGreaterThanOrEqual(844 * 0.6);
      // Back on the list, the summary is there again.
      await page.getByTestId("tab-resources").click();
      await expect(page.getByTestId("plan-summary")).toBeVisible();
    });

    test("the resource list shows at least ten rows, each a 40 px touch target", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      const list = page.getByTestId("resource-list");
      await expect(list.locator(".row").first()).toBeVisible();
      const fullyShown = await page.evaluate(() => {
        const list = document.querySelector("[data-testid=resource-list]").getBoundingClientRect();
        const bottom = Math.min(list.bottom, window.innerHeight);
        return [...document.querySelectorAll("[data-testid=resource-list] .row")]
          .map((r) => r.getBoundingClientRect())
          .filter((r) => r.top >= list.top - 1 && r.bottom <= bottom + 1).length;
      });
      expect(fullyShown).toBeGreaterThanOrEqual(10);
      // No empty "Select a resource" placeholder takes the room.
      await expect(page.getByText("Select a resource to see what changes.")).toBeHidden();
      const heights = await list.locator(".row").evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
      expect(Math.min(...heights)).toBeGreaterThanOrEqual(40);
    });

    test("rows give the address the whole width: module rows read whole, relative to their heading", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "modules-for-each.json"));
      const rows = page.getByTestId("resource-list").locator(".row[data-address]");
      await expect(rows.first()).toBeVisible();
      const seen = await rows.evaluateAll((els) =>
        els.map((el) => {
          const addr = el.querySelector(".addr");
          const marked = el.querySelector(".mark") !== null;
          return { address: el.dataset.address, text: addr.textContent, marked, cut: addr.scrollWidth > addr.clientWidth + 1 };
        }),
      );
      const inModules = seen.filter((r) => r.address.startsWith("module."));
      expect(inModules.length).toBeGreaterThan(3);
      for (const r of inModules) {
        expect(r.address.endsWith(r.text), r.address).toBe(true);
        expect(r.text.startsWith("module."), r.address).toBe(false);
        // With no type column beside it, an address of up to 32 characters (most) is never cut;
        // longer ones lose their start, never their end (tests/e2e/nav.spec.mjs).
        if (!r.marked && r.text.length <= 32) expect(r.cut, `${r.address} is cut`).toBe(false);
      }
    });

    test("a row opens its detail as a full-screen sheet; Back returns to the list where it was", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      const rows = page.getByTestId("resource-list").locator(".row[data-address]");
      const address = await rows.nth(3).getAttribute("data-address");
      await rows.nth(3).click();
      const sheet = page.getByTestId("detail-sheet");
      await expect(sheet).toBeVisible();
      const box = await sheet.boundingBox();
      expect(box.x).toBeLessThanOrEqual(0.5);
      expect(box.y).toBeLessThanOrEqual(0.5);
      expect(box.width).toBeGreaterThanOrEqual(width - 1);
      expect(box.height).toBeGreaterThanOrEqual(843);
      await expect(sheet).toContainText(address);
      await expectFits(page, "detail sheet");
      const back = page.getByTestId("sheet-back");
      expect((await back.boundingBox()).height).toBeGreaterThanOrEqual(40);
      await back.click();
      await expect(page.getByTestId("detail-sheet")).toBeHidden();
      // The selection stays: the row is still marked, and the tabs are reachable again.
      const row = page.getByTestId("resource-list").locator(`.row[data-address="${address}"]`);
      await expect(row).toBeVisible();
      await expect(row).toHaveClass(/selected/);
      await page.getByTestId("tab-graph").click();
      await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
    });

    test("the tabs, the topbar and the summary's buttons are 40 px touch targets", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      for (const sel of ["[role=tab]", ".topbar .button", ".brand"]) {
        const heights = await page.locator(sel).evaluateAll((els) =>
          els.filter((e) => e.getBoundingClientRect().width > 0).map((e) => e.getBoundingClientRect().height),
        );
        expect(heights.length, sel).toBeGreaterThan(0);
        expect(Math.min(...heights), sel).toBeGreaterThanOrEqual(40);
      }
    });

    test("the Share dialog fits the screen", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      await page.getByTestId("share").click();
      const dialog = page.getByRole("dialog");
      await expect(dialog).toBeVisible();
      const box = await dialog.boundingBox();
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await expectFits(page, "share dialog");
    });
  });
}

test.describe("Drift on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("a drifted resource opens as a sheet; Back returns to the drift list", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "drift_set_and_deleted.json"));
    await page.getByTestId("tab-drift").click();
    const items = page.getByTestId("drift-item");
    await items.first().click();
    const sheet = page.getByTestId("drift-sheet");
    await expect(sheet).toBeVisible();
    const box = await sheet.boundingBox();
    expect(box.width).toBeGreaterThanOrEqual(389);
    expect(box.height).toBeGreaterThanOrEqual(843);
    await expect(sheet.getByTestId("drift-detail")).toBeVisible();
    await expectFits(page, "drift sheet");
    await page.getByTestId("drift-sheet-back").click();
    await expect(sheet).toBeHidden();
    await expect(items.first()).toBeVisible();
  });
});

test.describe("Desktop 1400×860", () => {
  test.use({ viewport: { width: 1400, height: 860 } });

  test("list and detail stay side by side; no sheet, no Back button", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(SAMPLES, "web-app-replace.json"));
    const rows = page.getByTestId("resource-list").locator(".row[data-address]");
    await rows.nth(2).click();
    await expect(page.getByTestId("diff-panel")).toBeVisible();
    await expect(page.getByTestId("sheet-back")).toBeHidden();
    const list = await page.getByTestId("resource-list").boundingBox();
    const detail = await page.getByTestId("diff-panel").boundingBox();
    expect(detail.x).toBeGreaterThanOrEqual(list.x + list.width - 1);
    await expectFits(page, "desktop");
  });
});
