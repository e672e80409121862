// Sharing in a real browser: a link made in the Share dialog (or by `planlens link`) opened in a
// new page shows the same plan, selection, filters and verdict; the redacted link loads without
// values; `?url=` fetches a plan from another server (with progress, without credentials) and
// explains CORS and HTTP failures; the build for a sub-path works under it; the Markdown comment
// renders as GitHub-flavoured Markdown. The harness fails any test in which a request carries a
// body or leaves the allowed origins, so no plan byte is ever sent anywhere.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { marked } from "marked";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";
import { serve } from "./serve.mjs";

const SAMPLES = join(REPO, "samples");
const SAMPLE = join(SAMPLES, "web-app-replace.json");
const DIST_SUB = join(REPO, "dist-sub");

const row = (page, a) => page.locator(`[data-testid=resource-row][data-address="${a.replace(/"/g, '\\"')}"]`);

/** Opens the Share dialog and waits for its links. */
async function shareDialog(page) {
  await page.getByTestId("share").click();
  const dialog = page.getByTestId("share-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("share-full-link")).toBeVisible();
  return dialog;
}

async function linkOf(dialog, key) {
  const link = await dialog.getByTestId(`share-${key}-link`).inputValue();
  await expect(dialog.getByTestId(`share-${key}-length`)).toHaveAttribute("data-length", String(link.length));
  return link;
}

/** Starts a second static server for a test and closes it afterwards. */
async function withServer(root, options, run) {
  const server = await serve(root, options);
  try {
    return await run(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections?.();
    await new Promise((done) => server.close(done));
  }
}

/** What a reviewer sees of an open plan. */
async function seen(page) {
  // A link's first paint (its glance) shows the summary before the app has opened the plan: what
  // is compared here is the app's.
  await expect(page.getByTestId("glance")).toHaveCount(0);
  return {
    name: await page.locator(".topbar .doc-name").textContent(),
    summary: await page.getByTestId("plan-summary").textContent(),
    verdict: await page.locator(".summary").getByTestId("verdict").getAttribute("data-verdict"),
    count: await page.getByTestId("list-count").textContent(),
  };
}

test.describe("Share links", () => {
  test("a shared link opens the same plan, selection and filters in a new page", async ({ page, pageLog }) => {
    await gotoApp(page);
    await openPlan(page, SAMPLE);
    await page.getByTestId("filter-replace").click();
    await page.getByTestId("filter-delete").click();
    await page.getByTestId("search").fill("aws_instance");
    await row(page, "aws_instance.bastion").click();
    await expect(page.getByTestId("diff-address")).toHaveText("aws_instance.bastion");
    const before = await seen(page);
    const rows = await page.getByTestId("resource-row").evaluateAll((els) => els.map((e) => e.dataset.address));

    const dialog = await shareDialog(page);
    const link = await linkOf(dialog, "full");
    expect(link.startsWith(new URL("/", page.url()).href + "#")).toBe(true);
    expect(link).toContain("&p=");
    await expect(dialog.getByTestId("share-full-warning")).toHaveCount(0);
    // The dialog is modal: Tab and Shift+Tab stay inside it.
    for (const key of [...Array(12).fill("Tab"), ...Array(12).fill("Shift+Tab")]) {
      await page.keyboard.press(key);
      expect(await page.evaluate(() => !!document.activeElement.closest("[data-testid=share-dialog]")), key).toBe(true);
    }
    // Esc closes the dialog and gives the focus back.
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("share-dialog")).toHaveCount(0);
    await expect(page.getByTestId("share")).toBeFocused();

    const other = await page.context().newPage();
    await other.goto(link);
    await expect(other.getByTestId("plan-summary")).toHaveText(before.summary);
    expect(await seen(other)).toEqual(before);
    await expect(other.getByTestId("diff-address")).toHaveText("aws_instance.bastion");
    await expect(other.getByTestId("filter-replace")).toHaveAttribute("aria-pressed", "true");
    expect(new URL(other.url()).hash).toContain("a=replace%2Cdelete");
    await expect(other.getByTestId("search")).toHaveValue("aws_instance");
    expect(await other.getByTestId("resource-row").evaluateAll((els) => els.map((e) => e.dataset.address))).toEqual(rows);
    // A reload of the shared page keeps it.
    await other.reload();
    await expect(other.getByTestId("diff-address")).toHaveText("aws_instance.bastion");
    // The plan never left the page: no request names the payload or a resource.
    const payload = link.slice(link.indexOf("p=") + 2);
    for (const url of pageLog.requests) {
      expect(url).not.toContain(payload.slice(0, 32));
      expect(url).not.toContain("aws_instance");
    }
    await other.close();
  });

  test("the redacted link shows the same summary, list, graph and verdict, without values", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, SAMPLE);
    await page.getByTestId("tab-graph").click();
    await expect(page.getByTestId("graph-counts")).toBeVisible();
    const graph = await page.getByTestId("graph-counts").textContent();
    await page.getByTestId("tab-rules").click();
    const findings = await page.getByTestId("finding").evaluateAll((els) => els.map((e) => [e.dataset.rule, e.dataset.address]));
    await page.getByTestId("tab-outputs").click();
    const outputs = await page.getByTestId("output-row").evaluateAll((els) =>
      els.map((e) => [e.querySelector(".output-name").textContent, !!e.querySelector(".mark-sensitive")]));
    await page.getByTestId("tab-resources").click();
    const before = await seen(page);
    const dialog = await shareDialog(page);
    const full = await linkOf(dialog, "full");
    const redacted = await linkOf(dialog, "redacted");
    expect(redacted.length).toBeLessThan(full.length);
    await page.getByTestId("share-close").click();

    const other = await page.context().newPage();
    await other.goto(redacted);
    await expect(other.getByTestId("redacted-badge")).toBeVisible();
    expect(await seen(other)).toEqual(before);
    await row(other, "aws_instance.bastion").click();
    await expect(other.getByTestId("diff-panel")).toContainText("Values were redacted");
    await other.getByTestId("tab-graph").click();
    await expect(other.getByTestId("graph-counts")).toHaveText(graph);
    await other.getByTestId("tab-rules").click();
    await expect(other.getByTestId("rules-redacted")).toBeVisible();
    await expect(other.getByTestId("rules-environment")).toHaveCount(0);
    expect(await other.getByTestId("finding").evaluateAll((els) => els.map((e) => [e.dataset.rule, e.dataset.address]))).toEqual(findings);
    // Outputs: the same names and sensitive marks, no values.
    await other.getByTestId("tab-outputs").click();
    await expect(other.getByTestId("outputs-no-values")).toContainText("Values were redacted");
    expect(await other.getByTestId("output-row").evaluateAll((els) =>
      els.map((e) => [e.querySelector(".output-name").textContent, !!e.querySelector(".mark-sensitive")]))).toEqual(outputs);
    expect(outputs.some(([, sensitive]) => sensitive)).toBe(true);
    await other.close();
  });

  test("links made by planlens link open in the browser", async ({ page, origin }) => {
    const bin = join(REPO, "target", "debug", "planlens");
    if (!existsSync(bin)) execFileSync("cargo", ["build", "-q", "--bin", "planlens"], { cwd: REPO });
    const plan = join(SAMPLES, "driftctl-scan.json");
    const check = (() => {
      try {
        return execFileSync(bin, ["check", "--format", "json", plan], { encoding: "utf8" });
      } catch (e) {
        return e.stdout;
      }
    })();
    const expected = JSON.parse(check);
    for (const flags of [[], ["--redacted"]]) {
      const link = execFileSync(bin, ["link", plan, "--base", `${origin}/`, ...flags], { encoding: "utf8" }).trim();
      await page.goto(link);
      await expect(page.getByTestId("plan-summary")).toHaveText(/^driftctl: /);
      await expect(page.locator(".summary").getByTestId("verdict")).toHaveAttribute("data-verdict", expected.verdict);
      await expect(page.getByTestId("redacted-badge")).toHaveCount(flags.length);
      // A drift report opens on its Drift tab, with the report's figures.
      await expect(page.getByTestId("drift-panel")).toBeVisible();
      await page.getByTestId("tab-rules").click();
      const shown = await page.getByTestId("finding").evaluateAll((els) => els.map((e) => e.dataset.rule));
      expect(shown).toEqual(expected.findings.map((f) => f.rule));
    }
  });

  test("rules that come with a link are shown and used for that plan only", async ({ page, origin }) => {
    const bin = join(REPO, "target", "debug", "planlens");
    if (!existsSync(bin)) execFileSync("cargo", ["build", "-q", "--bin", "planlens"], { cwd: REPO });
    const rules = join(REPO, "tests", "fixtures", "rules", "warn_only.toml");
    const link = execFileSync(bin, ["link", SAMPLE, "--base", `${origin}/`, "--rules", rules, "--label", "environment=prod"], { encoding: "utf8" }).trim();
    await page.goto(link.replace("#", "#tab=rules&"));
    await expect(page.locator(".summary").getByTestId("verdict")).toHaveAttribute("data-verdict", "warn");
    await expect(page.getByTestId("rules-from-link")).toBeVisible();
    await expect(page.getByTestId("rules-environment")).toHaveValue("prod");
    // The rule file reads as it was written: line by line.
    expect(await page.getByTestId("link-rules").textContent()).toBe(readFileSync(rules, "utf8"));
    // Going back to one's own rules (none here: the built-in pack) changes the verdict.
    await page.getByTestId("rules-use-mine").click();
    await expect(page.getByTestId("rules-from-link")).toHaveCount(0);
    await expect(page.locator(".summary").getByTestId("verdict")).toHaveAttribute("data-verdict", "needs-approval");
    expect(new URL(page.url()).hash).not.toContain("rules=");
  });

  test("a damaged link is refused with a message", async ({ page, pageLog }) => {
    await gotoApp(page, "#p=AXja7b1fb9zGuuX9VQJdvS_geLr");
    await expect(page.getByTestId("load-error")).toContainText("This link cannot be opened");
    await expect(page.getByTestId("load-error")).toContainText("damaged");
  });

  test("Copy as Markdown gives a comment that renders as GitHub Markdown", async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await gotoApp(page);
    await openPlan(page, SAMPLE);
    const dialog = await shareDialog(page);
    const full = await linkOf(dialog, "full");
    await dialog.getByTestId("share-copy-markdown").click();
    await expect(dialog.getByTestId("share-status")).toHaveText("Copied the Markdown summary.");
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    expect(markdown).toBe(await dialog.getByTestId("share-markdown-text").inputValue());
    expect(markdown.length).toBeLessThanOrEqual(65536);
    await dialog.getByTestId("share-copy-full").click();
    await expect(dialog.getByTestId("share-status")).toHaveText("Copied the full link.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(full);

    // Rendered as GitHub does (GFM: tables, raw <details>), in a blank page of its own.
    const html = marked.parse(markdown, { gfm: true });
    const view = await context.newPage();
    await view.setContent(`<!doctype html><meta charset="utf-8"><body>${html}</body>`);
    await expect(view.locator("h3")).toHaveText(/^Planlens: Plan: 1 to import, 8 to add, 9 to change, 3 to destroy\.$/);
    await expect(view.locator("strong").first()).toHaveText("Verdict: needs approval");
    // Findings, destructive changes, then the folded rest and the output changes: every row has
    // its table's cells.
    const tables = view.locator("table");
    expect(await tables.count()).toBe(4);
    for (const t of await tables.all()) {
      const width = await t.locator("thead th").count();
      const cells = await t.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.children.length));
      expect(cells.length).toBeGreaterThan(0);
      expect(new Set(cells)).toEqual(new Set([width]));
    }
    await expect(view.locator("h4")).toHaveText(["Destroyed, replaced or forgotten (3)"]);
    await expect(tables.nth(1).locator("tbody tr").first()).toContainText("aws_instance.bastion");
    await expect(view.locator("details summary")).toHaveText([/^Other changes \(\d+\)$/, /^Output changes \(\d+\)$/]);
    await expect(view.locator("details table")).toHaveCount(2);
    // Plan text stays text: the address with brackets and quotes is not a link.
    await expect(view.locator("a")).toHaveCount(1);
    await expect(view.locator("a")).toHaveAttribute("href", full);
    await view.close();
  });

  test("?url= fetches a plan from another server, with progress and without credentials", async ({ page, pageLog, context }) => {
    await withServer(SAMPLES, { cors: true, chunkDelay: 40 }, async (other) => {
      pageLog.allowed.push(`${other}/`);
      await context.addCookies([{ name: "session", value: "do-not-send", url: other }]);
      const address = `${other}/web-app-replace.json`;
      const requests = [];
      page.on("request", (r) => {
        if (r.url() === address) requests.push(r);
      });
      await page.goto(`/?url=${encodeURIComponent(address)}`);
      await expect(page.getByTestId("load-progress")).toContainText(/Reading web-app-replace\.json — [\d.]+ (kB|KB|MB) of/);
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
      await expect(page.locator(".topbar .doc-name")).toHaveText("web-app-replace.json");
      expect(requests).toHaveLength(1);
      const headers = await requests[0].allHeaders();
      expect(headers.cookie).toBeUndefined();
      expect(headers.referer).toBeUndefined();
      // The address keeps ?url= (a reload fetches it again) and the view in the fragment.
      await row(page, "aws_instance.bastion").click();
      await expect(page).toHaveURL(/\?url=.*#r=aws_instance\.bastion$/);
      // Sharing it offers a short link that fetches it from the same address.
      const dialog = await shareDialog(page);
      const short = await linkOf(dialog, "address");
      expect(short).toBe(`${new URL("/", page.url()).href}?url=${encodeURIComponent(address)}#r=aws_instance.bastion`);
      const second = await context.newPage();
      await second.goto(short);
      await expect(second.getByTestId("diff-address")).toHaveText("aws_instance.bastion");
      await second.close();
    });
  });

  test("?url= explains a CORS refusal, an HTTP error and an address it will not fetch", async ({ page, pageLog }) => {
    // Chromium reports the refused and failed requests on the console itself.
    pageLog.allowedConsole = ["CORS policy", "Failed to load resource", "net::ERR_FAILED"];
    await withServer(SAMPLES, { cors: false }, async (other) => {
      pageLog.allowed.push(`${other}/`);
      await page.goto(`/?url=${encodeURIComponent(`${other}/web-app-replace.json`)}`);
      await expect(page.getByTestId("load-error")).toContainText("CORS");
      await expect(page.getByTestId("load-error")).toContainText("Access-Control-Allow-Origin");
    });
    await withServer(SAMPLES, { cors: true }, async (other) => {
      pageLog.allowed.push(`${other}/`);
      await page.goto(`/?url=${encodeURIComponent(`${other}/missing.json`)}`);
      await expect(page.getByTestId("load-error")).toContainText("HTTP 404");
    });
    const before = pageLog.requests.length;
    await page.goto(`/?url=${encodeURIComponent("http://example.com/plan.json")}`);
    await expect(page.getByTestId("load-error")).toContainText("only over https");
    expect(pageLog.requests.slice(before).filter((u) => new URL(u).host === "example.com")).toEqual([]);
  });

  test("the site built for a sub-path works under it", async ({ page, pageLog }) => {
    expect(
      existsSync(join(DIST_SUB, "index.html")),
      "dist-sub/ is missing: scripts/test.sh builds it with trunk build --release --public-url /planlens/ --dist dist-sub",
    ).toBe(true);
    const html = readFileSync(join(DIST_SUB, "index.html"), "utf8");
    expect(html).toContain('src="/planlens/boot-');
    await withServer(DIST_SUB, { prefix: "/planlens/" }, async (sub) => {
      pageLog.allowed.push(`${sub}/planlens/`);
      await page.goto(`${sub}/planlens/`);
      await page.getByTestId("sample-web-app-replace").click();
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
      await page.getByTestId("tab-graph").click();
      await expect(page.getByTestId("graph-counts")).toBeVisible();
      const dialog = await shareDialog(page);
      const link = await linkOf(dialog, "full");
      expect(link.startsWith(`${sub}/planlens/#tab=graph&`)).toBe(true);
      const other = await page.context().newPage();
      await other.goto(link);
      await expect(other.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
      await expect(other.getByTestId("graph-counts")).toBeVisible();
      await other.close();
      // Everything it loaded came from under /planlens/.
      const outside = pageLog.requests.filter((u) => u.startsWith(sub) && !u.startsWith(`${sub}/planlens/`));
      expect(outside).toEqual([]);
    });
  });
});
