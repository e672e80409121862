// Benchmark: a reviewer clicks a PR link with a cold cache. How soon is the plan's summary on screen in
// Planlens (a share link made by `planlens link`, the plan inside the #fragment) against terraform-visual
// (its report folder for the same plan, as its CLI writes it), on several small real plans, in one run?
// And a repeat visit of the same link. A benchmark, not a test: it prints figures next to the targets
// (BRIEF.md "What fast means": twice as fast as terraform-visual at 10 Mbit/s and at 1.6 Mbit/s /
// 150 ms; a repeat visit in ≤ 250 ms) and always exits 0.
//
//   node scripts/prlink.mjs [--dist DIR] [--bin PATH] [--plans a.json,b.json] [--runs N]
//                           [--profiles 10/40,1.6/150] [--verbose]
//
//   --dist      the built site (default $PLANLENS_DIST or dist/); copied to a temporary folder first,
//               so a rebuild during the run cannot swap files under it. This script never builds.
//   --bin       the Planlens CLI (default $PLANLENS_BIN or target/release/planlens); `BIN link PLAN
//               --base URL` prints the link on its last stdout line
//   --plans     plan JSON files (default: five real plans from ../shared/fixtures/real, 3–84 KB)
//   --runs      visits per plan, profile and site (default 3); medians are printed
//   --profiles  MBIT/RTT_MS pairs (default 10/40,1.6/150), emulated with CDP
//               Network.emulateNetworkConditions on the page
//   --verbose   also print, once per plan and profile, the paths each site fetched before its summary
//
// Method (from ../shared/tools/prlink.mjs, the one-plan prototype):
//   cold    a fresh browser context per visit; time from navigation until the summary is visible plus
//           two animation frames: Planlens `[data-testid=plan-summary]:not(:empty)`, terraform-visual
//           its `canvas`. Planlens and terraform-visual visits alternate. Timed on node's clock (the
//           prototype's figure, CDP round trips included) and, in the JSON, on the page's own clock
//           (page_ms: from the start of navigation, seen by a requestAnimationFrame probe).
//   app     Planlens only: until the app has taken over from the link's first paint (its own list
//           rows on screen: tabs, diffs and the graph work from then on), node's clock ("app ms").
//   bytes   counted by the server: gzip bodies of the requests the page had made when the summary
//           appeared (its document and every request that had started by then, by Playwright's
//           request timing against the probe's wall-clock time: what Planlens fetches behind the
//           summary is not counted) ("before summary"), and of every request until the page was fully loaded (network
//           idle, Planlens's service worker active, no request for 1.5 s: "total"). Requests the page
//           did not make itself (the service worker's precache, the browser's favicon) are marked
//           (other) in the paths and summed apart in the JSON (bytes_before_summary_other). The
//           emulated network applies to the page and its workers, not to the service worker: its
//           precache is not slowed down.
//   repeat  under the 10/40 profile (or the first one given): after each cold Planlens visit has gone
//           idle, in the same context, about:blank then the same link again; time to the summary and
//           the bytes the server sent (≈ 0 when the service worker or the HTTP cache answers).
// Both sites are served by node's http server, each file gzip-compressed at level 6 (as
// tests/e2e/serve.mjs and scripts/bench.mjs count it; compressed once, not per request) with
// `cache-control: max-age=600` as GitHub Pages sends. Every host but 127.0.0.1 fails to resolve in the
// browser, so terraform-visual's Google Fonts stylesheet is never fetched (offline machines behave so
// anyway; on a real network it costs terraform-visual one more connection).
// terraform-visual reports are written by `npx -y @terraform-visual/cli@0.2.1 --plan PLAN` (npm
// registry) into bench-data/tv/<plan-stem>/ (gitignored) and reused when present.
// Output: one JSON line per plan and profile with all raw runs, then a table. Progress goes to stderr.
// Timings are wall-clock from node (CDP round trips included, a few ms) and noisy (±20 %).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { basename, dirname, extname, join, normalize, resolve, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { option } from "./args.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REAL = resolve(ROOT, "../shared/fixtures/real");
const DATA = join(ROOT, "bench-data");
const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  // Only the local servers exist: no third-party request can hang or vary between machines.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];
const TV_CLI = "@terraform-visual/cli@0.2.1";
const SUMMARY = "[data-testid=plan-summary]:not(:empty)";
const TV_READY = "canvas";
// The app has taken over from a link's first paint: its own list rows are on screen.
const APP_READY = ".app [data-testid=resource-row]";
const GZIP_LEVEL = 6;
const MAX_AGE = 600; // GitHub Pages
const READY_TIMEOUT = 60_000; // summary (or canvas) on screen
const IDLE_TIMEOUT = 20_000; // network idle after the summary
const SW_TIMEOUT = 10_000; // navigator.serviceWorker.ready; a build without a service worker still measures
const QUIET_MS = 1500; // no request reached the server for this long: the page is fully loaded
// BRIEF.md "What fast means".
const TARGET_RATIO = 2; // terraform-visual ÷ Planlens, time to summary
const TARGET_REPEAT_MS = 250;
// Default plans: different sizes and shapes, all plan JSON that terraform-visual renders.
const DEFAULT_PLANS = [
  "terraform__equiv_fully_populated_complex_update.json", // 84 KB, the largest of 50–100 KB: one deep update
  "terraform-compliance__tf1_0_drift_and_deletes.json", // 71 KB: 15 drift entries + 15 changes, the issue's kind
  "policy-engine__fv1_1_mixed_changes_drift.json", // 33 KB: create/update/delete/no-op + drift
  "terraform__showjson_modules.json", // 11 KB: typical, two modules with count
  "terraform__showjson_requires_replace.json", // 3 KB: typical tiny PR, one replace
];

// ---------------------------------------------------------------------------------------------
// Arguments and small helpers

const VERBOSE = process.argv.includes("--verbose");
const DIST = resolve(ROOT, option("--dist", process.env.PLANLENS_DIST || "dist"));
const BIN = resolve(ROOT, option("--bin", process.env.PLANLENS_BIN || "target/release/planlens"));
const PLANS_ARG = option("--plans", "");
const RUNS = Math.max(1, Number(option("--runs", "3")) || 3);
const PROFILES = option("--profiles", "10/40,1.6/150").split(",").map((s) => s.trim()).filter(Boolean)
  .map((s) => { const [mbps, rtt] = s.split("/").map(Number); return { name: s, mbps, rtt }; })
  .filter((p) => p.mbps > 0 && p.rtt >= 0);
// The profile the repeat visit is measured under.
const REPEAT_PROFILE = (PROFILES.find((p) => p.mbps === 10 && p.rtt === 40) || PROFILES[0] || {}).name;

const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const ms = (x) => (Number.isFinite(x) ? Math.round(x).toString() : "—");
const kib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1024).toFixed(1) : "—");
const log = (...a) => console.error(...a); // progress on stderr, results on stdout
const skip = (why) => { console.log(`prlink: SKIPPED: ${why}`); process.exit(0); };

function table(header, rows) {
  const all = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(all[0]), widths.map((w) => "-".repeat(w)).join("  "), ...all.slice(1).map(line)].join("\n");
}

// ---------------------------------------------------------------------------------------------
// A static server that logs each request: when it arrived (node's clock, the one visits are timed
// on) and how many body bytes were sent. `root` can be changed between visits (one report per plan).

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".wasm": "application/wasm",
  ".json": "application/json", ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon",
  ".webmanifest": "application/manifest+json", ".txt": "text/plain; charset=utf-8",
};

function serve(root) {
  const site = { root, log: [], compressed: new Map() };
  site.server = createServer((req, res) => {
    const entry = { path: new URL(req.url, "http://x").pathname, at: performance.now(), bytes: 0, status: 200 };
    site.log.push(entry);
    let rel = decodeURIComponent(entry.path);
    if (rel.endsWith("/")) rel += "index.html";
    const base = resolve(site.root);
    const file = normalize(join(base, rel));
    let stat = null;
    try { if (file.startsWith(base + sep)) stat = statSync(file); } catch {}
    if (!stat || !stat.isFile()) {
      entry.status = 404;
      res.writeHead(404, { "content-type": "text/plain" }).end();
      return;
    }
    // Compressed once per file, as a host's cache would: compressing is not part of a visit.
    let body = site.compressed.get(file);
    if (!body) site.compressed.set(file, (body = gzipSync(readFileSync(file), { level: GZIP_LEVEL })));
    entry.bytes = body.length;
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] || "application/octet-stream",
      "content-encoding": "gzip", "cache-control": `max-age=${MAX_AGE}`, "content-length": body.length,
    });
    res.end(body);
  });
  return new Promise((ok) => site.server.listen(0, "127.0.0.1", () => {
    site.url = `http://127.0.0.1:${site.server.address().port}/`;
    ok(site);
  }));
}

const sum = (entries) => entries.reduce((a, e) => a + e.bytes, 0);
/**
 * The server's log entries of requests made before the summary appeared: those the page had asked
 * for by then (`asked`: paths of the requests that had started when the probe saw the summary),
 * else, when the probe saw nothing, every request that reached the server before node saw the
 * summary (`t`).
 */
const before = (site, t, asked) => {
  if (!asked) return site.log.filter((e) => e.at < t);
  const left = new Map();
  for (const p of asked) left.set(p, (left.get(p) || 0) + 1);
  return site.log.filter((e) => {
    const n = left.get(e.path) || 0;
    if (n) left.set(e.path, n - 1);
    return n > 0 && e.at < t;
  });
};

/** Resolves once no request has reached `sites` for QUIET_MS (at most IDLE_TIMEOUT). */
async function quiet(sites) {
  const end = performance.now() + IDLE_TIMEOUT;
  for (;;) {
    const last = Math.max(0, ...sites.flatMap((s) => s.log.map((e) => e.at)));
    const now = performance.now();
    if (now - last >= QUIET_MS || now > end) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------
// Plans and terraform-visual reports

function planList() {
  if (PLANS_ARG) {
    const given = PLANS_ARG.split(",").map((s) => s.trim()).filter(Boolean).map((s) => resolve(s));
    for (const p of given) if (!existsSync(p)) log(`prlink: no plan at ${p}: left out`);
    return given.filter((p) => existsSync(p));
  }
  if (!existsSync(REAL)) skip(`${REAL} is absent (the default plans live there; pass --plans)`);
  return DEFAULT_PLANS.map((f) => join(REAL, f)).filter((p) => existsSync(p));
}

const stem = (plan) => basename(plan).replace(/\.json$/i, "");

/** bench-data/tv/<stem>/, written by terraform-visual's CLI unless present; null if that fails. */
function tvReport(plan) {
  const out = join(DATA, "tv", stem(plan));
  if (existsSync(join(out, "index.html"))) return out;
  log(`terraform-visual: writing ${out} …`);
  const tmp = mkdtempSync(join(tmpdir(), "prlink-tv-"));
  try {
    execFileSync("npx", ["-y", TV_CLI, "--plan", plan], { cwd: tmp, stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
    mkdirSync(dirname(out), { recursive: true });
    cpSync(join(tmp, "terraform-visual-report"), out, { recursive: true });
    return out;
  } catch (e) {
    log(`terraform-visual: failed for ${basename(plan)}: ${String(e.stderr || e.message).trim().slice(0, 300)}`);
    rmSync(out, { recursive: true, force: true });
    return null;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function planlensLink(plan, base) {
  const out = execFileSync(BIN, ["link", plan, "--base", base], { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  return out.toString().trim().split("\n").pop().trim();
}

// ---------------------------------------------------------------------------------------------
// Visits

const problems = new Map(); // "[site] kind: text" -> count
function watch(page, label) {
  const note = (k) => problems.set(k, (problems.get(k) || 0) + 1);
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") note(`[${label}] console.${m.type()}: ${m.text().slice(0, 200)}`);
  });
  page.on("pageerror", (e) => note(`[${label}] pageerror: ${String(e.message).slice(0, 200)}`));
  page.on("crash", () => note(`[${label}] page crashed`));
}

const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

// Runs in each document before its scripts: the page's own clock for the same moment, from the start
// of navigation (performance.timeOrigin) to the second frame after `selector` is visible, without the
// CDP round trips the wall-clock figure includes.
function readyProbe(selector) {
  const tick = () => {
    const el = document.querySelector(selector);
    const r = el && el.getBoundingClientRect();
    if (r && r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden") {
      // When the summary appeared, on the wall clock Playwright times requests on: what the page
      // had asked for by then is what the summary needed (not what it fetches after, behind it).
      window.__prlinkAt = performance.timeOrigin + performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => { window.__prlinkReady = performance.now(); }));
    } else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

/**
 * Navigates `page` to `url`; resolves to the time until `selector` is visible plus two frames on
 * node's clock (`ms`, the prototype's figure) and on the page's (`pageMs`).
 */
async function timeToReady(page, url, selector) {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: "commit", timeout: READY_TIMEOUT });
  await page.waitForSelector(selector, { state: "visible", timeout: READY_TIMEOUT });
  await page.evaluate(twoFrames);
  const t = performance.now();
  const pageMs = await page.waitForFunction(() => window.__prlinkReady, null, { timeout: 5000 })
    .then((h) => h.jsonValue()).catch(() => NaN);
  const at = await page.evaluate(() => window.__prlinkAt || null).catch(() => null);
  return { t0, t, ms: t - t0, pageMs, at };
}

/**
 * Marks the server's log entries the page (and its dedicated workers) did not ask for: the service
 * worker's precache, the browser's favicon. Matched by path, in order.
 */
function ownedBy(entries, pageRequests) {
  const left = new Map();
  for (const p of pageRequests) left.set(p, (left.get(p) || 0) + 1);
  return entries.map((e) => {
    const n = left.get(e.path) || 0;
    if (n) left.set(e.path, n - 1);
    return { ...e, other: !n };
  });
}

/**
 * One cold visit in a fresh context; with `repeat`, then the same link again in the same context.
 * Returns the figures of the visit; `error` says why one is missing.
 */
async function visit(browser, site, url, selector, profile, { label, sw = false, repeat = false, app = null }) {
  const r = { ms: NaN, before: NaN, total: NaN, paths: [] };
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    await ctx.addInitScript(readyProbe, selector);
    const page = await ctx.newPage();
    watch(page, label);
    const asked = []; // paths the page and its dedicated workers requested
    const requests = []; // and the requests themselves, for their start times
    page.on("request", (q) => {
      if (!q.url().startsWith("http")) return;
      asked.push(new URL(q.url()).pathname);
      requests.push(q);
    });
    /** Paths of the page's requests that started by `at` (wall clock), or null without `at`. */
    const startedBy = async (at) => {
      if (!at) return null;
      const paths = [];
      for (const q of requests) {
        await q.response().catch(() => null);
        const start = q.timing().startTime;
        if (start > 0 && start <= at) paths.push(new URL(q.url()).pathname);
      }
      return paths;
    };
    const cdp = await ctx.newCDPSession(page);
    await cdp.send("Network.enable");
    const bps = (profile.mbps * 1e6) / 8;
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false, latency: profile.rtt, downloadThroughput: bps, uploadThroughput: bps,
    });
    site.log = [];
    const cold = await timeToReady(page, url, selector);
    const seen = ownedBy(before(site, cold.t, await startedBy(cold.at)), asked);
    Object.assign(r, {
      ms: cold.ms, pageMs: cold.pageMs, before: sum(seen), beforeOther: sum(seen.filter((e) => e.other)),
      paths: seen.map((e) => `${e.path} ${kib(e.bytes)}${e.status === 200 ? "" : ` (${e.status})`}${e.other ? " (other)" : ""}`),
    });

    // Planlens: when the app has taken over from the link's first paint (its own list on screen,
    // the first paint gone): the plan is interactive from then on (tabs, diffs, graph).
    if (app) {
      await page.waitForSelector(app, { state: "visible", timeout: READY_TIMEOUT })
        .then(() => { r.appMs = performance.now() - cold.t0; })
        .catch(() => {});
    }

    // Fully loaded: the page's network idle, its service worker active (Planlens), no request for a while.
    await page.waitForLoadState("networkidle", { timeout: IDLE_TIMEOUT }).catch(() => {});
    if (sw) {
      r.sw = await page.evaluate((timeout) => Promise.race([
        navigator.serviceWorker ? navigator.serviceWorker.ready.then(() => true) : Promise.resolve(false),
        new Promise((ok) => setTimeout(() => ok(false), timeout)),
      ]), SW_TIMEOUT).catch(() => false);
    }
    await quiet([site]);
    r.total = sum(site.log);
    r.requests = site.log.length;

    if (repeat) {
      await page.goto("about:blank");
      site.log = [];
      requests.length = 0;
      const again = await timeToReady(page, url, selector);
      r.repeatMs = again.ms;
      r.repeatPageMs = again.pageMs;
      r.repeatBefore = sum(before(site, again.t, await startedBy(again.at)));
      r.repeatControlled = await page.evaluate(() => !!(navigator.serviceWorker && navigator.serviceWorker.controller));
      await quiet([site]);
      r.repeatTotal = sum(site.log);
      r.repeatPaths = site.log.map((e) => `${e.path} ${kib(e.bytes)}`);
    }
  } catch (e) {
    r.error = String(e && e.message ? e.message : e).split("\n")[0].slice(0, 200);
    log(`  ${label}: ${r.error}`);
  } finally {
    await ctx.close().catch(() => {});
  }
  return r;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (!existsSync(join(DIST, "index.html"))) skip(`no built site at ${DIST} (build it, or pass --dist / PLANLENS_DIST)`);
  if (!existsSync(BIN)) skip(`no Planlens CLI at ${BIN} (pass --bin / PLANLENS_BIN)`);
  if (!existsSync(CHROMIUM)) skip(`no Chromium at ${CHROMIUM}`);
  if (!PROFILES.length) skip(`no valid --profiles (MBIT/RTT_MS, comma-separated)`);
  const plans = planList();
  if (!plans.length) skip("none of the plans exists");
  let chromium;
  try {
    ({ chromium } = await import("@playwright/test"));
  } catch {
    skip("@playwright/test is not installed (npm ci)");
  }

  const snapshot = mkdtempSync(join(tmpdir(), "prlink-dist-"));
  cpSync(DIST, snapshot, { recursive: true });
  const ours = await serve(snapshot);
  const theirs = await serve(snapshot); // root set per plan below
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  log(`prlink: ${DIST} (snapshot ${snapshot}), ${BIN}, Chromium ${browser.version()}, ${RUNS} run(s), ` +
    `profiles ${PROFILES.map((p) => p.name).join(", ")}, repeat visit at ${REPEAT_PROFILE}, load average ${loadavg()[0].toFixed(2)}`);

  const rows = [];
  try {
    for (const plan of plans) {
      const name = stem(plan);
      const size = statSync(plan).size;
      let link;
      try {
        link = planlensLink(plan, ours.url);
      } catch (e) {
        log(`${name}: planlens link failed: ${String(e.stderr || e.message).trim().slice(0, 300)}`);
        continue;
      }
      const tv = tvReport(plan);
      if (tv) theirs.root = tv;
      for (const profile of PROFILES) {
        const repeat = profile.name === REPEAT_PROFILE;
        const pl = [], tvs = [];
        for (let i = 0; i < RUNS; i++) {
          log(`${name} (${(size / 1000).toFixed(1)} KB) at ${profile.name}: run ${i + 1}/${RUNS}`);
          pl.push(await visit(browser, ours, link, SUMMARY, profile, { label: "planlens", sw: true, repeat, app: APP_READY }));
          if (tv) tvs.push(await visit(browser, theirs, theirs.url, TV_READY, profile, { label: "terraform-visual" }));
        }
        const pick = (xs, k) => xs.map((x) => (Number.isFinite(x[k]) ? Math.round(x[k]) : null));
        const line = {
          plan: basename(plan), plan_bytes: size, link_chars: link.length, profile: profile.name,
          mbps: profile.mbps, rtt_ms: profile.rtt, gzip_level: GZIP_LEVEL,
          planlens: {
            ms: pick(pl, "ms"), page_ms: pick(pl, "pageMs"), app_ms: pick(pl, "appMs"), bytes_before_summary: pick(pl, "before"),
            bytes_before_summary_other: pick(pl, "beforeOther"), bytes_total: pick(pl, "total"),
            sw_ready: pl.map((x) => x.sw ?? null), paths_before_summary: pl[0].paths,
            errors: pl.map((x) => x.error).filter(Boolean),
          },
          terraform_visual: tv ? {
            ms: pick(tvs, "ms"), page_ms: pick(tvs, "pageMs"), bytes_before_summary: pick(tvs, "before"),
            bytes_total: pick(tvs, "total"),
            paths_before_summary: tvs[0].paths, errors: tvs.map((x) => x.error).filter(Boolean),
          } : null,
          repeat: repeat ? {
            ms: pick(pl, "repeatMs"), page_ms: pick(pl, "repeatPageMs"), bytes_before_summary: pick(pl, "repeatBefore"), bytes_total: pick(pl, "repeatTotal"),
            sw_controlled: pl.map((x) => x.repeatControlled ?? null), paths: pl[0].repeatPaths || [],
          } : null,
        };
        console.log(JSON.stringify(line));
        if (VERBOSE) {
          log(`  planlens before summary: ${line.planlens.paths_before_summary.join(", ")}`);
          if (tv) log(`  terraform-visual before canvas: ${line.terraform_visual.paths_before_summary.join(", ")}`);
          if (repeat) log(`  repeat visit fetched: ${line.repeat.paths.join(", ") || "nothing"}`);
        }
        const m = (xs, k) => median(xs.map((x) => x[k]));
        const plMs = m(pl, "ms"), tvMs = tv ? m(tvs, "ms") : NaN;
        rows.push([
          name, (size / 1000).toFixed(1), profile.name,
          ms(plMs), ms(m(pl, "appMs")), kib(m(pl, "before")), kib(m(pl, "total")),
          ms(tvMs), kib(tv ? m(tvs, "before") : NaN), kib(tv ? m(tvs, "total") : NaN),
          Number.isFinite(tvMs / plMs) ? `${(tvMs / plMs).toFixed(2)}×` : "—",
          repeat ? `${ms(m(pl, "repeatMs"))} (${ms(m(pl, "repeatPageMs"))})` : "", repeat ? kib(m(pl, "repeatTotal")) : "",
        ]);
      }
    }
  } finally {
    await browser.close().catch(() => {});
    ours.server.close();
    theirs.server.close();
    rmSync(snapshot, { recursive: true, force: true });
  }

  console.log([
    `\nPR link, cold cache: time to the summary, median of ${RUNS} (node's clock). KiB: gzip (level ${GZIP_LEVEL}) bodies`,
    "the server sent for the requests the page had made when the summary appeared (<sum) / until the page was fully loaded (all).",
    "app ms: until the app has taken over from the link's first paint (its own list on screen; tabs and diffs work).",
    `ratio: terraform-visual ÷ Planlens, > 1 when Planlens is faster (goal ≥ ${TARGET_RATIO}×). repeat: the same link`,
    `again in the same context at ${REPEAT_PROFILE}, node's clock (page's clock), goal ≤ ${TARGET_REPEAT_MS} ms, and the KiB it fetched.\n`,
  ].join("\n"));
  console.log(table(
    ["plan", "KB", "profile", "planlens ms", "app ms", "KiB<sum", "KiB all", "tv ms", "tv KiB<sum", "tv KiB all", "ratio", "repeat ms", "repeat KiB"],
    rows,
  ));
  if (problems.size) {
    console.log("\nPage console errors/warnings and failures (count × message)\n");
    for (const [k, c] of problems) console.log(`  ${c} × ${k}`);
  }
  console.log(`\nload average at the end ${loadavg()[0].toFixed(2)}`);
}

try {
  await main();
} catch (e) {
  console.log(`prlink: failed: ${e && e.stack ? e.stack : e}`);
}
process.exit(0);
