// How the Graph tab frames a large plan (issue 25): a ~400 KB plan of nested modules opens at a
// readable zoom, either all of it or framed on its changes (their start in view, never cut at
// both edges), and Fit shows the whole drawing inside the canvas — nothing drawn touches its
// edges, nothing under the legend — at 1400×860 and on a phone of device pixel ratio 3. The edge
// check reads pixels; the canvas also says where the drawing is on screen (`data-drawing-box`,
// CSS px), its zoom (`data-scale`) and how many changed boxes are wholly in view of how many
// (`data-changes-shown`).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO, REAL, needsShared } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const READABLE = 0.75;

const SIZES = [
  { name: "desktop 1400×860", use: { viewport: { width: 1400, height: 860 } } },
  { name: "phone 390×844", use: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 3 } },
];

/** The canvas's framing as it says it: its CSS size, zoom, and boxes on screen. */
async function framing(page) {
  return page.getByTestId("graph-canvas").evaluate((c) => {
    const box = (name) => {
      const v = c.getAttribute(name);
      if (!v) return null;
      const [x, y, w, h] = v.split(" ").map(Number);
      return { x, y, w, h };
    };
    return {
      width: c.clientWidth,
      height: c.clientHeight,
      scale: Number(c.getAttribute("data-scale")),
      drawing: box("data-drawing-box"),
      changes: (c.getAttribute("data-changes-shown") || "").split(" ").map(Number),
    };
  });
}

const inside = (r, f, slack = 1) => r.x >= -slack && r.y >= -slack && r.x + r.w <= f.width + slack && r.y + r.h <= f.height + slack;

/** True when a strip `px` CSS pixels wide along each edge of the canvas is one colour: nothing
 * drawn reaches the edge, so nothing is cut off there. Names the edges that are not. */
async function touchedEdges(page, px = 3) {
  return page.getByTestId("graph-canvas").evaluate((c, px) => {
    const ctx = c.getContext("2d");
    const d = Math.max(1, Math.round(px * devicePixelRatio));
    const strips = {
      left: [0, 0, d, c.height],
      right: [c.width - d, 0, d, c.height],
      top: [0, 0, c.width, d],
      bottom: [0, c.height - d, c.width, d],
    };
    const touched = [];
    for (const [edge, [x, y, w, h]] of Object.entries(strips)) {
      const data = ctx.getImageData(x, y, w, h).data;
      for (let i = 4; i < data.length; i += 4) {
        if (Math.abs(data[i] - data[0]) + Math.abs(data[i + 1] - data[1]) + Math.abs(data[i + 2] - data[2]) > 24) {
          touched.push(edge);
          break;
        }
      }
    }
    return touched;
  }, px);
}

/** Pixels of the canvas that are not its background colour (its top-left pixel after a Fit). */
const inked = (page) =>
  page.getByTestId("graph-canvas").evaluate((c) => {
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
    return n;
  });

async function openGraph(page) {
  await page.getByTestId("tab-graph").click();
  await expect(page.getByTestId("graph-counts")).toHaveText(/resource instance/);
  await expect.poll(() => inked(page)).toBeGreaterThan(0);
}

async function fit(page) {
  const button = page.getByTestId("graph-fit");
  if (!(await button.isVisible())) await page.getByTestId("graph-more").click();
  await button.click();
  // The tools behind More (phone) fold again, giving the canvas its room back.
  const more = page.getByTestId("graph-more");
  if ((await more.isVisible()) && (await more.getAttribute("aria-expanded")) === "true") await more.click();
}

for (const size of SIZES) {
  test.describe(`Graph framing (${size.name})`, () => {
    test.use(size.use);

    for (const name of ["infracost__terraform_v0_12_plan.json", "terraform-compliance__module_count_for_each_tree.json"]) {
      test(`Fit shows all of ${name} inside the canvas`, async ({ page }) => {
        needsShared(REAL);
        await gotoApp(page);
        await openPlan(page, join(REAL, name));
        await openGraph(page);

        // Fit: nothing drawn reaches the canvas's edges (so nothing is cut off there), the whole
        // drawing is inside the canvas and clear of the legend, and the minimap steps aside.
        await fit(page);
        await expect.poll(() => touchedEdges(page)).toEqual([]);
        await expect.poll(async () => inside((await framing(page)).drawing, await framing(page))).toBe(true);
        const fitted = await framing(page);
        const legend = await page.getByTestId("graph-legend").boundingBox();
        const canvas = await page.getByTestId("graph-canvas").boundingBox();
        const below = fitted.drawing.y >= legend.y + legend.height - canvas.y - 1;
        const beside = fitted.drawing.x >= legend.x + legend.width - canvas.x - 1;
        expect(below || beside, `the legend covers the drawing: ${JSON.stringify({ fitted, legend })}`).toBe(true);
        await expect(page.getByTestId("graph-minimap")).toHaveAttribute("data-corner", "hidden");
      });

      test(`${name} opens at a readable zoom: all of it, or a group of its changes`, async ({ page }) => {
        needsShared(REAL);
        await gotoApp(page);
        await openPlan(page, join(REAL, name));
        await openGraph(page);
        // All of it when that is readable, else a readable zoom on a group of its changes, never
        // unlabelled boxes.
        const open = await framing(page);
        expect(open.scale, "opening zoom").toBeGreaterThanOrEqual(READABLE);
        if (inside(open.drawing, open)) {
          await expect.poll(() => touchedEdges(page)).toEqual([]);
        } else {
          const [shown, changes] = open.changes;
          expect(shown, `changed boxes in view: ${JSON.stringify(open)}`).toBeGreaterThanOrEqual(Math.min(changes, 3));
        }
      });
    }

    test("Fit leaves every real plan's drawing clear of the canvas's edges", async ({ page }) => {
      needsShared(REAL);
      test.setTimeout(240_000);
      await gotoApp(page);
      // Fit used to frame the boxes only, not the module boxes and edges around them: some
      // plans' module titles were cut at the top.
      for (const name of readdirSync(REAL).filter((n) => n.endsWith(".json")).sort()) {
        // Opened from the list (a phone's Graph tab hides the summary openPlan waits for).
        if (await page.getByTestId("tab-resources").isVisible()) await page.getByTestId("tab-resources").click();
        await openPlan(page, join(REAL, name));
        await page.getByTestId("tab-graph").click();
        await expect(page.getByTestId("graph-counts")).toHaveText(/resource instance/);
        if ((await page.getByTestId("graph-counts").innerText()).includes("showing 0 nodes")) continue;
        await expect.poll(() => inked(page), name).toBeGreaterThan(0);
        await fit(page);
        await expect.poll(() => touchedEdges(page), name).toEqual([]);
      }
    });

    test("a framing follows the canvas's size until the user moves the graph", async ({ page }) => {
      needsShared(REAL);
      await gotoApp(page);
      await openPlan(page, join(REAL, "infracost__terraform_v0_12_plan.json"));
      await openGraph(page);
      await fit(page);
      const vp = page.viewportSize();
      await page.setViewportSize({ width: vp.width, height: vp.height - 200 });
      await expect.poll(async () => inside((await framing(page)).drawing, await framing(page))).toBe(true);
      await expect.poll(() => touchedEdges(page)).toEqual([]);
      await page.setViewportSize(vp);
    });
  });
}
