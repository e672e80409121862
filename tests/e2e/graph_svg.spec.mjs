// The Graph tab's SVG export of the view it opens with is the picture `planlens graph --format svg`
// writes, byte for byte, and a tool can read from it what is drawn where: each node (data-address)
// inside exactly the boxes (data-module) of the modules above it. At desktop and phone sizes.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

// Two calls of one module, each calling four sibling modules, with edges across every boundary
// (tests/fixtures/README.md).
const PLAN = join(REPO, "tests", "fixtures", "nested_modules.json");

const SIZES = [
  { name: "desktop 1400×860", viewport: { width: 1400, height: 860 } },
  { name: "phone 390×844", viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
];

/** The CLI's picture of the plan (built by cargo if it is not yet). */
function cliSvg() {
  return execFileSync("cargo", ["run", "--quiet", "--bin", "planlens", "--", "graph", "--format", "svg", PLAN], {
    cwd: REPO,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 << 20,
  });
}

/** Every `<g>` with `attribute`: its value (unescaped) and the box of the first `<rect>` in it. */
function boxes(svg, attribute) {
  const unescape = (s) =>
    s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const value = (tag, name) => {
    const m = tag.match(new RegExp(` ${name}="([^"]*)"`));
    return m ? unescape(m[1]) : null;
  };
  const out = [];
  for (const m of svg.matchAll(/<g [^>]*>/g)) {
    const v = value(m[0], attribute);
    if (v === null) continue;
    const rect = svg.slice(m.index).match(/<rect [^>]*>/)[0];
    out.push({ name: v, box: ["x", "y", "width", "height"].map((a) => Number(value(rect, a))) });
  }
  return out;
}

const inside = (a, b) => a[0] >= b[0] && a[1] >= b[1] && a[0] + a[2] <= b[0] + b[2] && a[1] + a[3] <= b[1] + b[3];
const meet = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
/** Module `m` holds whatever is addressed below it. */
const holds = (m, address) => address.startsWith(`${m}.`);

for (const size of SIZES) {
  test.describe(`Graph SVG export, ${size.name}`, () => {
    test.use({ viewport: size.viewport, hasTouch: !!size.hasTouch, isMobile: !!size.isMobile });

    test("is the CLI's picture, and each node is inside exactly the boxes of its modules", async ({ page }) => {
      test.setTimeout(300_000); // cargo may have to build the CLI first
      await gotoApp(page);
      await openPlan(page, PLAN);
      await page.getByTestId("tab-graph").click();
      await expect(page.getByTestId("graph-canvas")).toBeVisible();
      const button = page.getByTestId("graph-export-svg");
      // On a phone the export sits behind "More".
      if (!(await button.isVisible())) await page.getByTestId("graph-more").click();
      const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
      expect(download.suggestedFilename()).toBe("nested_modules-graph.svg");
      const svg = readFileSync(await download.path(), "utf8");

      expect(svg).toBe(cliSvg());

      const modules = boxes(svg, "data-module");
      const nodes = boxes(svg, "data-address");
      expect(modules.length).toBe(11); // module.db, db_1, db_2 and their four modules each
      expect(nodes.length).toBe(13);
      for (const n of nodes) {
        for (const m of modules) {
          if (holds(m.name, n.name)) expect(inside(n.box, m.box), `${n.name} inside ${m.name}`).toBe(true);
          else expect(meet(n.box, m.box), `${n.name} drawn inside ${m.name}`).toBe(false);
        }
      }
      for (const [i, a] of modules.entries()) {
        for (const b of modules.slice(i + 1)) {
          if (holds(a.name, b.name)) expect(inside(b.box, a.box), `${b.name} inside ${a.name}`).toBe(true);
          else if (holds(b.name, a.name)) expect(inside(a.box, b.box), `${a.name} inside ${b.name}`).toBe(true);
          else expect(meet(a.box, b.box), `${a.name} and ${b.name} apart`).toBe(false);
        }
      }
    });
  });
}
