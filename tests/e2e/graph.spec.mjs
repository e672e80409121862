// The Graph tab in a real browser: drawing every real plan, clicking a node, list ↔ graph selection,
// collapsing and expanding modules, blast radius, search, deep links and SVG/PNG export.
// Expected counts come from tests/fixtures/README.md (blast_radius.json) and tests/graph.rs.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const REAL = join(REPO, "..", "shared", "fixtures", "real");
const SAMPLES = join(REPO, "samples");

/** Pixels of the graph canvas that are not background: proof something was drawn. */
async function inkedPixels(page) {
  return page.evaluate(() => {
    const c = document.querySelector("[data-testid=graph-canvas]");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 250 || data[i + 1] < 250 || data[i + 2] < 250) n++;
    return n;
  });
}

async function openGraph(page) {
  await page.getByTestId("tab-graph").click();
  await expect(page.getByTestId("graph-canvas")).toBeVisible();
  await expect.poll(() => inkedPixels(page)).toBeGreaterThan(0);
}

/** "N resource instances[ · S only in the prior state] · E dependencies · showing B nodes[ · C collapsed
 * modules][ · H unchanged hidden]" (singular nouns for 1); `resources` is every node, N + S. */
async function graphCounts(page) {
  const text = await page.getByTestId("graph-counts").innerText();
  const m = text.match(/^(\d+) resource instances?(?: · (\d+) only in the prior state)? · (\d+) dependenc(?:y|ies) · showing (\d+) nodes?(?: · (\d+) collapsed modules?)?(?: · (\d+) unchanged hidden)?$/);
  expect(m, `graph counts: ${text}`).not.toBeNull();
  return { resources: +m[1] + +(m[2] || 0), edges: +m[3], shown: +m[4], collapsed: +(m[5] || 0), hidden: +(m[6] || 0) };
}

/** Types into the graph's search box; the graph frames the matches, so the canvas's centre is on
 * the (single) match. Then clicks there until `check` passes (the frame may still be coming). */
async function findAndClick(page, text, check) {
  await page.getByTestId("graph-search").fill(text);
  await expect(async () => {
    await page.getByTestId("graph-canvas").click();
    await check();
  }).toPass({ timeout: 10_000 });
}

test.describe("Graph view", () => {
  test("draws the graph of every real plan", async ({ page }) => {
    test.skip(!existsSync(REAL), `no real fixtures at ${REAL} (../shared is absent)`);
    test.setTimeout(180_000);
    await gotoApp(page, "#tab=graph");
    // driftctl reports included: their drifted and missing resources are nodes too.
    const names = readdirSync(REAL).filter((n) => n.endsWith(".json")).sort();
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const plan = JSON.parse(readFileSync(join(REAL, name), "utf8"));
      await openPlan(page, join(REAL, name));
      await expect(page.getByTestId("graph-canvas")).toBeVisible();
      const counts = await graphCounts(page);
      // One node per resource change (at least; state-only dependencies add more).
      const changes = (plan.resource_changes || []).length + (plan.deferred_changes || []).length;
      expect.soft(counts.resources, name).toBeGreaterThanOrEqual(changes);
      if (counts.shown > 0) await expect.poll(() => inkedPixels(page), name).toBeGreaterThan(0);
    }
  });

  test("clicking a node selects the resource, opens its diff and puts it in the URL", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "blast_radius.json"));
    await openGraph(page);
    expect(await graphCounts(page)).toEqual({ resources: 7, edges: 5, shown: 6, collapsed: 0, hidden: 1 });
    await findAndClick(page, "aws_vpc.main", async () => {
      await expect(page.getByTestId("diff-address")).toHaveText("aws_vpc.main", { timeout: 500 });
    });
    await expect(page.getByTestId("graph-blast")).toHaveText("aws_vpc.main: 4 resources depend on it");
    await expect.poll(() => page.evaluate(() => location.hash)).toContain(`r=${encodeURIComponent("aws_vpc.main")}`);
    // "Depends on" adds the other direction.
    await page.getByTestId("graph-search").fill("");
    await page.getByTestId("graph-upstream").check();
    await expect(page.getByTestId("graph-blast")).toHaveText("aws_vpc.main: 4 resources depend on it · it depends on 0");
  });

  test("selecting in the list centres the graph on the resource", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(SAMPLES, "web-app-replace.json"));
    await page.locator(`[data-testid=resource-row][data-address="aws_lb_target_group.web"]`).click();
    await openGraph(page);
    await expect(page.getByTestId("graph-blast")).toHaveText("aws_lb_target_group.web: 2 resources depend on it");
    // The canvas's centre is on the selected node: clicking there keeps it selected.
    await page.getByTestId("graph-canvas").click();
    await expect(page.getByTestId("diff-address")).toHaveText("aws_lb_target_group.web");
    // j moves the selection in list order without leaving the graph.
    await page.keyboard.press("Escape");
    await page.locator("body").press("j");
    await expect(page.getByTestId("tab-graph")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("diff-address")).not.toHaveText("aws_lb_target_group.web");
  });

  test("modules collapse into one node with their action mix and expand on click", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(SAMPLES, "modules-for-each.json"));
    await openGraph(page);
    const expanded = await graphCounts(page);
    expect(expanded.collapsed).toBe(0);
    await page.getByTestId("graph-collapse-all").click();
    await expect.poll(async () => (await graphCounts(page)).collapsed).toBeGreaterThan(0);
    const collapsed = await graphCounts(page);
    expect(collapsed.shown).toBeLessThan(expanded.shown);
    // Searching a resource inside a collapsed module frames the module's node; a click expands it.
    await findAndClick(page, "module.network.", async () => {
      expect((await graphCounts(page)).collapsed).toBeLessThan(collapsed.collapsed);
    });
    await page.getByTestId("graph-expand-all").click();
    await expect.poll(async () => (await graphCounts(page)).collapsed).toBe(0);
    // The full graph shows unchanged resources too.
    await page.getByTestId("graph-full").check();
    await expect.poll(async () => (await graphCounts(page)).hidden).toBe(0);
  });

  test("the blast radius of destructive changes is lit and counted", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "blast_radius.json"));
    await openGraph(page);
    const before = await inkedPixels(page);
    await page.getByTestId("graph-destructive").check();
    await expect(page.getByTestId("graph-blast")).toHaveText("2 destructive changes, 4 resources depend on them");
    // Lit edges and rings are drawn: the picture changes.
    await expect.poll(() => inkedPixels(page)).not.toBe(before);
    await page.getByTestId("graph-destructive").uncheck();
    await expect(page.getByTestId("graph-blast")).toHaveCount(0);
  });

  test("a deep link opens the graph with the resource selected", async ({ page }) => {
    await gotoApp(page, `#sample=web-app-replace&tab=graph&r=${encodeURIComponent("aws_vpc.main")}`);
    await expect(page.getByTestId("graph-canvas")).toBeVisible();
    await expect(page.getByTestId("graph-blast")).toHaveText("aws_vpc.main: 24 resources depend on it");
    await expect(page.getByTestId("diff-address")).toHaveText("aws_vpc.main");
  });

  test("a plan without configuration says its edges may be incomplete", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "state-only-cycle.json"));
    await openGraph(page);
    await expect(page.getByTestId("graph-note")).toContainText("may be incomplete");
    expect(await graphCounts(page)).toMatchObject({ resources: 4, edges: 3 });
    await expect(page.getByTestId("graph-note")).toHaveCount(1);
  });

  test("exports the current view as SVG with the legend, and as PNG", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "blast_radius.json"));
    await openGraph(page);
    await page.getByTestId("graph-destructive").check();
    const [svgDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("graph-export-svg").click(),
    ]);
    expect(svgDownload.suggestedFilename()).toBe("blast_radius-graph.svg");
    const svg = readFileSync(await svgDownload.path(), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain("replace (destroy, then create)");
    expect(svg).toContain("aws_vpc.main");
    expect(svg).toContain("module.dns");
    expect(svg).toContain("#d92d20"); // lit edges of the blast radius

    const [pngDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("graph-export-png").click(),
    ]);
    expect(pngDownload.suggestedFilename()).toBe("blast_radius-graph.png");
    const png = readFileSync(await pngDownload.path());
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.length).toBeGreaterThan(2000);
  });
});
