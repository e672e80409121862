// The Graph tab in a real browser: drawing every real plan, clicking a node, list ↔ graph selection,
// collapsing and expanding modules, blast radius, search, deep links and SVG/PNG export.
// Expected counts come from tests/fixtures/README.md (blast_radius.json) and tests/core/graph.rs.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test, expect, REPO, REAL, needsShared } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const SAMPLES = join(REPO, "samples");

/** Pixels of the graph canvas that are not background: proof something was drawn. */
async function inkedPixels(page) {
  return page.evaluate(() => {
    const c = document.querySelector("[data-testid=graph-canvas]");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    // Painted (not transparent: a canvas nothing was drawn on yet reads as transparent black) and
    // not the light background.
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && (data[i] < 250 || data[i + 1] < 250 || data[i + 2] < 250)) n++;
    return n;
  });
}

async function openGraph(page) {
  await page.getByTestId("tab-graph").click();
  await expect(page.getByTestId("graph-canvas")).toBeVisible();
  // The plan's session builds the graph when the tab first asks: its counts line says it came.
  await expect(page.getByTestId("graph-counts")).toHaveText(/resource instance/);
  await expect.poll(() => inkedPixels(page)).toBeGreaterThan(0);
}

/** "N resource instances[ · S only in the prior state] · E dependencies · showing B nodes[ · C collapsed
 * modules][ · H unchanged hidden]" (singular nouns for 1); `resources` is every node, N + S. */
async function graphCounts(page) {
  const counts = /^(\d+) resource instances?(?: · (\d+) only in the prior state)? · (\d+) dependenc(?:y|ies) · showing (\d+) nodes?(?: · (\d+) collapsed modules?)?(?: · (\d+) unchanged hidden)?$/;
  // The graph is built by the plan's session when the tab asks: the line is empty until it comes.
  await expect(page.getByTestId("graph-counts")).toHaveText(counts);
  const text = await page.getByTestId("graph-counts").innerText();
  const m = text.match(counts);
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
    needsShared(REAL);
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

  test("the graph is built when the tab first asks, and again for each plan opened while it is shown", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(FIXTURES, "blast_radius.json"));
    // Opening a plan does not build its graph: the session builds it when the Graph tab asks.
    const built = () => page.evaluate(() => performance.getEntriesByName("planlens:graph-build").length);
    expect(await built()).toBe(0);
    await openGraph(page);
    expect(await graphCounts(page)).toEqual({ resources: 7, edges: 5, shown: 6, collapsed: 0, hidden: 1 });
    expect(await built()).toBe(1);
    await expect(page.getByTestId("graph-building")).toHaveCount(0);
    // Another plan opened with the tab shown: its own graph, not the last one's.
    await openPlan(page, join(FIXTURES, "state-only-cycle.json"));
    await expect.poll(() => graphCounts(page)).toMatchObject({ resources: 4, edges: 3 });
    expect(await built()).toBe(2);
    // Back to the first plan: asked again (each open is a new session).
    await openPlan(page, join(FIXTURES, "blast_radius.json"));
    await expect.poll(() => graphCounts(page)).toEqual({ resources: 7, edges: 5, shown: 6, collapsed: 0, hidden: 1 });
    expect(await built()).toBe(3);
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
    expect(svg).toContain("#0f766e"); // lit edges of the blast radius (teal: red is only for destructive changes)
    // Its rings are dashed, as on the canvas, so they read without colour too.
    expect(svg).toMatch(/stroke="#0f766e" stroke-width="2.5" stroke-dasharray="7 4"/);

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

// ---- Reading the graph (issue 13, item 2), at desktop and phone sizes ----

const SIZES = [
  { name: "desktop 1400×860", viewport: { width: 1400, height: 860 } },
  { name: "phone 390×844", viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
];

/** A control of the graph's toolbar; on a phone the tools behind "More" are shown first. */
async function tool(page, id) {
  const el = page.getByTestId(id);
  if (!(await el.isVisible())) await page.getByTestId("graph-more").click();
  await expect(el).toBeVisible();
  return el;
}

/** Folds the tools behind "More" again (phone), giving the graph its room back. */
async function closeMore(page) {
  const more = page.getByTestId("graph-more");
  if ((await more.isVisible()) && (await more.getAttribute("aria-expanded")) === "true") await more.click();
}

/** The selected box on the canvas, in page pixels, or null when nothing selected is drawn. */
async function selectionBox(page) {
  return page.evaluate(() => {
    const c = document.querySelector("[data-testid=graph-canvas]");
    const box = c.getAttribute("data-selection-box");
    if (!box) return null;
    const [x, y, w, h] = box.split(" ").map(Number);
    const r = c.getBoundingClientRect();
    return { x: r.x + x, y: r.y + y, w, h };
  });
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.w && a.y < b.y + b.height && b.y < a.y + a.h;
}

/** Selects the first resource matching `text` by searching and pressing Enter, then clears the
 * search (Escape), leaving the resource selected. */
async function selectBySearch(page, text, address) {
  const search = page.getByTestId("graph-search");
  await search.fill(text);
  await search.press("Enter");
  await expect(page.getByTestId("diff-address")).toHaveText(address);
  await search.press("Escape");
  await expect(search).toHaveValue("");
  await expect.poll(() => selectionBox(page)).not.toBeNull();
}

/** Canvas pixels close to a colour (sum of channel differences under `tolerance`). */
async function pixelsNear(page, [r, g, b], tolerance = 60) {
  return page.evaluate(
    ({ r, g, b, tolerance }) => {
      const c = document.querySelector("[data-testid=graph-canvas]");
      const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < tolerance) n++;
      }
      return n;
    },
    { r, g, b, tolerance },
  );
}

/** Pixels of the canvas a human calls red: the destructive colour and anything like it. */
async function redPixels(page) {
  return page.evaluate(() => {
    const c = document.querySelector("[data-testid=graph-canvas]");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] > 150 && data[i + 1] < 100 && data[i + 2] < 100) n++;
    return n;
  });
}

const TEAL = [0x0f, 0x76, 0x6e]; // the blast radius (Palette::LIGHT.dependent)

/** Waits until the canvas has drawn what the last change asked for (it draws on animation frames). */
async function nextFrames(page) {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

for (const size of SIZES) {
  test.describe(`Reading the graph, ${size.name}`, () => {
    test.use({ viewport: size.viewport, hasTouch: !!size.hasTouch, isMobile: !!size.isMobile });

    test("selecting a harmless update lights its dependents in their own colour, not red", async ({ page }) => {
      // aws_security_group.alb is updated in place; four resources depend on it, none destroyed.
      await gotoApp(page, `#sample=web-app-replace&tab=graph&r=${encodeURIComponent("aws_security_group.alb")}`);
      await expect(page.getByTestId("graph-blast")).toHaveText("aws_security_group.alb: 4 resources depend on it");
      await expect.poll(() => inkedPixels(page)).toBeGreaterThan(0);
      await nextFrames(page);
      const lit = { red: await redPixels(page), teal: await pixelsNear(page, TEAL) };
      // Deselect: the same picture without the highlight.
      await page.getByTestId("graph-canvas").focus();
      await page.keyboard.press("Escape");
      await expect(page.getByTestId("graph-blast")).toHaveCount(0);
      await nextFrames(page);
      const plain = { red: await redPixels(page), teal: await pixelsNear(page, TEAL) };
      expect(lit.red, "red pixels added by the highlight").toBeLessThanOrEqual(plain.red + 20);
      expect(lit.teal - plain.teal, "teal rings and edges of the blast radius").toBeGreaterThan(150);
    });

    test("a resource nothing depends on says so without alarm", async ({ page }) => {
      await gotoApp(page, `#sample=web-app-replace&tab=graph&r=${encodeURIComponent("aws_lb_listener.http")}`);
      const status = page.getByTestId("graph-blast");
      await expect(status).toHaveText("aws_lb_listener.http: 0 resources depend on it");
      // A count, not an alarm: the text colour, not bold, not red.
      const [colour, weight, ink] = await status.evaluate((el) => [
        getComputedStyle(el).color,
        getComputedStyle(el).fontWeight,
        getComputedStyle(document.body).color,
      ]);
      expect(colour).toBe(ink);
      expect(Number(weight)).toBeLessThan(600);
    });

    test("the legend draws each meaning as the canvas does: red destructive, flags for findings, a dash per highlight", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "blast_radius.json"));
      await openGraph(page);
      await page.getByTestId("graph-legend").locator("summary").click();
      const look = (id) =>
        page.getByTestId(id).locator("rect").first().evaluate((r) => {
          const s = getComputedStyle(r);
          return { fill: s.fill, stroke: s.stroke, dash: s.strokeDasharray, text: r.parentElement.textContent };
        });
      const destroy = await look("legend-action-delete");
      const deny = await look("legend-finding-deny");
      const warn = await look("legend-finding-warn");
      const blast = await look("legend-lit-dependent");
      const upstream = await look("legend-lit-dependency");
      const selected = await look("legend-lit-selected");
      expect(destroy.stroke).toBe("rgb(180, 35, 24)");
      expect(blast.stroke).toBe(`rgb(${TEAL.join(", ")})`);
      expect(new Set([destroy.stroke, deny.fill, blast.stroke, upstream.stroke, selected.stroke]).size).toBe(5);
      // Without colour: findings say deny (filled) or warn (outlined); rings differ by dash.
      expect(deny.text).toBe("deny");
      expect(warn.text).toBe("warn");
      expect(warn.fill).not.toBe(deny.fill);
      expect(blast.dash).not.toBe("none");
      expect(upstream.dash).not.toBe("none");
      expect(blast.dash).not.toBe(upstream.dash);
      expect(selected.dash).toBe("none");
      await expect(page.getByTestId("legend-lit-dependent")).toHaveText("depends on the selection");
      await expect(page.getByTestId("legend-lit-dependency")).toHaveText("the selection depends on it");
      await expect(page.getByTestId("legend-finding-deny")).toHaveText("denya deny rule flags it");
      await expect(page.getByTestId("graph-legend")).toContainText("Red is a destructive change and nothing else.");
    });

    test("the canvas, minimap and legend follow a dark colour scheme; the SVG export stays light", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      await openGraph(page);
      const corner = () =>
        page.evaluate(() => {
          const read = (id) => {
            const c = document.querySelector(`[data-testid=${id}]`);
            return [...c.getContext("2d").getImageData(1, 1, 1, 1).data.slice(0, 3)];
          };
          return { canvas: read("graph-canvas"), minimap: read("graph-minimap") };
        });
      const luma = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
      expect(luma((await corner()).canvas)).toBeGreaterThan(240);

      // The system switches to dark while the graph is open: it is redrawn dark.
      await page.emulateMedia({ colorScheme: "dark" });
      await expect.poll(async () => luma((await corner()).canvas)).toBeLessThan(40);
      expect(luma((await corner()).minimap)).toBeLessThan(40);
      const legend = await page.getByTestId("graph-legend").evaluate((el) => getComputedStyle(el).color);
      const [r, g, b] = legend.match(/\d+/g).map(Number);
      expect(luma([r, g, b]), "legend text is light on dark").toBeGreaterThan(180);
      // Labels are drawn light: some pixels are bright.
      expect(await pixelsNear(page, [0xe6, 0xe9, 0xef], 90)).toBeGreaterThan(50);

      // The exported SVG is a document of its own, read anywhere: it keeps the light palette.
      const [svgDownload] = await Promise.all([
        page.waitForEvent("download"),
        (await tool(page, "graph-export-svg")).click(),
      ]);
      const svg = readFileSync(await svgDownload.path(), "utf8");
      expect(svg).toContain('<rect width="100%" height="100%" fill="#ffffff"/>');

      // And back.
      await page.emulateMedia({ colorScheme: "light" });
      await expect.poll(async () => luma((await corner()).canvas)).toBeGreaterThan(240);
    });

    test("the minimap moves out of the way of the selection", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "web-app-replace.json"));
      await openGraph(page);
      const minimap = page.getByTestId("graph-minimap");
      await selectBySearch(page, "aws_lb.web", "aws_lb.web");
      // Zoomed in, so that there is somewhere else to go (the minimap is hidden while everything
      // is in view).
      for (let i = 0; i < 2; i++) await (await tool(page, "graph-zoom-in")).click();
      await closeMore(page);
      await expect(minimap).toHaveAttribute("data-corner", "bottom-right");
      const home = await minimap.boundingBox();

      // Drag the graph so the selected box sits where the minimap is.
      const box = await selectionBox(page);
      const from = { x: box.x + box.w / 2, y: box.y + box.h / 2 };
      const to = { x: home.x + home.width / 2, y: home.y + home.height / 2 };
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
      await page.mouse.move(to.x, to.y, { steps: 4 });
      await page.mouse.up();
      await expect.poll(async () => overlaps(await selectionBox(page), home)).toBe(true);
      await expect(minimap).not.toHaveAttribute("data-corner", "bottom-right");

      // Wherever it went, it does not cover the selection.
      const corner = await minimap.getAttribute("data-corner");
      if (corner !== "hidden") {
        const now = await minimap.boundingBox();
        expect(overlaps(await selectionBox(page), now), `minimap in ${corner} covers the selection`).toBe(false);
      }
      // Dragged back, the minimap returns to its corner.
      await page.mouse.move(to.x, to.y);
      await page.mouse.down();
      await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
      await page.mouse.move(from.x, from.y, { steps: 4 });
      await page.mouse.up();
      await expect.poll(async () => overlaps(await selectionBox(page), home)).toBe(false);
      await expect(minimap).toHaveAttribute("data-corner", "bottom-right");
      // With the whole graph in view there is nothing to navigate: the minimap steps aside.
      await page.getByTestId("graph-fit").click();
      await expect(minimap).toHaveAttribute("data-corner", "hidden");
      await expect(minimap).toBeHidden();
    });

    test("search counts its matches, steps through them and opens the modules that hide them", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(SAMPLES, "modules-for-each.json"));
      await openGraph(page);
      await (await tool(page, "graph-collapse-all")).click();
      await expect.poll(async () => (await graphCounts(page)).collapsed).toBeGreaterThan(0);
      const folded = (await graphCounts(page)).collapsed;

      // Four alert policies in the two services' nested `alerts` modules: typing opens them.
      const search = page.getByTestId("graph-search");
      await search.fill("alerts");
      await expect(page.getByTestId("graph-match-count")).toHaveText("4 matches");
      await expect.poll(async () => (await graphCounts(page)).collapsed).toBeLessThan(folded);

      // Enter steps forward, Shift+Enter back, the buttons the same; it wraps round.
      const seen = [];
      for (let i = 1; i <= 4; i++) {
        await search.press("Enter");
        await expect(page.getByTestId("graph-match-count")).toHaveText(`${i} of 4 matches`);
        const address = await page.getByTestId("diff-address").innerText();
        expect(address).toContain(".module.alerts.");
        seen.push(address);
      }
      expect(new Set(seen).size).toBe(4);
      await search.press("Enter");
      await expect(page.getByTestId("graph-match-count")).toHaveText("1 of 4 matches");
      await expect(page.getByTestId("diff-address")).toHaveText(seen[0]);
      await search.press("Shift+Enter");
      await expect(page.getByTestId("diff-address")).toHaveText(seen[3]);
      await page.getByTestId("graph-match-prev").click();
      await expect(page.getByTestId("graph-match-count")).toHaveText("3 of 4 matches");
      await expect(page.getByTestId("diff-address")).toHaveText(seen[2]);
      await page.getByTestId("graph-match-next").click();
      await expect(page.getByTestId("diff-address")).toHaveText(seen[3]);

      // Folded again, stepping opens the module around each match it reaches.
      await (await tool(page, "graph-collapse-all")).click();
      await expect.poll(async () => (await graphCounts(page)).collapsed).toBe(folded);
      await search.press("Enter");
      await expect(page.getByTestId("diff-address")).toHaveText(seen[0]);
      await expect.poll(async () => (await graphCounts(page)).collapsed).toBeLessThan(folded);
      await expect.poll(() => selectionBox(page)).not.toBeNull();

      await search.fill("no such resource");
      await expect(page.getByTestId("graph-match-count")).toHaveText("No matches");
      await expect(page.getByTestId("graph-match-next")).toBeDisabled();
      await search.fill("");
      await expect(page.getByTestId("graph-match-count")).toHaveCount(0);
    });

    test("labels keep the end that tells three driftctl records apart; the whole address is on hover", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, join(FIXTURES, "driftctl_route53.json"));
      await openGraph(page);
      const [svgDownload] = await Promise.all([
        page.waitForEvent("download"),
        (await tool(page, "graph-export-svg")).click(),
      ]);
      const svg = readFileSync(await svgDownload.path(), "utf8");
      const labels = [...svg.matchAll(/<\/tspan> ([^<]*)<\/text>/g)].map((m) => m[1]).sort();
      expect(labels).toHaveLength(3);
      expect(new Set(labels).size).toBe(3);
      for (const [label, name] of labels.map((l, i) => [l, ["api", "cdn", "www"][i]])) {
        expect(label).toMatch(new RegExp(`^….*_${name}\\.prod\\.example\\.com_A&quot;\\]$`));
      }

      // Hovering a box shows its whole address.
      await page.getByTestId("graph-search").fill("www.prod");
      await expect(page.getByTestId("graph-match-count")).toHaveText("1 match");
      const canvas = page.getByTestId("graph-canvas");
      const r = await canvas.boundingBox();
      // The match is framed in the canvas's free area, below the closed legend over its corner.
      const legend = await page.getByTestId("graph-legend").boundingBox();
      const top = legend && legend.y + legend.height < r.y + r.height / 2
        ? Math.max(r.y, legend.y + legend.height)
        : r.y;
      const [cx, cy] = [r.x + r.width / 2, (top + r.y + r.height) / 2];
      await expect(async () => {
        await page.mouse.move(cx - 3, cy);
        await page.mouse.move(cx, cy);
        await expect(canvas).toHaveAttribute("title", 'aws_route53_record["Z08160912ILRMWGJR3SGR_www.prod.example.com_A"]', { timeout: 500 });
      }).toPass({ timeout: 10_000 });
    });
  });
}

test.describe("The Graph tab on a phone (390×844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("the graph fills the screen, the toolbar keeps to itself and every control is a finger wide", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(SAMPLES, "modules-for-each.json"));
    await openGraph(page);
    const canvas = await page.getByTestId("graph-canvas").boundingBox();
    expect(canvas.x).toBe(0);
    expect(canvas.width).toBe(390);
    expect(canvas.height).toBeGreaterThan(300);
    // Nothing beside or over the graph: the detail is not shown until a node is tapped.
    await expect(page.getByTestId("graph-side")).toBeHidden();
    expect(await page.evaluate(() => document.scrollingElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Closed, searching, and with More open: nothing in the toolbar overlaps anything else, runs
    // off the screen or onto the graph, and every control is at least 40 px each way.
    const toolbarLayout = () =>
      page.locator(".graph-toolbar").evaluate((bar) => {
        const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
        const items = [...bar.querySelectorAll("button, input, label.toggle, .graph-match-count")]
          .filter(shown)
          .filter((el) => !el.closest("label.toggle") || el.matches("label.toggle"))
          .map((el) => {
            const r = el.getBoundingClientRect();
            return { what: el.dataset.testid || el.textContent.trim(), control: !el.matches(".graph-match-count"), x: r.x, y: r.y, w: r.width, h: r.height };
          });
        return { bottom: bar.getBoundingClientRect().bottom, items };
      });
    const shownTestIds = [];
    for (const step of ["closed", "searching", "more"]) {
      if (step === "searching") await page.getByTestId("graph-search").fill("alerts");
      if (step === "more") await page.getByTestId("graph-more").click();
      const layout = await toolbarLayout();
      const stage = await page.locator(".graph-stage").boundingBox();
      expect(layout.bottom, `${step}: the toolbar runs onto the graph`).toBeLessThanOrEqual(stage.y + 1);
      for (const [i, a] of layout.items.entries()) {
        shownTestIds.push(a.what);
        if (a.control) {
          expect(a.h, `${step}: ${a.what} is ${a.h}px tall`).toBeGreaterThanOrEqual(40);
          expect(a.w, `${step}: ${a.what} is ${a.w}px wide`).toBeGreaterThanOrEqual(40);
        }
        expect(a.x + a.w, `${step}: ${a.what} runs off the screen`).toBeLessThanOrEqual(390);
        for (const b of layout.items.slice(i + 1)) {
          const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
          expect(apart, `${step}: ${a.what} and ${b.what} overlap`).toBe(true);
        }
      }
    }
    for (const id of ["graph-search", "graph-match-next", "graph-match-prev", "graph-fit", "graph-zoom-in", "graph-collapse-all", "graph-export-svg"]) {
      expect(shownTestIds, `${id} can be reached`).toContain(id);
    }
    // Searching and More still leave most of the screen to the graph, redrawn at its new size
    // rather than stretched.
    expect((await page.getByTestId("graph-canvas").boundingBox()).height).toBeGreaterThan(200);
    await expect
      .poll(() => page.getByTestId("graph-canvas").evaluate((c) => c.height - Math.round(c.clientHeight * devicePixelRatio)))
      .toBe(0);
    const legend = await page.getByTestId("graph-legend").locator("summary").boundingBox();
    expect(legend.height).toBeGreaterThanOrEqual(40);
  });

  test("one finger pans, two fingers pinch-zoom, a tap opens the detail as a sheet", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, join(SAMPLES, "web-app-replace.json"));
    await openGraph(page);
    await selectBySearch(page, "aws_lb.web", "aws_lb.web");
    const cdp = await page.context().newCDPSession(page);
    const touch = (type, points) =>
      cdp.send("Input.dispatchTouchEvent", { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })) });
    const canvas = await page.getByTestId("graph-canvas").boundingBox();
    const cx = canvas.x + canvas.width / 2;
    const cy = canvas.y + canvas.height / 2;

    // One finger: the graph follows it.
    const before = await selectionBox(page);
    await touch("touchStart", [[cx, cy + 60]]);
    for (let i = 1; i <= 5; i++) await touch("touchMove", [[cx - 8 * i, cy + 60 + 6 * i]]);
    await touch("touchEnd", []);
    await expect.poll(async () => (await selectionBox(page)).x).toBeCloseTo(before.x - 40, -1);
    const panned = await selectionBox(page);
    expect(panned.y).toBeCloseTo(before.y + 30, -1);
    expect(panned.w).toBeCloseTo(before.w, 0);

    // Two fingers moving apart: twice as far apart, twice the size.
    await touch("touchStart", [[cx - 50, cy], [cx + 50, cy]]);
    for (let i = 1; i <= 5; i++) await touch("touchMove", [[cx - 50 - 10 * i, cy], [cx + 50 + 10 * i, cy]]);
    await touch("touchEnd", []);
    await expect.poll(async () => (await selectionBox(page)).w / panned.w).toBeCloseTo(2, 1);
    // Neither gesture was a tap: the detail sheet stayed closed.
    await expect(page.getByTestId("graph-side")).toBeHidden();

    // A tap on the selected box opens its detail full screen; Back returns to the graph, still lit.
    const box = await selectionBox(page);
    await page.touchscreen.tap(box.x + box.w / 2, box.y + box.h / 2);
    const side = page.getByTestId("graph-side");
    await expect(side).toBeVisible();
    await expect(side.getByTestId("diff-address")).toHaveText("aws_lb.web");
    expect(await side.boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 844 });
    await page.getByTestId("graph-side-back").click();
    await expect(side).toBeHidden();
    await expect(page.getByTestId("graph-blast")).toContainText("aws_lb.web");
  });
});
