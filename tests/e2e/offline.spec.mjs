// Offline after one visit (issue 14): the service worker that scripts/service-worker.mjs writes
// (sw.js) keeps the build's own files. After one visit, with the network off *and* the server gone,
// a reload shows the landing page and a sample plan opens with its resources, on a desktop
// (1400×860) and a phone (390×844). The cache holds exactly the build's files: nothing from another
// origin (a `?url=` plan) is stored. A new deploy (another index.html, so another sw.js version)
// is what the next visit shows, and then what works offline; the old version's cache is deleted.
// The build for a sub-path registers its worker with that sub-path as scope. The landing page
// says the site works offline only once a worker is active, and never where there is none.
// The lazily loaded parts (the readers of text plans, states, plan logs and driftctl reports; the
// YAML reader; the Rego engine) are kept the first time they are used, not on install: a first
// visit does not download them. Offline, a file whose reader was never used says so and what to do.
//
// Each test serves the build from its own server, so it can stop it: `context.setOffline` alone
// may not reach a service worker's own requests, a closed port does.
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { test, expect, DIST, REPO } from "./harness.mjs";
import { serve } from "./serve.mjs";

// The sub-path build: scripts/test.sh builds dist-sub/ (PLANLENS_DIST_SUB: another one).
const DIST_SUB = process.env.PLANLENS_DIST_SUB || join(REPO, "dist-sub");
const SAMPLES = join(REPO, "samples");

const VIEWPORTS = [
  { name: "desktop", width: 1400, height: 860 },
  { name: "phone", width: 390, height: 844 },
];

/** Starts a server for `root` under `prefix`; `stop()` closes it and every open connection. */
async function start(root, options = {}) {
  const server = await serve(root, { port: 0, host: "127.0.0.1", ...options });
  let stopped = false;
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      server.closeAllConnections?.();
      await new Promise((done) => server.close(done));
    },
  };
}

/**
 * A lazily loaded part of the app (`part-NAME.js`, `part-NAME_bg.wasm`) or a link's first paint's
 * module: kept on first use.
 */
const keptOnFirstUse = (f) => /^part-[a-z0-9-]+(\.js|_bg\.wasm)$/.test(f) || f === "planlens-glance_bg.wasm";

/** The files a build's service worker keeps on install: every one but the parts kept on first use. */
function precached(root) {
  return buildFiles(root).filter((f) => !keptOnFirstUse(f));
}

const FIXTURES = join(REPO, "tests", "fixtures");

/** Every file of a build, as paths relative to it (what sw.js must list, sw.js aside). */
function buildFiles(root) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(root, join(d, e.name)).split(sep).join("/"));
    }
  };
  walk(root);
  return out.filter((f) => f !== "sw.js").sort();
}

/** The version a build's sw.js carries. */
function versionOf(root) {
  const m = /const VERSION = "([0-9a-f]+)";/.exec(readFileSync(join(root, "sw.js"), "utf8"));
  expect(m, `${root}/sw.js carries a version`).not.toBeNull();
  return m[1];
}

/** Waits until a service worker is active and controls the page; returns its scope and script. */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker && navigator.serviceWorker.controller !== null, null, {
    timeout: 20_000,
  });
  return page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return { scope: reg.scope, script: navigator.serviceWorker.controller.scriptURL, state: reg.active.state };
  });
}

/** Cache Storage as the page sees it: each cache's name and the URLs it holds, sorted. */
async function cachesOf(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      out[name] = (await cache.keys()).map((r) => r.url).sort();
    }
    return out;
  });
}

/** Waits until Cache Storage holds exactly one cache, whose name ends with `version`. */
async function onlyCache(page, version) {
  await expect
    .poll(async () => Object.keys(await cachesOf(page)).map((n) => n.split(" ").pop()), { timeout: 20_000 })
    .toEqual([version]);
  return Object.values(await cachesOf(page))[0];
}

/** The landing page, then the sample plan with its resources listed. */
async function landingAndSample(page) {
  await expect(page.locator("input[type=file][data-testid=plan-file]")).toBeAttached();
  await expect(page.getByTestId("sample-web-app-replace")).toBeVisible();
  await page.getByTestId("sample-web-app-replace").click();
  await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
  await expect(page.getByTestId("resource-row").first()).toBeVisible();
  expect(await page.getByTestId("resource-row").count()).toBeGreaterThan(5);
}

/** The sample plan open (after a reload, which keeps the view), its resources listed. */
async function sampleOpen(page) {
  await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
  await expect(page.getByTestId("resource-row").first()).toBeVisible();
}

/** Cuts the network: the server stops and the browser context goes offline. */
async function offline(page, server) {
  await server.stop();
  await page.context().setOffline(true);
}

test("a first visit downloads the app once: the service worker keeps the copies the page just fetched", async ({ page, pageLog }) => {
  // Served as GitHub Pages serves (max-age=600): the worker takes the files whose names carry
  // their hash from the HTTP cache; only index.html, worker.js and the samples go past it.
  const server = await serve(DIST, { port: 0, host: "127.0.0.1", maxAge: 600 });
  const hits = new Map();
  server.on("request", (req) => hits.set(req.url, (hits.get(req.url) || 0) + 1));
  const origin = `http://127.0.0.1:${server.address().port}`;
  pageLog.allowed.push(`${origin}/`);
  try {
    await page.goto(`${origin}/`);
    await expect(page.locator("input[type=file][data-testid=plan-file]")).toBeAttached();
    await controlled(page);
    const cached = await onlyCache(page, versionOf(DIST));
    expect(cached.length).toBe(precached(DIST).length);
    // Trunk's hash is hex without leading zeros: up to 16 digits, sometimes fewer.
    const hashed = [...hits.keys()].filter((u) => /-[0-9a-f]{8,16}(_bg)?\.(js|wasm|css)$/.test(u));
    expect(hashed.some((u) => u.endsWith("_bg.wasm")), [...hits.keys()].join(" ")).toBe(true);
    for (const url of hashed) expect(hits.get(url), url).toBe(1);
  } finally {
    server.closeAllConnections?.();
    await new Promise((done) => server.close(done));
  }
});

for (const vp of VIEWPORTS) {
  test(`after one visit the site works offline (${vp.name} ${vp.width}x${vp.height})`, async ({ page, pageLog }) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    const server = await start(DIST);
    pageLog.allowed.push(`${server.origin}/`);
    try {
      await page.goto(`${server.origin}/`);
      await landingAndSample(page);
      const sw = await controlled(page);
      expect(sw).toEqual({ scope: `${server.origin}/`, script: `${server.origin}/sw.js`, state: "activated" });
      // The landing page says so, now that it is true.
      await page.goto(`${server.origin}/`);
      await expect(page.getByTestId("offline-ready")).toBeVisible();
      await expect(page.getByTestId("offline-ready")).toContainText("Works offline");
      await landingAndSample(page);
      // The cache holds this build's files, every one but the lazily loaded parts, and nothing else.
      const cached = await onlyCache(page, versionOf(DIST));
      expect(cached).toEqual(precached(DIST).map((f) => `${server.origin}/${f}`).sort());

      await offline(page, server);
      const fromWorker = [];
      // The context's responses: the page's, and those of the parsing worker it starts.
      page.context().on("response", (r) => {
        if (!r.url().startsWith("blob:") && !r.url().startsWith("data:")) fromWorker.push([new URL(r.url()).pathname, r.fromServiceWorker()]);
      });
      // A reload keeps the view: the sample opens again, from the cache.
      await page.reload();
      await sampleOpen(page);
      // The site's address: the landing page, and a sample opened from it.
      await page.goto(`${server.origin}/`);
      await expect(page.getByTestId("offline-ready")).toBeVisible();
      await landingAndSample(page);
      // Everything came from the service worker (nothing could come from anywhere else).
      expect(fromWorker.length).toBeGreaterThan(3);
      expect(fromWorker.filter(([, sw]) => !sw)).toEqual([]);
      expect(fromWorker.map(([p]) => p)).toEqual(expect.arrayContaining(["/", "/samples/web-app-replace.json"]));
      expect(fromWorker.some(([p]) => p.endsWith(".wasm"))).toBe(true);
      // The plan was opened by the parsing worker, itself from the cache (the page would open it
      // alone if no worker started).
      if (existsSync(join(DIST, "worker.js"))) expect(fromWorker.map(([p]) => p)).toContain("/worker.js");

      // A link to the site with a view in it opens offline too (a navigation with a query and a fragment).
      await page.goto(`${server.origin}/?from=offline#sample=modules-for-each`);
      await expect(page.getByTestId("plan-summary")).toBeVisible();
      await expect(page.getByTestId("resource-row").first()).toBeVisible();

      // A state, whose reader (the readers' part) was never used online, cannot open offline:
      // the page says why and what to do, and keeps no half-open plan.
      pageLog.allowedConsole.push("Failed to load resource", "net::ERR_INTERNET_DISCONNECTED", "Failed to fetch");
      const file = page.locator("input[type=file][data-testid=plan-file]");
      await file.setInputFiles(join(FIXTURES, "states", "modules.tfstate"));
      await expect(page.getByTestId("load-error")).toContainText("could not be loaded");
      await expect(page.getByTestId("load-error")).toContainText("connect to the network");
    } finally {
      await page.context().setOffline(false);
      await server.stop();
    }
  });
}

for (const vp of VIEWPORTS) {
  test(`a lazily loaded part is kept the first time it is used, and works offline then (${vp.name} ${vp.width}x${vp.height})`, async ({ page, pageLog }) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    const server = await start(DIST);
    pageLog.allowed.push(`${server.origin}/`);
    const yamlPlan = join(REPO, "tests", "fixtures", "kube", "plan-secret.yaml");
    try {
      await page.goto(`${server.origin}/`);
      await controlled(page);
      await page.reload();
      await expect(page.locator("input[type=file][data-testid=plan-file]")).toBeAttached();
      const version = versionOf(DIST);
      // Not kept before it is used …
      let cached = await onlyCache(page, version);
      expect(cached.filter((u) => /\/part-/.test(u))).toEqual([]);
      // … fetched when a YAML file is opened (the plan Secret as `kubectl get -o yaml` prints it) …
      const fetched = [];
      page.context().on("request", (r) => {
        if (/\/part-yaml/.test(r.url())) fetched.push(new URL(r.url()).pathname);
      });
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(yamlPlan);
      await expect(page.getByTestId("plan-summary")).toBeVisible();
      expect(fetched).toEqual(expect.arrayContaining(["/part-yaml.js", "/part-yaml_bg.wasm"]));
      // … and kept then, in this version's cache.
      await expect
        .poll(async () => (await cachesOf(page))[Object.keys(await cachesOf(page))[0]].filter((u) => /\/part-yaml/.test(u)).length)
        .toBe(2);
      // The readers' part too: the YAML's Kubernetes objects are read by it, and a text plan
      // opened next uses the same part.
      await expect
        .poll(async () => (await cachesOf(page))[Object.keys(await cachesOf(page))[0]].filter((u) => /\/part-readers/.test(u)).length)
        .toBe(2);
      await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(join(FIXTURES, "text_plans", "opentofu_drift.txt"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 3 to add, 2 to change, 4 to destroy, 1 to forget.");
      // Offline, a YAML file still opens, and so do a text plan and a state (which was never
      // opened online: the readers' part is the same for both): the parts come from the cache.
      await offline(page, server);
      await page.reload();
      const file = page.locator("input[type=file][data-testid=plan-file]");
      await expect(file).toBeAttached();
      await file.setInputFiles(yamlPlan);
      await expect(page.getByTestId("plan-summary")).toBeVisible();
      await expect(page.getByTestId("load-error")).toHaveCount(0);
      await file.setInputFiles(join(FIXTURES, "text_plans", "opentofu_drift.txt"));
      await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 3 to add, 2 to change, 4 to destroy, 1 to forget.");
      await file.setInputFiles(join(FIXTURES, "states", "modules.tfstate"));
      await expect(page.getByTestId("plan-summary")).toHaveText("State: 9 resources in 4 modules (Terraform 1.9.5).");
      await expect(page.getByTestId("load-error")).toHaveCount(0);
    } finally {
      await page.context().setOffline(false);
      await server.stop();
    }
  });
}

test("a plan fetched from another origin (?url=) is never stored", async ({ page, pageLog }) => {
  const server = await start(DIST);
  const other = await start(SAMPLES, { cors: true });
  pageLog.allowed.push(`${server.origin}/`, `${other.origin}/`);
  try {
    await page.goto(`${server.origin}/`);
    await controlled(page);
    const plan = `${other.origin}/web-app-replace.json`;
    await page.goto(`${server.origin}/?url=${encodeURIComponent(plan)}`);
    await expect(page.getByTestId("plan-summary")).toHaveText("Plan: 1 to import, 8 to add, 9 to change, 3 to destroy.");
    const cached = await onlyCache(page, versionOf(DIST));
    expect(cached.filter((u) => !u.startsWith(`${server.origin}/`))).toEqual([]);
    expect(cached).toEqual(precached(DIST).map((f) => `${server.origin}/${f}`).sort());
    // Offline, the page still opens from the cache and says the plan could not be fetched.
    await offline(page, server);
    await other.stop();
    pageLog.allowedConsole.push("Failed to load resource", "net::ERR_INTERNET_DISCONNECTED", "Failed to fetch");
    await page.goto(`${server.origin}/?url=${encodeURIComponent(plan)}`);
    await expect(page.getByTestId("load-error")).toBeVisible();
    await expect(page.getByTestId("plan-summary")).toHaveCount(0);
  } finally {
    await page.context().setOffline(false);
    await server.stop();
    await other.stop();
  }
});

test("a new deploy is what the next visit shows, and then what works offline", async ({ page, pageLog }) => {
  // A copy of the build that the test can redeploy: same files, index.html changed, sw.js
  // written again by the build's own hook (so its version follows the files).
  const site = mkdtempSync(join(tmpdir(), "planlens-deploy-"));
  cpSync(DIST, site, { recursive: true });
  const server = await start(site);
  pageLog.allowed.push(`${server.origin}/`);
  try {
    await page.goto(`${server.origin}/`);
    await landingAndSample(page);
    await controlled(page);
    const first = versionOf(site);
    await onlyCache(page, first);
    expect(await page.locator("meta[name=planlens-deploy]").count()).toBe(0);

    // Deploy: a marker in index.html, and sw.js from scripts/service-worker.mjs.
    const index = join(site, "index.html");
    writeFileSync(index, readFileSync(index, "utf8").replace("<head>", '<head><meta name="planlens-deploy" content="second" />'));
    execFileSync("node", [join(REPO, "scripts", "service-worker.mjs")], { env: { ...process.env, TRUNK_STAGING_DIR: site } });
    const second = versionOf(site);
    expect(second).not.toBe(first);

    // The next visit shows the new deploy at once (the page comes from the network first) …
    await page.goto(`${server.origin}/`);
    await expect(page.locator("meta[name=planlens-deploy]")).toHaveAttribute("content", "second");
    await landingAndSample(page);
    // … the new worker takes over and the old version's cache is gone …
    const cached = await onlyCache(page, second);
    expect(cached).toContain(`${server.origin}/index.html`);
    // … and offline, the new deploy is what opens.
    await offline(page, server);
    await page.reload();
    await expect(page.locator("meta[name=planlens-deploy]")).toHaveAttribute("content", "second");
    await sampleOpen(page);
  } finally {
    await page.context().setOffline(false);
    await server.stop();
    rmSync(site, { recursive: true, force: true });
  }
});

test("the sub-path build's worker has the sub-path as its scope and works offline there (phone 390x844)", async ({ page, pageLog }) => {
  expect(
    existsSync(join(DIST_SUB, "sw.js")),
    "dist-sub/sw.js is missing: scripts/test.sh builds dist-sub with trunk build --release --public-url /planlens/ --dist dist-sub",
  ).toBe(true);
  await page.setViewportSize({ width: 390, height: 844 });
  const server = await start(DIST_SUB, { prefix: "/planlens/" });
  pageLog.allowed.push(`${server.origin}/planlens/`);
  try {
    await page.goto(`${server.origin}/planlens/`);
    await landingAndSample(page);
    const sw = await controlled(page);
    expect(sw).toEqual({
      scope: `${server.origin}/planlens/`,
      script: `${server.origin}/planlens/sw.js`,
      state: "activated",
    });
    const caches = await page.evaluate(() => caches.keys());
    expect(caches).toEqual([`planlens ${server.origin}/planlens/ ${versionOf(DIST_SUB)}`]);
    const cached = await onlyCache(page, versionOf(DIST_SUB));
    expect(cached).toEqual(precached(DIST_SUB).map((f) => `${server.origin}/planlens/${f}`).sort());

    await offline(page, server);
    await page.reload();
    await sampleOpen(page);
    await page.goto(`${server.origin}/planlens/`);
    await landingAndSample(page);
  } finally {
    await page.context().setOffline(false);
    await server.stop();
  }
});

test.describe("without a service worker", () => {
  test.use({ serviceWorkers: "block" });

  for (const vp of VIEWPORTS) {
    test(`the landing page does not claim to work offline (${vp.name} ${vp.width}x${vp.height})`, async ({ page }) => {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      await page.goto("/");
      await expect(page.getByTestId("sample-web-app-replace")).toBeVisible();
      // The boot script has run to its end (the app started) and no worker took the page.
      await page.waitForTimeout(1500);
      expect(await page.evaluate(() => navigator.serviceWorker?.controller ?? null)).toBeNull();
      await expect(page.getByTestId("offline-ready")).toHaveCount(0);
    });
  }
});
