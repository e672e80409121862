// Finding one's way, on a desktop (1400×860) and a phone (390×844): rows under a module heading
// read relative to it and, when cut, keep the end that tells them apart; from the search box Enter
// opens the first match and ↓ steps into the list; a filter that hides the selected resource drops
// it; the logo leads to the landing page (samples, paste) and back to the plan as it was left,
// with the browser's Back and Forward doing the same.

import { join } from "node:path";
import { test, expect, REPO, REAL, needsShared } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const SAMPLES = join(REPO, "samples");
const NESTED = join(REAL, "infracost__terraform_v0_12_plan.json");

/** The logo at the top left. */
const logo = (page) => page.locator(".topbar a.brand");

const row = (page, address) =>
  page.locator(`[data-testid=resource-row][data-address="${address.replace(/["\\]/g, "\\$&")}"]`);

/** Addresses of the listed rows, top to bottom. */
async function listed(page) {
  return (
    await page.getByTestId("resource-row").evaluateAll((els) =>
      els.map((e) => ({ address: e.dataset.address, top: parseFloat(e.style.top) })),
    )
  )
    .sort((a, b) => a.top - b.top)
    .map((r) => r.address);
}

/** The module heading a row is listed under (the nearest heading above it). */
async function headingOf(page, address) {
  return row(page, address).evaluate((el) => {
    const top = parseFloat(el.style.top);
    const heads = [...el.parentElement.querySelectorAll("[data-testid=module-heading]")]
      .filter((h) => parseFloat(h.style.top) < top)
      .sort((a, b) => parseFloat(b.style.top) - parseFloat(a.style.top));
    return heads[0]?.querySelector(".module-name").textContent;
  });
}

/** How a row's address is drawn: its text, each character's left edge, the box, and the type's box. */
async function drawn(page, address) {
  return row(page, address).evaluate((el) => {
    const box = el.querySelector(".addr");
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let i = 0; i < n.length; i++) {
        const range = document.createRange();
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const r = range.getBoundingClientRect();
        chars.push({ c: n.data[i], left: r.left, right: r.right });
      }
    }
    const b = box.getBoundingClientRect();
    const type = el.querySelector(".rtype");
    const t = type.getBoundingClientRect();
    const rowBox = el.getBoundingClientRect();
    return {
      text: box.textContent,
      title: box.getAttribute("title"),
      chars,
      box: { left: b.left, right: b.right },
      cut: box.scrollWidth > box.clientWidth,
      type: { text: type.textContent, right: t.right, cut: type.scrollWidth > type.clientWidth + 1 },
      rowRight: rowBox.right,
    };
  });
}

/** A plan with one long-keyed resource in a module and one in the root, keys holding dots and quotes. */
function longKeysPlan() {
  const key = `_acme-challenge."quoted".eu-west-1.internal.${"very-long-subdomain.".repeat(4)}example.com`;
  const change = (module, index) => ({
    address: `${module ? module + "." : ""}aws_route53_record.this[${JSON.stringify(index)}]`,
    ...(module ? { module_address: module } : {}),
    mode: "managed",
    type: "aws_route53_record",
    name: "this",
    index,
    provider_name: "registry.terraform.io/hashicorp/aws",
    change: { actions: ["create"], before: null, after: { name: index }, after_unknown: { id: true }, before_sensitive: false, after_sensitive: {} },
  });
  const changes = [change("", `root.${key}`), change('module.dns["prod.example"]', key)];
  return {
    name: "long_keys.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify({ format_version: "1.2", terraform_version: "1.9.0", resource_changes: changes })),
    addresses: changes.map((c) => c.address),
  };
}

/** Opens a shipped sample from the landing page. */
async function openSample(page, stem) {
  await page.getByTestId(`sample-${stem}`).click();
  await expect(page.getByTestId("plan-summary")).toBeVisible();
  await expect(page.getByTestId("resource-row").first()).toBeVisible();
}

const SIZES = [
  ["desktop 1400×860", { viewport: { width: 1400, height: 860 } }],
  ["phone 390×844", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
];

for (const [size, options] of SIZES) {
  test.describe(`Navigation, ${size}`, () => {
    test.use(options);
    const phone = !!options.isMobile;
    /** On a phone the detail is a sheet over the whole screen: its Back leads to the list (and
     * the top bar), keeping the selection. */
    const closeSheet = async (page) => {
      const back = page.getByTestId("sheet-back");
      if (phone && (await back.isVisible())) await back.click();
    };

    test("rows under a module heading show the address relative to it, the full one on hover and in the detail", async ({ page }) => {
      needsShared(NESTED);
      await gotoApp(page);
      await openPlan(page, NESTED);
      const cases = [
        ["module.db.module.db_1.module.db_instance.aws_db_instance.this[0]", "module.db.module.db_1.module.db_instance", "aws_db_instance.this[0]"],
        ["module.db.module.db_2.module.db_option_group.aws_db_option_group.this[0]", "module.db.module.db_2.module.db_option_group", "aws_db_option_group.this[0]"],
        ["module.instances.aws_instance.module_instance_named[\"test.2\"]", "module.instances", 'aws_instance.module_instance_named["test.2"]'],
        ['aws_instance.instance_named["test.2"]', "(root module)", 'aws_instance.instance_named["test.2"]'],
      ];
      for (const [address, heading, shown] of cases) {
        await row(page, address).scrollIntoViewIfNeeded();
        const seen = await drawn(page, address);
        expect(seen.text, address).toBe(shown);
        expect(seen.title, address).toBe(address);
        expect(await headingOf(page, address), address).toBe(heading);
        // Whole or cut, the end of the address is on screen, in order, and the type is not cut.
        const last = seen.chars[seen.chars.length - 1];
        expect(last.c).toBe(shown[shown.length - 1]);
        expect(last.right, `${address}: its end is in view`).toBeLessThanOrEqual(seen.box.right + 1);
        expect(seen.type.cut, `${address}: the type column is cut`).toBe(false);
        expect(seen.type.right, `${address}: the type column runs off the row`).toBeLessThanOrEqual(seen.rowRight + 1);
      }
      // The detail names the resource in full.
      const [address] = cases[0];
      await row(page, address).click();
      await expect(page.getByTestId("diff-address")).toHaveText(address);
      await expect(page.getByTestId("diff-address")).toBeVisible();
    });

    test("a long address is cut at its start: its end stays in view, in order, and the type is whole", async ({ page }) => {
      const plan = longKeysPlan();
      await gotoApp(page);
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(plan);
      await expect(page.getByTestId("plan-summary")).toBeVisible();
      for (const address of plan.addresses) {
        const seen = await drawn(page, address);
        const shown = address.replace('module.dns["prod.example"].', "");
        expect(seen.text, address).toBe(shown);
        expect(seen.cut, `${address} is too long for the row here`).toBe(true);
        // Characters are drawn in the text's order (no punctuation moved by bidi rules)...
        for (let i = 1; i < seen.chars.length; i++) {
          expect(seen.chars[i].left, `${address}: ${JSON.stringify(seen.chars[i].c)} at ${i}`).toBeGreaterThanOrEqual(seen.chars[i - 1].left - 0.5);
        }
        // ...the start is what is cut, the end (`"]`) is in view...
        expect(seen.chars[0].left).toBeLessThan(seen.box.left);
        const tail = seen.chars.slice(-13);
        expect(tail.map((c) => c.c).join("")).toBe('example.com"]');
        for (const c of tail) {
          expect(c.left, `${address}: ${JSON.stringify(c.c)} of the end`).toBeGreaterThanOrEqual(seen.box.left - 0.5);
          expect(c.right).toBeLessThanOrEqual(seen.box.right + 1);
        }
        // ...and the type column beside it is whole.
        expect(seen.type.text).toBe("aws_route53_record");
        expect(seen.type.cut).toBe(false);
        expect(seen.type.right).toBeLessThanOrEqual(seen.rowRight + 1);
        expect(seen.title, address).toBe(address);
      }
    });

    test("Enter in the search box opens the only match", async ({ page }) => {
      await gotoApp(page);
      await openSample(page, "web-app-replace");
      const target = "aws_lb_target_group.web";
      await page.getByTestId("search").fill("target_group");
      await expect.poll(() => listed(page)).toEqual([target]);
      await page.getByTestId("search").press("Enter");
      await expect(page.getByTestId("diff-address")).toHaveText(target);
      await expect(page.getByTestId("diff-address")).toBeVisible();
      await expect(row(page, target)).toHaveClass(/\bselected\b/);
      await expect(page.getByTestId("search")).not.toBeFocused();
      await expect.poll(() => page.evaluate(() => location.hash)).toContain(`r=${encodeURIComponent(target)}`);
    });

    test("↓ in the search box moves into the list, then Enter opens the row", async ({ page }) => {
      await gotoApp(page);
      await openSample(page, "web-app-replace");
      await page.getByTestId("search").fill("aws_instance");
      await expect.poll(async () => (await listed(page)).length).toBeGreaterThan(1);
      const rows = await listed(page);
      await page.getByTestId("search").press("ArrowDown");
      await expect(page.getByTestId("search")).not.toBeFocused();
      await expect(row(page, rows[0])).toHaveClass(/\bcursor\b/);
      // The cursor does not open anything by itself.
      await expect(page.getByTestId("diff-address")).toHaveCount(0);
      await page.keyboard.press("j");
      await expect(row(page, rows[1])).toHaveClass(/\bcursor\b/);
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
      await expect(page.getByTestId("diff-address")).toBeVisible();
    });

    test("a filter that hides the selected resource drops the selection", async ({ page }) => {
      await gotoApp(page);
      await openSample(page, "web-app-replace");
      const chosen = "aws_lb_target_group.web";
      await row(page, chosen).click();
      await expect(page.getByTestId("diff-address")).toHaveText(chosen);
      // A search the selection still matches keeps it.
      await page.keyboard.press("/");
      await page.keyboard.type("lb_");
      await expect(page.getByTestId("search")).toHaveValue("lb_");
      await expect(page.getByTestId("diff-address")).toHaveText(chosen);
      // One that hides it drops it: no diff of a resource the list does not show, none in the URL.
      await page.keyboard.type("listener");
      await expect(page.getByTestId("search")).toHaveValue("lb_listener");
      await expect.poll(() => listed(page)).not.toContain(chosen);
      await expect(page.getByTestId("diff-address")).toHaveCount(0);
      await expect(page.locator(".row.selected")).toHaveCount(0);
      await expect.poll(() => page.evaluate(() => location.hash)).not.toContain("r=");
      // Clearing the search does not bring back a selection the reviewer saw go.
      await page.getByTestId("search").fill("");
      await expect.poll(() => listed(page)).toContain(chosen);
      await expect(page.getByTestId("diff-address")).toHaveCount(0);
    });

    test("the logo leads to the landing page and back to the plan with its tab, selection and filters", async ({ page }) => {
      await gotoApp(page);
      await openSample(page, "web-app-replace");
      const chosen = "aws_lb_target_group.web";
      await page.getByTestId("search").fill("aws_lb");
      await row(page, chosen).click();
      await expect(page.getByTestId("diff-address")).toHaveText(chosen);
      await closeSheet(page);
      const planHash = await page.evaluate(() => location.hash);
      expect(planHash).toContain("sample=web-app-replace");
      expect(planHash).toContain(`r=${encodeURIComponent(chosen)}`);

      const onLanding = async () => {
        await expect(page.getByTestId("drop-zone")).toBeVisible();
        await expect(page.getByTestId("sample-modules-for-each")).toBeVisible();
        await expect(page.getByTestId("paste-box")).toBeVisible();
        await expect(page.getByTestId("back-to-plan")).toContainText("web-app-replace.json");
        await expect(page.getByTestId("open-plan")).toContainText(chosen);
        await expect(page.getByTestId("resource-row")).toHaveCount(0);
        // The landing page is the site's own address: nothing of the plan's view in it.
        expect(await page.evaluate(() => location.hash)).toBe("");
      };
      const onPlan = async (tab = "resources") => {
        await expect(page.getByTestId("drop-zone")).toHaveCount(0);
        await expect(page.getByTestId(`tab-${tab}`)).toHaveAttribute("aria-selected", "true");
        if (tab === "resources") {
          await expect(page.getByTestId("search")).toHaveValue("aws_lb");
          await expect(row(page, chosen)).toHaveClass(/\bselected\b/);
          await expect(page.getByTestId("diff-address")).toHaveText(chosen);
          // Beside the list on a desktop (on a phone, a sheet opened from the selected row).
          if (!phone) await expect(page.getByTestId("diff-address")).toBeVisible();
        }
        await expect.poll(() => page.evaluate(() => location.hash)).toContain(`r=${encodeURIComponent(chosen)}`);
      };

      // The logo, then the landing page's way back.
      await logo(page).click();
      await onLanding();
      await page.getByTestId("back-to-plan").click();
      await onPlan();
      expect(await page.evaluate(() => location.hash)).toBe(planHash);

      // The browser's Back and Forward go between the two, without opening the plan again.
      await logo(page).click();
      await onLanding();
      await page.goBack();
      await onPlan();
      expect(await page.evaluate(() => location.hash)).toBe(planHash);
      await page.goForward();
      await onLanding();
      await page.goBack();
      await onPlan();

      // Another tab is kept too.
      await page.getByTestId("tab-outputs").click();
      await logo(page).click();
      await onLanding();
      await page.getByTestId("back-to-plan").click();
      await onPlan("outputs");

      // From the landing page a sample opens as usual, and its view replaces the landing page's
      // address (Back then returns to the plan before it).
      await logo(page).click();
      await onLanding();
      await openSample(page, "modules-for-each");
      await expect.poll(() => page.evaluate(() => location.hash)).toContain("sample=modules-for-each");
      await expect(page.getByTestId("back-to-plan")).toHaveCount(0);
      await page.goBack();
      await expect(page.locator(".topbar .doc-name")).toHaveText("web-app-replace.json");
      await expect(page.getByTestId("tab-outputs")).toHaveAttribute("aria-selected", "true");
    });

    test("a reload on the landing page stays there and still leads back to the plan", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "modules-for-each.json"));
      const rows = await listed(page);
      await row(page, rows[1]).click();
      await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
      await closeSheet(page);
      await logo(page).click();
      await expect(page.getByTestId("drop-zone")).toBeVisible();
      await page.reload();
      await expect(page.getByTestId("drop-zone")).toBeVisible();
      await expect(page.getByTestId("back-to-plan")).toContainText("modules-for-each.json");
      await page.getByTestId("back-to-plan").click();
      await expect(page.getByTestId("drop-zone")).toHaveCount(0);
      await expect(row(page, rows[1])).toHaveClass(/\bselected\b/);
      await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
    });
  });
}
