// Planlens in a real browser (Debian's Chromium), against the release build in dist/.
//
// Expectations come from one place: the summary sentences of the hand-written fixtures, the samples
// and the real plans from the fixture manifest (tests/fixtures/manifest.json), which the Rust tests
// (tests/core) read too. Every test also runs the checks in harness.mjs: no request
// leaves the test server's origin, no uncaught page error, no dialog.
import { readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { test, expect, REPO, REAL, needsShared, sharedFiles } from "./harness.mjs";
import { gotoApp, chooseFile, openPlan } from "./helpers.mjs";

const FIXTURES = join(REPO, "tests", "fixtures");
const SAMPLES = join(REPO, "samples");

const fixture = (name) => join(FIXTURES, name);
const sample = (name) => join(SAMPLES, name);
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

/**
 * The fixture manifest (tests/fixtures/manifest.json), the one list of fixtures the Rust tests read
 * too: `path` (from the repository root), `kind`, `exercises` and, where known, `summary` (the
 * summary strip's sentence).
 */
const MANIFEST = readJson(join(FIXTURES, "manifest.json")).fixtures;

/** `name → sentence` of our plans and driftctl reports (directly in tests/fixtures) and samples. */
function ownExpectations() {
  const out = new Map();
  for (const f of MANIFEST) {
    const m = f.path.match(/^(?:tests\/fixtures|samples)\/([^/]+)$/);
    if (m && f.summary && (f.kind === "plan" || f.kind === "driftctl")) out.set(m[1], f.summary);
  }
  return out;
}
const EXPECTED = ownExpectations();

/** `name → sentence` of the real plans (../shared/fixtures/real in the manifest). */
function realPlanExpectations() {
  const out = new Map();
  for (const f of MANIFEST) {
    const m = f.path.match(/^\.\.\/shared\/fixtures\/real\/([^/]+)$/);
    if (m && f.kind === "plan" && f.summary) out.set(m[1], f.summary);
  }
  return out;
}

function expected(name) {
  const sentence = EXPECTED.get(name);
  if (!sentence) throw new Error(`tests/fixtures/manifest.json gives no summary for ${name}`);
  return sentence;
}

const SAMPLE_STEMS = readdirSync(SAMPLES)
  .filter((n) => n.endsWith(".json"))
  .map((n) => n.replace(/\.json$/, ""))
  .sort();

// ---------------------------------------------------------------------------------------------
// Helpers

async function dismissError(page) {
  const dismiss = page.locator(".load-error button[aria-label=Dismiss]");
  if (await dismiss.count()) {
    await dismiss.click();
    await expect(page.getByTestId("load-error")).toHaveCount(0);
  }
}

/** Opens a file that is not a plan; returns the error message's locator once it shows. */
async function openBad(page, path) {
  await dismissError(page);
  await chooseFile(page, path);
  const error = page.getByTestId("load-error");
  await expect(error).toBeVisible();
  return error;
}

/** The resource rows in the DOM, in list order (they are absolutely positioned). */
async function listedRows(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-testid=resource-list] [data-testid=resource-row]")]
      .map((el) => ({
        address: el.getAttribute("data-address"),
        action: el.getAttribute("data-action"),
        top: parseFloat(el.style.top),
        classes: el.className,
      }))
      .sort((a, b) => a.top - b.top),
  );
}

const addressesOf = async (page) => (await listedRows(page)).map((r) => r.address);

/** "N of M resource instances" → [N, M]. */
async function listCount(page) {
  const text = await page.getByTestId("list-count").innerText();
  const m = text.match(/^(\d+) of (\d+) resource instances$/);
  expect(m, `list count text: ${text}`).not.toBeNull();
  return [Number(m[1]), Number(m[2])];
}

const rowByAddress = (page, address) =>
  page.locator(`[data-testid=resource-row][data-address="${address.replace(/["\\]/g, "\\$&")}"]`);

async function blurToBody(page) {
  await page.evaluate(() => document.activeElement && document.activeElement.blur && document.activeElement.blur());
  await expect.poll(() => page.evaluate(() => document.activeElement === document.body)).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// Tests

test.describe("Planlens in the browser", () => {
  test("the landing page shows the drop zone, the sample buttons and the paste box", async ({ page }) => {
    await gotoApp(page);
    await expect(page.getByTestId("drop-zone")).toBeVisible();
    await expect(page.getByTestId("drop-zone")).toContainText("Open a Terraform plan");
    expect(SAMPLE_STEMS.length).toBeGreaterThan(0);
    for (const stem of SAMPLE_STEMS) {
      await expect(page.getByTestId(`sample-${stem}`)).toBeVisible();
      await expect(page.getByTestId(`sample-${stem}`)).toBeEnabled();
    }
    await expect(page.locator("button.sample")).toHaveCount(SAMPLE_STEMS.length);
    await expect(page.getByTestId("paste-box")).toBeVisible();
    await expect(page.getByTestId("paste-open")).toBeVisible();
    // Nothing pasted yet: the button waits for text.
    await expect(page.getByTestId("paste-open")).toBeDisabled();
    await expect(page.getByTestId("plan-summary")).toHaveCount(0);
  });

  test("opens each hand-written fixture and sample through the file input with Terraform's summary sentence", async ({ page }) => {
    await gotoApp(page);
    const files = [
      ...readdirSync(FIXTURES).filter((n) => EXPECTED.has(n)).map(fixture),
      ...SAMPLE_STEMS.map((s) => sample(`${s}.json`)),
    ];
    // Every plan of ours with a summary in the manifest (and every sample) is opened.
    expect(files.length).toBe(EXPECTED.size);
    for (const path of files) {
      await openPlan(page, path);
      await expect.soft(page.getByTestId("plan-summary"), basename(path)).toHaveText(expected(basename(path)));
    }
  });

  test("opens every real plan with its summary sentence", async ({ page }) => {
    needsShared(REAL);
    test.setTimeout(180_000);
    const table = realPlanExpectations();
    expect(table.size).toBeGreaterThan(0);
    const names = readdirSync(REAL).filter((n) => n.endsWith(".json")).sort();
    expect(names.length).toBeGreaterThan(0);
    await gotoApp(page);
    for (const name of names) {
      const path = join(REAL, name);
      // driftctl reports are covered by drift.spec.mjs.
      if (name.startsWith("driftctl__")) continue;
      expect.soft(table.has(name), `${name} has no summary in tests/fixtures/manifest.json`).toBe(true);
      if (!table.has(name)) continue;
      await dismissError(page);
      await openPlan(page, path);
      await expect.soft(page.getByTestId("plan-summary"), name).toHaveText(table.get(name));
      // tests/core/real_plans.rs also requires that real plans load without warnings.
      await expect.soft(page.getByTestId("load-warning"), name).toHaveCount(0);
    }
  });

  test("opens a plan dropped on the page (drag and drop)", async ({ page }) => {
    await gotoApp(page);
    const name = "forget.json";
    const text = readFileSync(fixture(name), "utf8");
    const dataTransfer = await page.evaluateHandle(
      ({ text, name }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], name, { type: "application/json" }));
        return dt;
      },
      { text, name },
    );
    await page.dispatchEvent(".app", "dragover", { dataTransfer });
    await expect(page.locator(".app")).toHaveClass(/\bdragging\b/);
    await page.dispatchEvent(".app", "drop", { dataTransfer });
    await expect(page.locator(".topbar .doc-name")).toHaveText(name);
    await expect(page.getByTestId("plan-summary")).toHaveText(expected(name));
    await expect(page.locator(".app")).not.toHaveClass(/\bdragging\b/);
  });

  test("filters the list by action, shows unchanged resources on request and filters by module", async ({ page }) => {
    const path = sample("web-app-replace.json");
    const plan = readJson(path);
    const all = plan.resource_changes.map((r) => r.address).sort();
    const deletes = plan.resource_changes
      .filter((r) => r.change.actions.length === 1 && r.change.actions[0] === "delete")
      .map((r) => r.address)
      .sort();
    const inDb = all.filter((a) => a.startsWith("module.db."));
    expect(deletes.length).toBeGreaterThan(0);
    expect(inDb.length).toBeGreaterThan(0);

    await gotoApp(page);
    await openPlan(page, path);
    await expect(page.getByTestId("resource-row").first()).toBeVisible();
    const [shownAtStart, total] = await listCount(page);
    expect(total).toBe(all.length);
    // Plain no-ops are hidden by default.
    expect(shownAtStart).toBeLessThan(total);
    expect((await listedRows(page)).length).toBe(shownAtStart);

    // Action chip: only deletes.
    await page.getByTestId("filter-delete").click();
    await expect(page.getByTestId("filter-delete")).toHaveAttribute("aria-pressed", "true");
    await expect.poll(async () => (await addressesOf(page)).sort()).toEqual(deletes);
    for (const row of await listedRows(page)) expect(row.action, row.address).toBe("delete");
    await expect(page.getByTestId("list-count")).toHaveText(`${deletes.length} of ${total} resource instances`);
    // Clicking again clears it.
    await page.getByTestId("filter-delete").click();
    await expect(page.getByTestId("filter-delete")).toHaveAttribute("aria-pressed", "false");
    await expect(page.getByTestId("list-count")).toHaveText(`${shownAtStart} of ${total} resource instances`);

    // Show unchanged: every row, including the plain no-ops.
    await page.getByTestId("show-no-ops").check();
    await expect(page.getByTestId("list-count")).toHaveText(`${total} of ${total} resource instances`);
    await expect.poll(async () => (await addressesOf(page)).sort()).toEqual(all);
    expect((await listedRows(page)).some((r) => r.action === "no-op")).toBe(true);
    await page.getByTestId("show-no-ops").uncheck();
    await expect(page.getByTestId("list-count")).toHaveText(`${shownAtStart} of ${total} resource instances`);

    // Module select: values are indices, the first option ("") is all modules.
    const select = page.getByTestId("filter-module");
    const options = await select.locator("option").evaluateAll((os) => os.map((o) => ({ value: o.value, label: o.textContent })));
    expect(options[0]).toEqual({ value: "", label: "All modules" });
    for (const [i, o] of options.slice(1).entries()) expect(o.value, o.label).toBe(String(i));
    expect(options.map((o) => o.label)).toContain("module.db");
    await page.getByTestId("show-no-ops").check();
    await select.selectOption({ label: "module.db" });
    await expect.poll(async () => (await addressesOf(page)).sort()).toEqual(inDb);
    await expect(page.getByTestId("module-heading")).toHaveCount(1);
    await expect(page.getByTestId("module-heading")).toContainText("module.db");
    await select.selectOption("");
    await expect(page.getByTestId("list-count")).toHaveText(`${total} of ${total} resource instances`);
  });

  test("a plan with hundreds of modules offers every one in the module filter", async ({ page }) => {
    // The options are made a few hundred per task after the plan shows: all of them arrive, in
    // order, and choosing the last one filters the list to it.
    const modules = 700;
    const resource_changes = Array.from({ length: modules }, (_, i) => ({
      address: `module.m${i}.null_resource.r`, module_address: `module.m${i}`, mode: "managed",
      type: "null_resource", name: "r", provider_name: "registry.terraform.io/hashicorp/null",
      change: { actions: ["create"], before: null, after: {}, after_unknown: { id: true } },
    }));
    const plan = { format_version: "1.2", terraform_version: "1.9.5", resource_changes };
    await gotoApp(page);
    await page.locator("input[type=file][data-testid=plan-file]").setInputFiles({
      name: "many-modules.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(plan)),
    });
    await expect(page.getByTestId("plan-summary")).toBeVisible();
    const select = page.getByTestId("filter-module");
    await expect(select.locator("option")).toHaveCount(modules + 2); // "All modules" and the root
    const labels = await select.locator("option").evaluateAll((os) => os.map((o) => o.textContent));
    expect(labels.slice(0, 3)).toEqual(["All modules", "(root module)", "module.m0"]);
    expect(labels.at(-1)).toBe("module.m99");
    await select.selectOption({ label: "module.m699" });
    await expect(page.getByTestId("list-count")).toHaveText(`1 of ${modules} resource instances`);
  });

  test("searches addresses case-insensitively and Escape clears the search", async ({ page }) => {
    const path = sample("web-app-replace.json");
    const all = readJson(path).resource_changes.map((r) => r.address);
    const matching = (text) => all.filter((a) => a.toLowerCase().includes(text.toLowerCase())).sort();
    expect(matching("subnet").length).toBeGreaterThan(1);
    expect(matching("aws_instance").length).toBeGreaterThan(1);

    await gotoApp(page);
    await openPlan(page, path);
    // List every row so the expected rows follow from the plan alone.
    await page.getByTestId("show-no-ops").check();
    await expect(page.getByTestId("list-count")).toHaveText(`${all.length} of ${all.length} resource instances`);
    const search = page.getByTestId("search");

    await search.fill("SUBNET");
    await expect.poll(async () => (await addressesOf(page)).sort()).toEqual(matching("subnet"));
    for (const a of await addressesOf(page)) expect(a.toLowerCase()).toContain("subnet");
    await expect(page.getByTestId("list-count")).toHaveText(`${matching("subnet").length} of ${all.length} resource instances`);

    await search.fill("no such resource anywhere");
    await expect(page.getByTestId("resource-row")).toHaveCount(0);
    await expect(page.getByTestId("list-empty")).toContainText("Nothing matches these filters.");

    await search.fill("Aws_Instance");
    await expect.poll(async () => (await addressesOf(page)).sort()).toEqual(matching("aws_instance"));
    for (const a of await addressesOf(page)) expect(a.toLowerCase()).toContain("aws_instance");

    await search.press("Escape");
    await expect(search).toHaveValue("");
    await expect(search).not.toBeFocused();
    await expect(page.getByTestId("list-count")).toHaveText(`${all.length} of ${all.length} resource instances`);
    await expect.poll(async () => (await addressesOf(page)).sort()).toEqual([...all].sort());
  });

  test("keyboard: / focuses search, j/k move, Enter opens, and the selection survives a reload", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, sample("web-app-replace.json"));
    await expect(page.getByTestId("resource-row").first()).toBeVisible();
    const rows = await addressesOf(page);
    expect(rows.length).toBeGreaterThan(2);

    await blurToBody(page);
    await page.keyboard.press("/");
    await expect(page.getByTestId("search")).toBeFocused();
    // "/" must not be typed into the box.
    await expect(page.getByTestId("search")).toHaveValue("");
    await page.keyboard.press("Escape");
    await blurToBody(page);

    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await expect(rowByAddress(page, rows[1])).toHaveClass(/\bcursor\b/);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
    await expect(rowByAddress(page, rows[1])).toHaveClass(/\bselected\b/);
    await expect.poll(() => page.evaluate(() => location.hash)).toContain(`r=${encodeURIComponent(rows[1])}`);

    // k moves the cursor up; the diff changes only on Enter.
    await page.keyboard.press("k");
    await expect(rowByAddress(page, rows[0])).toHaveClass(/\bcursor\b/);
    await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("diff-address")).toHaveText(rows[0]);
    await expect.poll(() => page.evaluate(() => location.hash)).toContain(`r=${encodeURIComponent(rows[0])}`);
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#r=${encodeURIComponent(rows[1])}`);

    // A reload reopens the plan (kept in sessionStorage) and the selection (from the fragment).
    await page.reload();
    await expect(page.locator(".topbar .doc-name")).toHaveText("web-app-replace.json");
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("web-app-replace.json"));
    await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
    await expect(rowByAddress(page, rows[1])).toHaveClass(/\bselected\b/);
  });

  test("a sample and its selection reopen from the #sample= fragment after a reload", async ({ page }) => {
    await gotoApp(page);
    await page.getByTestId("sample-modules-for-each").click();
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("modules-for-each.json"));
    await expect(page.getByTestId("resource-row").first()).toBeVisible();
    const rows = await addressesOf(page);
    await blurToBody(page);
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
    await expect
      .poll(() => page.evaluate(() => location.hash))
      .toBe(`#sample=modules-for-each&r=${encodeURIComponent(rows[1])}`);
    await page.reload();
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("modules-for-each.json"));
    await expect(page.getByTestId("diff-address")).toHaveText(rows[1]);
  });

  test("the selection of a resource with a tricky instance key survives a reload", async ({ page }) => {
    test.setTimeout(120_000);
    const path = fixture("tricky_keys.json");
    await gotoApp(page);
    await openPlan(page, path);
    await page.getByTestId("show-no-ops").check();
    await expect(page.getByTestId("resource-row").first()).toBeVisible();
    const rows = await addressesOf(page);
    expect(rows.length).toBe(readJson(path).resource_changes.length);
    for (const address of rows) {
      await rowByAddress(page, address).click();
      await expect(page.getByTestId("diff-address"), address).toHaveText(address);
      // The fragment carries the selection and the list filter (no-ops shown).
      await expect.poll(() => page.evaluate(() => location.hash), address).toBe(`#r=${encodeURIComponent(address)}&noop=1`);
      await page.reload();
      await expect(page.locator(".topbar .doc-name")).toHaveText("tricky_keys.json");
      await expect.soft(page.getByTestId("diff-address"), `after reload: ${address}`).toHaveText(address);
      await expect.soft(rowByAddress(page, address), `after reload: ${address}`).toHaveClass(/\bselected\b/);
      await page.getByTestId("show-no-ops").check();
    }
  });

  test("diff shows sensitive and unknown values, forces-replacement, and never renders a secret", async ({ page, pageLog }) => {
    const path = fixture("nested_sensitive_unknown.json");
    const raw = readFileSync(path, "utf8");
    const secrets = [...new Set(raw.match(/SECRET[-A-Z0-9]*/g))];
    expect(secrets).toEqual(
      expect.arrayContaining([
        "SECRET-PASSWORD-VALUE-5678",
        "SECRET-PASSWORD-VALUE-8765",
        "SECRET-USERDATA-VALUE-4321",
        "SECRET-USERDATA-VALUE-9999",
        "SECRET-OUTPUT-VALUE-1234",
      ]),
    );
    const plan = JSON.parse(raw);
    const leaked = async (where) => {
      const html = await page.evaluate(() => document.documentElement.outerHTML);
      for (const s of secrets) expect.soft(html.includes(s), `${s} in the page (${where})`).toBe(false);
    };

    await gotoApp(page);
    await openPlan(page, path);
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("nested_sensitive_unknown.json"));
    await leaked("after opening");

    // The update with nested sensitive and unknown values.
    await rowByAddress(page, "appconfig_environment.main").click();
    await expect(page.getByTestId("diff-address")).toHaveText("appconfig_environment.main");
    const tree = page.getByTestId("diff-tree");
    await expect(tree).toContainText("(sensitive value)");
    await expect(tree).toContainText("(known after apply)");
    await expect(tree).toContainText("max_connections");

    // The replace: the attribute in replace_paths forces replacement.
    await rowByAddress(page, "aws_instance.app").click();
    await expect(page.getByTestId("diff-address")).toHaveText("aws_instance.app");
    await expect(page.getByTestId("forces-replacement").first()).toBeVisible();
    await expect(page.getByTestId("forces-replacement").first()).toHaveText("# forces replacement");
    await expect(page.getByTestId("forces-replacement").locator("xpath=..")).toContainText("volume_size");

    // Every row's diff, with unchanged attributes folded and unfolded.
    for (const unfolded of [false, true]) {
      await page.getByTestId("tab-resources").click();
      await page.getByTestId("show-no-ops").setChecked(true);
      const addresses = await addressesOf(page);
      expect(addresses.sort()).toEqual(plan.resource_changes.map((r) => r.address).sort());
      for (const address of addresses) {
        await rowByAddress(page, address).click();
        await expect(page.getByTestId("diff-address")).toHaveText(address);
        await page.getByTestId("show-unchanged-attrs").setChecked(unfolded);
        await expect(page.getByTestId("diff-tree")).toBeVisible();
        await leaked(`diff of ${address}, unchanged ${unfolded ? "shown" : "folded"}`);
      }
    }

    // Outputs: the sensitive output is masked.
    await page.getByTestId("tab-outputs").click();
    await expect(page.getByTestId("outputs-panel")).toBeVisible();
    const adminToken = page.getByTestId("output-row").filter({ hasText: "admin_token" });
    await expect(adminToken).toHaveCount(1);
    await expect(adminToken).toContainText("(sensitive value)");
    await leaked("outputs tab");
    await page.getByTestId("tab-checks").click();
    await leaked("checks tab");

    // Nothing secret in the console either.
    for (const s of secrets) {
      expect(pageLog.console.filter((m) => m.includes(s)), `${s} in console messages`).toEqual([]);
    }
  });

  test("hostile plan: markup and scripts in names and values are shown as text and never run", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, fixture("hostile.json"));
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("hostile.json"));
    await page.getByTestId("show-no-ops").check();
    const rows = page.getByTestId("resource-row");
    await expect(rows.first()).toBeVisible();
    const n = await rows.count();
    expect(n).toBe(readJson(fixture("hostile.json")).resource_changes.length);
    for (let i = 0; i < n; i++) {
      await rows.nth(i).click();
      await expect(rows.nth(i)).toHaveClass(/\bselected\b/);
      await expect(page.getByTestId("diff-address")).toBeVisible();
      await page.getByTestId("show-unchanged-attrs").setChecked(true);
    }
    await page.getByTestId("tab-outputs").click();
    await expect(page.getByTestId("outputs-panel")).toBeVisible();
    await page.getByTestId("tab-checks").click();
    await expect(page.getByTestId("checks-panel")).toBeVisible();
    await expect(page.getByTestId("checks-panel")).toContainText("<script>window.__pwned=7</script>");
    await page.getByTestId("tab-resources").click();
    await expect(rows.first()).toBeVisible();

    expect(await page.evaluate(() => typeof window.__pwned)).toBe("undefined");
    expect(await page.evaluate(() => document.querySelectorAll("body img, body iframe, body svg, body script").length)).toBe(0);
    // The markup is there, as text.
    await expect(rows.filter({ hasText: "<script>window.__pwned=1</script>" })).toHaveCount(1);
    await expect(rows.filter({ hasText: '<img src=x onerror=\\"window.__pwned=2\\">' })).toHaveCount(1);
    // Direction-changing and invisible characters are shown as escapes, never raw.
    const hidden = await page.evaluate(() =>
      [...document.body.innerText].filter((c) => /[\u0000\u202a-\u202e\u2066-\u2069]/.test(c)).map((c) => c.codePointAt(0).toString(16)),
    );
    expect(hidden, "raw bidi/NUL characters in the visible text").toEqual([]);
    await expect(rows.filter({ hasText: "\\u{202e}" }).first()).toBeVisible();
  });

  test("bad input gives a clear message, and a bad file keeps the open plan", async ({ page }) => {
    await gotoApp(page);
    const cases = [
      ["not_json.txt", "line 3, column 5"],
      ["empty.json", "empty"],
      ["truncated.json", "truncated"],
      ["array.json", "not a Terraform plan"],
    ];
    for (const [name, words] of cases) {
      const error = await openBad(page, fixture(name));
      await expect.soft(error, name).toContainText(words);
      await expect(page.getByTestId("plan-summary")).toHaveCount(0);
    }
    // A good file: the error goes away and the plan opens.
    await openPlan(page, fixture("forget.json"));
    await expect(page.getByTestId("load-error")).toHaveCount(0);
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("forget.json"));

    // A bad file while a plan is open: the message shows, the plan stays.
    const error = await openBad(page, fixture("not_json.txt"));
    await expect(error).toContainText("line 3, column 5");
    await expect(page.locator(".topbar .doc-name")).toHaveText("forget.json");
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("forget.json"));
    await expect(page.getByTestId("resource-row").first()).toBeVisible();
  });

  test("a plan with an unknown format version opens with a warning", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, fixture("unknown_format.json"));
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("unknown_format.json"));
    await expect(page.getByTestId("load-warning")).toHaveCount(1);
    await expect(page.getByTestId("load-warning")).toContainText("9.9");
  });

  test("opens pasted JSON", async ({ page }) => {
    await gotoApp(page);
    const name = "deposed.json";
    await page.getByTestId("paste-box").fill(readFileSync(fixture(name), "utf8"));
    await expect(page.getByTestId("paste-open")).toBeEnabled();
    await page.getByTestId("paste-open").click();
    await expect(page.getByTestId("plan-summary")).toHaveText(expected(name));
    await expect(page.locator(".topbar .doc-name")).toHaveText("pasted plan");
  });

  test("each sample opens from its Try a sample button", async ({ page }) => {
    for (const stem of SAMPLE_STEMS) {
      await gotoApp(page);
      await page.getByTestId(`sample-${stem}`).click();
      await expect(page.getByTestId("plan-summary"), stem).toHaveText(expected(`${stem}.json`));
      await expect(page.locator(".topbar .doc-name")).toHaveText(`${stem}.json`);
      // A drift report opens on the Drift tab, which the fragment records too.
      await expect.poll(() => page.evaluate(() => location.hash)).toMatch(new RegExp(`^#sample=${stem}(&tab=drift)?$`));
    }
  });

  test("outputs and checks tabs: a failing check's message and a masked sensitive output", async ({ page }) => {
    const plan = readJson(sample("modules-for-each.json"));
    const failing = plan.checks.filter((c) => c.status === "fail");
    expect(failing.length).toBeGreaterThan(0);
    const message = failing[0].instances.flatMap((i) => i.problems || [])[0].message;
    const sensitiveOutputs = Object.entries(plan.output_changes)
      .filter(([, c]) => c.after_sensitive === true)
      .map(([name]) => name);
    expect(sensitiveOutputs.length).toBeGreaterThan(0);

    await gotoApp(page);
    await page.getByTestId("sample-modules-for-each").click();
    await expect(page.getByTestId("plan-summary")).toHaveText(expected("modules-for-each.json"));

    await page.getByTestId("tab-checks").click();
    await expect(page.getByTestId("tab-checks")).toHaveAttribute("aria-selected", "true");
    const failed = page.locator("[data-testid=check-row].status-fail");
    await expect(failed.first()).toBeVisible();
    await expect(failed.filter({ hasText: failing[0].address.to_display })).toContainText(message);
    await expect.poll(() => page.evaluate(() => location.hash)).toContain("tab=checks");

    await page.getByTestId("tab-outputs").click();
    await expect(page.getByTestId("outputs-panel")).toBeVisible();
    for (const name of sensitiveOutputs) {
      const row = page.getByTestId("output-row").filter({ has: page.locator(".output-name", { hasText: name }) });
      await expect(row, name).toContainText("(sensitive value)");
    }
    await expect(page.getByTestId("outputs-panel")).toContainText("(sensitive value)");
  });

  test("records one planlens:open performance measure per opened plan", async ({ page }) => {
    await gotoApp(page);
    const measures = () => page.evaluate(() => performance.getEntriesByName("planlens:open", "measure").length);
    await openPlan(page, fixture("forget.json"));
    await expect.poll(measures).toBe(1);
    await openPlan(page, fixture("deposed.json"));
    await expect.poll(measures).toBe(1);
    const duration = await page.evaluate(() => performance.getEntriesByName("planlens:open", "measure")[0].duration);
    expect(duration).toBeGreaterThanOrEqual(0);
  });
});

// Every count on screen says what it counts, the same number wherever it is the same thing, in
// the singular for one.
for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`Counts (${device})`, () => {
    test.use({ viewport });

    test("the summary, the list and the graph count the same resource instances; plurals are right", async ({ page }) => {
      await gotoApp(page);
      const files = [fixture("blast_radius.json"), fixture("deferred.json"), sample("modules-for-each.json")];
      const infracost = join(REAL, "infracost__terraform_v0_12_plan.json");
      files.push(...sharedFiles(infracost));
      const wrongPlural = /(^|[^\d,])1 (dependencies|nodes|resource instances|checks failing|data reads|output changes|collapsed modules|findings|rules|resources depend)\b/;
      for (const path of files) {
        const name = basename(path);
        await openPlan(page, path);
        const chip = await page.getByTestId("count-instances").textContent();
        const n = +chip.match(/^(\d+) resource instances?$/)[1];
        await expect(page.getByTestId("list-count"), name).toHaveText(new RegExp(` of ${n} resource instances?$`));
        const summary = await page.locator(".summary").innerText();
        expect(summary, name).not.toMatch(wrongPlural);
        await page.getByTestId("tab-graph").click();
        const graph = page.getByTestId("graph-counts");
        await expect(graph, name).toHaveText(new RegExp(`^${n} resource instances?( · \\d+ only in the prior state)? · `));
        expect(await graph.innerText(), name).not.toMatch(wrongPlural);
        await page.getByTestId("tab-resources").click();
      }
      // The failing check of the sample reads in the singular.
      await openPlan(page, sample("modules-for-each.json"));
      await expect(page.getByTestId("count-check-fail")).toHaveText("1 check failing");
    });
  });
}
