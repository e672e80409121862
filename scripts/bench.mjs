// Benchmark: how light and how fast Planlens is, in headless Chromium. A benchmark, not a test: it
// prints every figure next to its target (issue 14, BRIEF.md "What fast means") and always exits 0.
//
//   node scripts/bench.mjs [--parts LIST] [--sizes 1000,10000,50000] [--runs 5]
//   node scripts/bench.mjs --quick        first visit, 10k and 50k opens, Cancel; 3 runs (a few minutes)
//   node scripts/bench.mjs --parts first  one part only
//
// Parts (default: all of them), each timed cold, in a fresh browser context per run:
//   first   first visit: gzip bytes of the .js + .wasm the landing page loads and what opening a sample
//           adds (each URL once, workers included); landing page ready at 10 Mbit/s, 40 ms RTT, cache
//           disabled, files served gzip-compressed as GitHub Pages serves them
//   open    a generated plan from file chosen to interactive (summary, list and verdict on screen), the
//           app's "planlens:open", the ratio to fetch + JSON.parse of the same file in the same page,
//           WebAssembly memory (page + workers) ÷ file size, long main-thread tasks, the progress text
//           seen at each frame; drift and rule timings
//   floor   fetch + JSON.parse and file.text() + JSON.parse in a fresh page (the browser's floor)
//   cancel  Cancel pressed while the largest plan is read, and while it is parsed: time until idle
//   graph   the Graph tab (first frame, layout, frame times while zooming)
//   share   share links: made, length, opened
//   policies the BRIEF's five guardrails in Rego (tests/fixtures/policies/conftest_v1) on each plan in
//           the Rules tab: the Rego engine's compile, input and evaluation steps (in its worker), the
//           whole evaluation as the page sees it, beside the same run's TOML pack alone
//   set     50 generated plans of 1,000 resources chosen together (issue 28): files chosen → the
//           roll-up with its 50 rows on screen, the progress seen, long main-thread tasks, workers used
//   compare the 10k plan compared with another 10k plan in the page (Compare with…, issue 29): the
//           app's planlens:compare measure (ask → answer), target 0.5 s
//   native  the native examples (cargo run --release --example graph_bench / rules_bench / share_bench;
//           this builds natively and takes cargo's lock)
//
// Measures the release build in dist/, or in PLANLENS_DIST (this script never builds). Plans come from
// ../shared/tools/gen_plan.py --seed 1 and are written to bench-data/plan-N.json (gitignored), reused
// when present. Progress goes to stderr, results to stdout. Timings are noisy (±30 %) and worse while
// anything else (a build) runs: the load average is printed at the start and at the end.
import { chromium } from "@playwright/test";
import { spawn } from "node:child_process";
import {
  cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync,
  rmSync, statSync, symlinkSync, unlinkSync, writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zc, gzipSync } from "node:zlib";
import { serve } from "../tests/e2e/serve.mjs";
import { option } from "./args.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = process.env.PLANLENS_DIST ? resolve(process.env.PLANLENS_DIST) : join(ROOT, "dist");
const DATA = join(ROOT, "bench-data");
const GEN = resolve(ROOT, "../shared/tools/gen_plan.py");
const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--enable-precise-memory-info",
];
const READY_TIMEOUT = 180_000;

// Issue 14 ("Light and never frozen").
const TARGET_FIRST_VISIT_KIB = 400; // gzip (level 6) of wasm + JS: landing page plus viewing a plan
const TARGET_LANDING_MS = 1000; // landing page ready at 10 Mbit/s, 40 ms RTT
const TARGET_10K_MS = 400; // file chosen → interactive
const TARGET_10K_RATIO = 0.6; // ÷ fetch + JSON.parse of the same file, same page
const TARGET_50K_MS = 1200;
const TARGET_MEMORY_RATIO = 1.5; // WebAssembly memory after opening ÷ file size
const TARGET_LONG_TASK_MS = 50; // longest main-thread task while the 50k plan opens
// Issue 28: 50 plans of 1,000 resources each, chosen together, to the roll-up on screen.
const SET_PLANS = 50;
const SET_RESOURCES = 1000;
const TARGET_SET_MS = 2000;
const TARGET_COMPARE_MS = 500; // issue 29: two 10k plans compared in the browser
// Issue 3: graph build + layout of the default view of the 10k plan.
const TARGET_10K_GRAPH_MS = 300;
const TARGET_10K_RULES_MS = 50; // issue 4: built-in pack on 10k resources, in the browser
const TARGET_10K_POLICIES_MS = 300; // issue 15: the five guardrails in Rego, input + evaluation, 10k
const TARGET_POLICY_MEMORY_RATIO = 5; // issue 15: the engine's memory ÷ the plan file
// The first visit's network: 10 Mbit/s each way, 40 ms round trip.
const NETWORK = { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 };
const GZIP_LEVEL = 6; // what tests/e2e/serve.mjs serves and tests/e2e/budget.spec.mjs counts

// ---------------------------------------------------------------------------------------------
// Arguments

const QUICK = process.argv.includes("--quick");
const ALL_PARTS = ["first", "open", "floor", "cancel", "graph", "share", "policies", "set", "compare", "native"];
const PARTS = new Set(
  option("--parts", QUICK ? "first,open,cancel,set" : ALL_PARTS.join(",")).split(",").map((s) => s.trim()).filter(Boolean),
);
for (const p of PARTS) {
  if (!ALL_PARTS.includes(p)) {
    console.log(`bench: unknown part "${p}"; the parts are ${ALL_PARTS.join(", ")}`);
    process.exit(0);
  }
}
const SIZES = option("--sizes", QUICK ? "10000,50000" : "1000,10000,50000")
  .split(",").map((s) => Number(s.trim())).filter((n) => n > 0);
const RUNS = Math.max(1, Number(option("--runs", QUICK ? "3" : "5")) || 5);

// ---------------------------------------------------------------------------------------------
// Small helpers

const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const min = (xs) => { const v = xs.filter(Number.isFinite); return v.length ? Math.min(...v) : NaN; };
const max = (xs) => { const v = xs.filter(Number.isFinite); return v.length ? Math.max(...v) : NaN; };
const ms = (x) => (Number.isFinite(x) ? Math.round(x).toString() : "—");
const mib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1048576).toFixed(1) : "—");
const kib = (bytes) => (bytes / 1024).toFixed(1);
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "—");
const log = (...a) => console.error(...a); // progress on stderr, results on stdout

function table(header, rows) {
  const all = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(all[0]), widths.map((w) => "-".repeat(w)).join("  "), ...all.slice(1).map(line)].join("\n");
}

/** One line of the figures: `name: value (target …) ok|OVER`; a figure not measured says why. */
function figure(name, value, target, ok) {
  if (ok === undefined) return `${name}: ${value}`;
  return `${name}: ${value} (target ${target}) ${ok ? "ok" : "OVER"}`;
}

// ---------------------------------------------------------------------------------------------
// Plans

async function ensurePlan(n) {
  const out = join(DATA, `plan-${n}.json`);
  if (existsSync(out) && statSync(out).size > 0) return out;
  log(`generating ${out} …`);
  const tmp = `${out}.tmp-${process.pid}`;
  const file = createWriteStream(tmp);
  await new Promise((ok) => file.on("open", ok));
  const code = await new Promise((ok, fail) => {
    const p = spawn("python3", [GEN, "--resources", String(n), "--seed", "1"], { stdio: ["ignore", file, "inherit"] });
    p.on("error", fail);
    p.on("exit", ok);
  });
  await new Promise((ok) => file.end(ok));
  if (code !== 0) {
    try { unlinkSync(tmp); } catch {}
    throw new Error(`gen_plan.py exited with ${code} for --resources ${n}`);
  }
  renameSync(tmp, out);
  return out;
}

/** The set's plans: SET_PLANS plans of SET_RESOURCES resources, seeds 1…SET_PLANS, each in a
 * folder of its own as Terragrunt's --json-out-dir writes them (bench-data/set/unit-N/tfplan.json). */
async function ensureSet() {
  const paths = [];
  for (let i = 1; i <= SET_PLANS; i++) {
    const dir = join(DATA, "set", `unit-${i}`);
    const out = join(dir, "tfplan.json");
    paths.push(out);
    if (existsSync(out) && statSync(out).size > 0) continue;
    mkdirSync(dir, { recursive: true });
    const file = createWriteStream(out);
    await new Promise((ok) => file.on("open", ok));
    const code = await new Promise((ok, fail) => {
      const p = spawn("python3", [GEN, "--resources", String(SET_RESOURCES), "--seed", String(i)], { stdio: ["ignore", file, "inherit"] });
      p.on("error", fail);
      p.on("exit", ok);
    });
    await new Promise((ok) => file.end(ok));
    if (code !== 0) throw new Error(`gen_plan.py exited with ${code} for the set's plan ${i}`);
  }
  return paths;
}

/** A second 10k plan (seed 2) to compare the first with. */
async function ensureOther10k() {
  const out = join(DATA, "plan-10000-seed2.json");
  if (existsSync(out) && statSync(out).size > 0) return out;
  const file = createWriteStream(out);
  await new Promise((ok) => file.on("open", ok));
  const code = await new Promise((ok, fail) => {
    const p = spawn("python3", [GEN, "--resources", "10000", "--seed", "2"], { stdio: ["ignore", file, "inherit"] });
    p.on("error", fail);
    p.on("exit", ok);
  });
  await new Promise((ok) => file.end(ok));
  if (code !== 0) throw new Error(`gen_plan.py exited with ${code} for the second 10k plan`);
  return out;
}

// Compare: the 10k plan open, Compare with… the second one; the app's planlens:compare measure
// (the file chosen → the answer), and the longest main-thread task meanwhile (compareLongest).
const compareLongest = [];
async function compareRun(browser, base, planPath, otherPath) {
  const context = await browser.newContext(APP_CONTEXT);
  const page = await context.newPage();
  watch(page, "compare");
  try {
    await page.goto(base + "/", { waitUntil: "load" });
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    await page.getByTestId("plan-summary").waitFor({ timeout: READY_TIMEOUT });
    await page.getByTestId("since-open").click();
    // Long main-thread tasks from choosing the file to the paragraph (the file goes to the
    // plan's worker as a File; the page never reads it).
    await page.evaluate(() => {
      const b = (window.__compare = { longTasks: [], from: performance.now() });
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) b.longTasks.push({ start: e.startTime, duration: e.duration });
        }).observe({ type: "longtask" });
      } catch { b.longTasks = null; }
    });
    await page.getByTestId("since-file").setInputFiles(otherPath);
    await page.getByTestId("since-text").waitFor({ timeout: READY_TIMEOUT });
    const { t, longest } = await page.evaluate(() => ({
      t: performance.getEntriesByName("planlens:compare", "measure")[0]?.duration ?? NaN,
      longest: window.__compare.longTasks == null ? NaN
        : Math.max(0, ...window.__compare.longTasks.filter((x) => x.start >= window.__compare.from).map((x) => x.duration)),
    }));
    compareLongest.push(longest);
    return t;
  } finally {
    await context.close();
  }
}

// The set: the files chosen together → every row of the roll-up on screen.
async function setRun(browser, base, paths, policies = null) {
  const context = await browser.newContext(APP_CONTEXT);
  await context.addInitScript(initScript);
  // With Rego policies in use (as the Rules tab keeps them), every plan is judged by them too.
  if (policies) {
    await context.addInitScript((json) => localStorage.setItem("planlens:policies", json), JSON.stringify(policies));
  }
  const page = await context.newPage();
  watch(page, "set");
  try {
    await page.goto(base + "/", { waitUntil: "load" });
    await page.locator("input[data-testid=plan-file]").waitFor({ state: "attached", timeout: 60_000 });
    await page.evaluate((n) => {
      const b = (window.__set = { changeAt: null, readyAt: null, states: [], longTasks: [], errorText: null });
      addEventListener("change", () => { if (b.changeAt == null) b.changeAt = performance.now(); }, true);
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) b.longTasks.push({ start: e.startTime, duration: e.duration });
        }).observe({ type: "longtask", buffered: true });
      } catch { b.longTasks = null; }
      const frame = () => {
        const p = document.querySelector("[data-testid=load-progress]");
        if (p) {
          const t = p.textContent.replace(/\s+/g, " ").replace(/Cancel$/, "").trim();
          if (b.states[b.states.length - 1] !== t) b.states.push(t);
        }
        const err = document.querySelector("[data-testid=load-error]");
        if (err) b.errorText = err.textContent;
        if (document.querySelectorAll("[data-testid=fleet-row][data-kind=plan]").length === n) b.readyAt = performance.now();
        if (b.readyAt == null && b.errorText == null) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    }, paths.length);
    await page.setInputFiles("input[data-testid=plan-file]", paths);
    await page.waitForFunction(() => window.__set.readyAt != null || window.__set.errorText != null, null, {
      polling: 100, timeout: READY_TIMEOUT,
    });
    const b = await page.evaluate(() => ({ ...window.__set, cores: navigator.hardwareConcurrency }));
    if (b.errorText) throw new Error(`the set showed a load error: ${b.errorText}`);
    // Tasks that began once the files were chosen: the app's own start-up, still finishing when
    // the bench chooses the files, is not the set's work.
    const tasks = b.longTasks ? b.longTasks.filter((t) => t.start >= b.changeAt).map((t) => t.duration) : null;
    return { ready: b.readyAt - b.changeAt, states: b.states, longTasks: tasks, cores: b.cores };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------------------------------------
// One origin for the app and the data: a temporary root holding a copy of dist/ (a snapshot, so a
// rebuild during the run cannot swap files under it) and a symlink to bench-data/.

function siteRoot() {
  const dir = mkdtempSync(join(tmpdir(), "planlens-bench-"));
  cpSync(DIST, dir, { recursive: true });
  symlinkSync(DATA, join(dir, "bench-data"));
  writeFileSync(
    join(dir, "floor.html"),
    `<!doctype html><meta charset="utf-8"><title>floor</title><link rel="icon" href="data:,"><input type="file" id="f">\n`,
  );
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Browser measurements

const problems = new Map(); // "kind: text" -> count
function watch(page, label) {
  page.on("console", (m) => {
    // Blocking service workers (APP_CONTEXT) is the benchmark's own doing.
    if (/blocked by Playwright/.test(m.text())) return;
    if (m.type() === "error" || m.type() === "warning") {
      const key = `[${label}] console.${m.type()}: ${m.text().slice(0, 300)}`;
      problems.set(key, (problems.get(key) || 0) + 1);
    }
  });
  page.on("pageerror", (e) => {
    const key = `[${label}] pageerror: ${String(e.message).slice(0, 300)}`;
    problems.set(key, (problems.get(key) || 0) + 1);
  });
  page.on("crash", () => problems.set(`[${label}] page crashed`, (problems.get(`[${label}] page crashed`) || 0) + 1));
}

// Runs in the page before any of its scripts: keeps a handle on the wasm exports (for memory), and
// records when the landing page is ready: the first frame at which a sample button is visible.
function initScript() {
  addEventListener("TrunkApplicationStarted", (e) => { window.__benchWasm = e.detail && e.detail.wasm; });
  const frame = () => {
    const b = document.querySelector("[data-testid^=sample-]");
    if (b && b.getBoundingClientRect().height > 0) window.__benchLandingReady = performance.now();
    else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

// The WebAssembly memory of the realm it runs in (the page or a worker), in bytes, or null. The glue's
// init returns the instance it already has without loading anything; if none was started, the
// rejecting thenable stops it before it fetches or instantiates a second copy.
async function wasmMemoryHere(glueUrl) {
  const fromHook = () => {
    const w = globalThis.__benchWasm;
    return w && w.memory ? w.memory.buffer.byteLength : null;
  };
  if (!glueUrl) return fromHook();
  try {
    const glue = await import(glueUrl);
    const never = { then: (_, reject) => reject(new Error("not started")) };
    const wasm = await glue.default({ module_or_path: never });
    return wasm && wasm.memory ? wasm.memory.buffer.byteLength : fromHook();
  } catch {
    return fromHook();
  }
}

// The page's WebAssembly memory plus each worker's (the same glue, imported there by the worker).
async function wasmMemory(page) {
  const glueUrl = await page.evaluate(() =>
    window.planlensGlueUrl
      // Builds before issue 27 left Trunk's module preload of the glue in the page.
      || (document.querySelector("link[rel=planlens-glue]") || document.querySelector("link[rel=modulepreload]") || {}).href
      || null);
  const main = await page.evaluate(wasmMemoryHere, glueUrl);
  const workers = [];
  for (const w of page.workers()) {
    try {
      workers.push(await w.evaluate(wasmMemoryHere, glueUrl));
    } catch {
      workers.push(null);
    }
  }
  const known = workers.filter((x) => Number.isFinite(x));
  return {
    main,
    workers: workers.length,
    worker: known.length ? known.reduce((a, b) => a + b, 0) : NaN,
    total: (Number.isFinite(main) ? main : 0) + known.reduce((a, b) => a + b, 0),
  };
}

// Installed just before setInputFiles. Records, on the page's clock:
// - changeAt: the file input's change event (a capturing listener on window runs before the app's);
// - readyAt: the first animation frame with the summary, a resource row and the verdict in the DOM;
// - the status text at every frame (digits folded to #) and whether [data-testid=load-progress] was
//   ever added (MutationObserver) or present at a frame (painted);
// - long main-thread tasks (PerformanceObserver "longtask", buffered) and the longest gap between frames;
// - with `cancel` ("reading" or "parsing"): presses the Cancel button at the first frame whose status
//   reads so, and records when the page is idle again (no progress, no Cancel button).
function installObservers(cancel) {
  const b = (window.__bench = {
    changeAt: null, readyAt: null, errorText: null, progressAdded: false, progressPainted: false,
    states: [], longTasks: [], maxGap: 0, cancelSeen: false, cancelAt: null, idleAt: null,
  });
  addEventListener("change", () => { if (b.changeAt == null) b.changeAt = performance.now(); }, true);
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    b.longTasks = null; // not supported: said so in the report
  }
  const progress = () => document.querySelector("[data-testid=load-progress]");
  const textOf = (node) => {
    let t = "";
    for (const c of node.childNodes) {
      if (c.nodeType === 3) t += c.textContent;
      else if (c.nodeType === 1 && c.tagName !== "BUTTON") t += " " + textOf(c);
    }
    return t;
  };
  const cancelButton = () =>
    [...document.querySelectorAll("[role=status] button, [data-testid=load-progress] button, button[data-testid=load-cancel]")]
      .find((x) => x.textContent.trim() === "Cancel");
  const isReady = () =>
    document.querySelector("[data-testid=plan-summary]") && document.querySelector("[data-testid=resource-row]") &&
    document.querySelector("[data-testid=verdict]");
  const mo = new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && (n.matches("[data-testid=load-progress]") || n.querySelector("[data-testid=load-progress]"))) {
          b.progressAdded = true;
        }
      }
    }
  });
  mo.observe(document.body, { childList: true, subtree: true });
  let last = null;
  // performance.now(), not the callback's argument: after a long task, Chromium hands a frame the
  // time it was begun, which can be from inside that task.
  const frame = () => {
    const now = performance.now();
    if (b.changeAt != null && last != null) b.maxGap = Math.max(b.maxGap, now - last);
    last = now;
    const p = progress();
    if (p) {
      b.progressPainted = true;
      const s = textOf(p).replace(/\s+/g, " ").replace(/\d[\d.,]*/g, "#").trim();
      if (s && b.states[b.states.length - 1] !== s) b.states.push(s);
    }
    const err = document.querySelector("[data-testid=load-error]");
    if (err && b.errorText == null) b.errorText = err.textContent;
    if (b.readyAt == null && isReady()) b.readyAt = now;
    if (cancel) {
      const button = cancelButton();
      if (button) b.cancelSeen = true;
      const phase = p ? (/pars|analys/i.test(textOf(p)) ? "parsing" : "reading") : null;
      if (b.cancelAt == null && button && phase === cancel) {
        b.cancelAt = performance.now();
        button.click();
      } else if (b.cancelAt != null && b.idleAt == null && !p && !cancelButton()) {
        b.idleAt = now;
      }
    }
    // After Cancel, a message saying so is not a failure: wait for idle.
    const failed = b.errorText != null && b.cancelAt == null;
    const done = failed || (cancel ? b.idleAt != null || b.readyAt != null : b.readyAt != null || b.errorText != null);
    if (!done) requestAnimationFrame(frame);
    else mo.disconnect();
  };
  requestAnimationFrame(frame);
}

// Every run but the first visit's: no service worker, so its filling of the cache in the background
// does not run beside what is timed (a user opening a plan has long had it installed).
const APP_CONTEXT = { viewport: { width: 1400, height: 860 }, serviceWorkers: "block" };
const PHASES = { landing: "landing page", idle: "after ready", plan: "opening a sample", after: "after the diff" };

// The first visit: a fresh context (empty cache, no service worker installed yet) on a throttled
// network (the page's emulation covers its dedicated workers' fetches too), the site served
// gzip-compressed. `requests` is the server's log of this run (path → the phase it was first asked
// for in: before the landing page was ready, after, while opening a sample).
async function firstVisitRun(browser, base, requests) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  await context.addInitScript(initScript);
  const page = await context.newPage();
  watch(page, "first visit");
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", NETWORK);
    requests.phase = "landing";
    requests.seen.clear();
    await page.goto(base + "/", { waitUntil: "commit" });
    await page.waitForFunction(() => window.__benchLandingReady != null, null, { timeout: 60_000 });
    requests.phase = "idle";
    const landing = await page.evaluate(() => ({
      ready: window.__benchLandingReady,
      load: performance.getEntriesByType("navigation")[0]?.loadEventEnd || NaN,
    }));
    // What the page still fetches on its own once ready (a service worker filling its cache, say).
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(500);
    // Viewing a plan: a sample, its summary and list, one resource's diff.
    requests.phase = "plan";
    await page.locator("[data-testid^=sample-]").first().click();
    await page.getByTestId("plan-summary").waitFor({ timeout: 60_000 });
    await page.getByTestId("resource-row").first().click();
    await page.getByTestId("diff-panel").waitFor({ timeout: 60_000 });
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(300); // a worker's own imports, if any, come after its start
    requests.phase = "after";
    return { ...landing, workers: page.workers().length };
  } finally {
    await context.close();
  }
}

async function appRun(browser, base, planPath, n) {
  const context = await browser.newContext(APP_CONTEXT);
  await context.addInitScript(initScript);
  const page = await context.newPage();
  watch(page, "app");
  try {
    const tLoad = Date.now();
    await page.goto(base + "/", { waitUntil: "load" });
    const input = page.locator("input[data-testid=plan-file]");
    await input.waitFor({ state: "attached", timeout: 60_000 });
    const pageLoad = Date.now() - tLoad;
    await page.evaluate(installObservers, null);

    const t0 = Date.now();
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    const tSet = Date.now();
    await page.waitForFunction(() => window.__bench.readyAt != null || window.__bench.errorText != null, null, {
      polling: 100, timeout: READY_TIMEOUT,
    });
    const tReady = Date.now();

    // The app's own measure is taken after paint: poll briefly.
    let app = NaN;
    for (let i = 0; i < 100 && !Number.isFinite(app); i++) {
      app = await page.evaluate(() => {
        const m = performance.getEntriesByName("planlens:open", "measure")[0];
        return m ? m.duration : NaN;
      });
      if (!Number.isFinite(app)) await page.waitForTimeout(50);
    }
    const info = await page.evaluate(() => {
      const start = performance.getEntriesByName("planlens:open-start", "mark")[0];
      const rows = document.querySelectorAll("[data-testid=resource-row]").length;
      const mem = performance.memory;
      const b = window.__bench;
      return {
        ...b,
        readyInPage: start && b.readyAt != null ? b.readyAt - start.startTime : NaN,
        rows,
        jsHeap: mem ? mem.usedJSHeapSize : NaN,
      };
    });
    if (info.errorText) throw new Error(`app showed a load error: ${info.errorText}`);
    const memory = await wasmMemory(page);
    // Drift analysis and the built-in rule pack, as measured by the app; then one re-evaluation
    // (the environment label changed in the Rules tab, as a user would).
    const measured = (n) => page.evaluate((n) => performance.getEntriesByName(n, "measure").map((m) => m.duration), n);
    let rules = [];
    for (let i = 0; i < 100 && rules.length < 1; i++) {
      rules = await measured("planlens:rules");
      if (rules.length < 1) await page.waitForTimeout(50);
    }
    const [drift] = await measured("planlens:drift");
    // Long tasks from the file's change event until here (the plan interactive, its analyses done).
    const tasks = await page.evaluate(() => {
      const b = window.__bench;
      if (!b.longTasks) return null;
      return b.longTasks.filter((t) => t.start + t.duration >= b.changeAt).map((t) => t.duration);
    });
    await page.getByTestId("tab-rules").click();
    await page.getByTestId("rules-environment").fill("dev");
    for (let i = 0; i < 100 && rules.length < 2; i++) {
      rules = await measured("planlens:rules");
      if (rules.length < 2) await page.waitForTimeout(50);
    }
    // The browser's own floor in the same page and run: fetch the same file, JSON.parse it.
    const floor = await page.evaluate(async (url) => {
      const t = performance.now();
      const text = await (await fetch(url)).text();
      const t1 = performance.now();
      const j = JSON.parse(text);
      if (!j || typeof j !== "object") throw new Error("not a JSON object");
      return { total: performance.now() - t, text: t1 - t };
    }, `${base}/bench-data/plan-${n}.json`);
    const interactive = info.readyAt - info.changeAt;
    return {
      drift, rules: rules[0], rulesAgain: rules[1],
      app, interactive, floor: floor.total, floorText: floor.text, ratio: interactive / floor.total, wall: tReady - t0, setInputFiles: tSet - t0, pageLoad,
      readyInPage: info.readyInPage, rowsInDom: info.rows,
      progressAdded: info.progressAdded, progressPainted: info.progressPainted, states: info.states,
      longTasks: tasks, maxGap: info.maxGap,
      jsHeap: info.jsHeap, wasmMain: memory.main, wasmWorker: memory.worker, workers: memory.workers,
      wasmMemory: memory.total,
    };
  } finally {
    await context.close();
  }
}

// Cancel: opens the plan and presses Cancel at the first frame whose status says `phase` ("reading"
// or "parsing"); times the click → the first frame with neither progress nor Cancel button, then
// checks for two seconds that the plan did not open anyway.
async function cancelRun(browser, base, planPath, phase) {
  const context = await browser.newContext(APP_CONTEXT);
  const page = await context.newPage();
  watch(page, `cancel ${phase}`);
  try {
    await page.goto(base + "/", { waitUntil: "load" });
    await page.locator("input[data-testid=plan-file]").waitFor({ state: "attached", timeout: 60_000 });
    await page.evaluate(installObservers, phase);
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    await page.waitForFunction(
      () => window.__bench.idleAt != null || window.__bench.readyAt != null ||
        (window.__bench.errorText != null && window.__bench.cancelAt == null),
      null, { polling: 100, timeout: READY_TIMEOUT },
    );
    const b = await page.evaluate(() => window.__bench);
    if (b.cancelAt == null) {
      return {
        pressed: false, seen: b.cancelSeen, states: b.states,
        openedIn: b.readyAt != null ? b.readyAt - b.changeAt : NaN, error: b.errorText,
      };
    }
    await page.waitForTimeout(2000);
    const opened = await page.evaluate(() => document.querySelector("[data-testid=plan-summary]") != null);
    const error = await page.evaluate(() => {
      const e = document.querySelector("[data-testid=load-error]");
      return e ? e.textContent : null;
    });
    return {
      pressed: true, seen: true, states: b.states, afterStart: b.cancelAt - b.changeAt, idle: b.idleAt - b.cancelAt,
      maxGap: b.maxGap, opened, error,
    };
  } finally {
    await context.close();
  }
}

// The floor: what the browser itself needs to get the same bytes and parse them as JSON.
async function floorRun(browser, base, n, planPath) {
  const context = await browser.newContext({ serviceWorkers: "block" });
  const page = await context.newPage();
  watch(page, "floor");
  try {
    await page.goto(base + "/floor.html");
    const f = await page.evaluate(async (url) => {
      const t = performance.now();
      const r = await fetch(url);
      const text = await r.text();
      const t1 = performance.now();
      const j = JSON.parse(text);
      const d = performance.now() - t;
      if (!j || typeof j !== "object") throw new Error("not a JSON object");
      return { total: d, download: t1 - t, parse: performance.now() - t1 };
    }, `${base}/bench-data/plan-${n}.json`);
    // Same through a file input (what the app gets): change event → JSON.parse(await file.text()).
    await page.evaluate(() => {
      window.__floor = new Promise((ok) => {
        document.getElementById("f").addEventListener("change", async (e) => {
          const t = performance.now();
          const j = JSON.parse(await e.target.files[0].text());
          ok(j && performance.now() - t);
        }, { once: true });
      });
    });
    await page.setInputFiles("#f", planPath);
    const fileMs = await page.evaluate(() => window.__floor);
    return { fetch: f.total, download: f.download, parse: f.parse, file: fileMs };
  } finally {
    await context.close();
  }
}

// The Graph tab: opens the plan with the Graph tab showing, so the first frame of the graph is
// timed from the file's change event; then pans and zooms (synthetic wheel events, one per frame)
// and times frames, first in the default view, then with every module expanded and every resource
// shown.
async function graphRun(browser, base, planPath) {
  const context = await browser.newContext(APP_CONTEXT);
  const page = await context.newPage();
  watch(page, "graph");
  const measures = (name) =>
    page.evaluate((n) => performance.getEntriesByName(n, "measure").map((m) => m.duration), name);
  const until = async (name, count) => {
    for (let i = 0; i < 3600; i++) {
      const got = await measures(name);
      if (got.length >= count) return got;
      await page.waitForTimeout(50);
    }
    throw new Error(`no ${name} measure`);
  };
  const frames = () =>
    page.evaluate(async () => {
      const c = document.querySelector("[data-testid=graph-canvas]");
      const r = c.getBoundingClientRect();
      const gaps = [];
      await new Promise(requestAnimationFrame);
      let last = performance.now();
      for (let i = 0; i < 90; i++) {
        c.dispatchEvent(new WheelEvent("wheel", {
          deltaY: i % 30 < 15 ? -60 : 60, clientX: r.x + r.width * (0.3 + (i % 7) / 10), clientY: r.y + r.height / 2,
          bubbles: true, cancelable: true,
        }));
        await new Promise(requestAnimationFrame);
        const now = performance.now();
        gaps.push(now - last);
        last = now;
      }
      gaps.sort((a, b) => a - b);
      return { median: gaps[gaps.length >> 1], p95: gaps[Math.floor(gaps.length * 0.95)] };
    });
  try {
    await page.goto(base + "/#tab=graph", { waitUntil: "load" });
    await page.locator("input[data-testid=plan-file]").waitFor({ state: "attached", timeout: 60_000 });
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    const [firstFrame] = await until("planlens:graph", 1);
    const [build] = await until("planlens:graph-build", 1);
    const [layout] = await until("planlens:graph-layout", 1);
    const [open] = await until("planlens:open", 1);
    const boxes = await page.getByTestId("graph-counts").innerText();
    const defaultFrames = await frames();
    await page.getByTestId("graph-expand-all").click();
    await page.getByTestId("graph-full").check();
    const layouts = await until("planlens:graph-layout", 3);
    await page.getByTestId("graph-fit").click();
    const fullFrames = await frames();
    return {
      firstFrame, build, layout, open, shown: Number((boxes.match(/showing (\d+) nodes/) || [])[1]),
      fullLayout: layouts[layouts.length - 1], defaultFrames, fullFrames,
    };
  } finally {
    await context.close();
  }
}

// Rego policies: the plan opened, the TOML pack evaluated again alone (the environment set, so the
// session evaluates; "planlens:rules"), then the BRIEF's five guardrails in Rego added through the
// Rules tab: "planlens:policies" (session → engine → session, as the page waits for it) and the
// engine's own steps ("planlens:policy-compile", "-input", "-eval"). The engine's module is fetched
// in the first run of a context: each run is a fresh context, so every run loads it (its time is in
// "planlens:policies" but not in the engine's steps).
const POLICY_FILES = ["guardrails.rego", "lib.rego"].map((f) => join(ROOT, "tests", "fixtures", "policies", "conftest_v1", f));
async function policiesRun(browser, base, planPath) {
  const context = await browser.newContext(APP_CONTEXT);
  const page = await context.newPage();
  watch(page, "policies");
  const measure = async (name, count = 1) => {
    for (let i = 0; i < 2400; i++) {
      const got = await page.evaluate((n) => performance.getEntriesByName(n, "measure").map((m) => m.duration), name);
      if (got.length >= count) return got[got.length - 1];
      await page.waitForTimeout(50);
    }
    throw new Error(`no ${name} measure`);
  };
  try {
    await page.goto(base + "/", { waitUntil: "load" });
    await page.locator("input[data-testid=plan-file]").waitFor({ state: "attached", timeout: 60_000 });
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    await page.getByTestId("plan-summary").waitFor({ timeout: READY_TIMEOUT });
    await page.getByTestId("tab-rules").click();
    await page.getByTestId("rules-environment").fill("staging");
    const toml = await measure("planlens:rules");
    await page.getByTestId("policy-files").setInputFiles(POLICY_FILES);
    const total = await measure("planlens:policies");
    const status = await page.getByTestId("policy-status").innerText();
    if (!/evaluated in/.test(status)) throw new Error(`the policies were not evaluated: ${status}`);
    // The engine's WebAssembly memory: its part's glue, asked in each worker (only the engine's
    // worker has that part started; the others answer null).
    const partGlue = await page.evaluate(() =>
      (window.planlensPartUrls && window.planlensPartUrls.rego && window.planlensPartUrls.rego.glue) ||
      new URL("part-rego.js", document.baseURI).href);
    let engineMemory = NaN;
    for (const w of page.workers()) {
      try {
        const m = await w.evaluate(wasmMemoryHere, partGlue);
        if (Number.isFinite(m)) engineMemory = Number.isFinite(engineMemory) ? Math.max(engineMemory, m) : m;
      } catch {
        // A worker that closed meanwhile.
      }
    }
    return {
      toml, total, engineMemory,
      compile: await measure("planlens:policy-compile"),
      input: await measure("planlens:policy-input"),
      eval: await measure("planlens:policy-eval"),
    };
  } finally {
    await context.close();
  }
}

// Share links: the Share dialog makes the full and the redacted link of an opened plan
// ("planlens:share-full", "planlens:share-redacted"); each link is then opened in a fresh page
// ("planlens:link-decode": decompress and decode; "planlens:open": from the start of opening the
// link to the plan painted).
const SHARE_MAX = 10000;
async function shareRun(browser, base, planPath) {
  const context = await browser.newContext(APP_CONTEXT);
  const measure = async (page, name) => {
    for (let i = 0; i < 2400; i++) {
      const got = await page.evaluate((n) => performance.getEntriesByName(n, "measure").map((m) => m.duration), name);
      if (got.length) return got[got.length - 1];
      await page.waitForTimeout(50);
    }
    throw new Error(`no ${name} measure`);
  };
  try {
    const page = await context.newPage();
    watch(page, "share");
    await page.goto(base + "/", { waitUntil: "load" });
    await page.locator("input[data-testid=plan-file]").waitFor({ state: "attached", timeout: 60_000 });
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    await page.getByTestId("plan-summary").waitFor({ timeout: READY_TIMEOUT });
    await page.getByTestId("share").click();
    await page.getByTestId("share-full-link").waitFor({ timeout: READY_TIMEOUT });
    const out = {
      fullEncode: await measure(page, "planlens:share-full"),
      redactedEncode: await measure(page, "planlens:share-redacted"),
    };
    for (const kind of ["full", "redacted"]) {
      const link = await page.getByTestId(`share-${kind}-link`).inputValue();
      out[`${kind}Length`] = link.length;
      const other = await context.newPage();
      watch(other, `share ${kind}`);
      await other.goto(link, { waitUntil: "load" });
      await other.getByTestId("plan-summary").waitFor({ timeout: READY_TIMEOUT });
      out[`${kind}Decode`] = await measure(other, "planlens:link-decode");
      out[`${kind}Open`] = await measure(other, "planlens:open");
      await other.close();
    }
    return out;
  } finally {
    await context.close();
  }
}

// Native timings from an example (release build): graph_bench, rules_bench, share_bench.
function nativeGraph(paths, example = "graph_bench") {
  return new Promise((ok) => {
    const p = spawn("cargo", ["run", "--quiet", "--release", "--example", example, "--", ...paths], {
      cwd: ROOT, stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("error", (e) => ok(`native graph benchmark failed to start: ${e.message}`));
    p.on("exit", (code) => ok(code === 0 ? out.trimEnd() : `native graph benchmark exited with ${code}`));
  });
}

// ---------------------------------------------------------------------------------------------

// Tries a measurement; a failure is counted with the problems and the run left out.
async function attempt(label, fn) {
  try {
    return await fn();
  } catch (e) {
    log(`${label} failed: ${e.message}`);
    problems.set(`[bench] ${label}: ${e.message}`, (problems.get(`[bench] ${label}: ${e.message}`) || 0) + 1);
    return null;
  }
}

async function main() {
  const needPlans = [...PARTS].some((p) => p !== "first");
  if (needPlans && !existsSync(GEN)) {
    console.log(`bench: ${GEN} is not here (../shared/tools is absent), so there are no plans to time; ` +
      `only --parts first can run.`);
    if (!PARTS.has("first")) return;
    PARTS.clear();
    PARTS.add("first");
  }
  if (!existsSync(DIST) || !readdirSync(DIST).some((f) => f.endsWith(".wasm"))) {
    console.log(`bench: no ${DIST}/*.wasm; build the release site first (this script does not build). Skipping.`);
    return;
  }
  mkdirSync(DATA, { recursive: true });
  const plans = {};
  if ([...PARTS].every((p) => p === "first" || p === "set" || p === "compare")) SIZES.length = 0;
  for (const n of SIZES) plans[n] = await ensurePlan(n);
  // Cancel and "never frozen" are about the largest plan: 50k if asked for, else the largest size.
  const bigN = SIZES.includes(50000) ? 50000 : max(SIZES);

  const root = siteRoot();
  const wasmFiles = readdirSync(root).filter((f) => f.endsWith(".wasm"));
  const wasmBytes = Object.fromEntries(wasmFiles.map((f) => [f, readFileSync(join(root, f))]));
  const loadBefore = loadavg()[0];
  const server = await serve(root, { port: 0 });
  const base = `http://127.0.0.1:${server.address().port}`;
  // The first visit's server: gzip as GitHub Pages sends it; logs each path with the phase it was
  // first asked for in.
  const gzServer = await serve(root, { port: 0, gzip: true });
  const gzBase = `http://127.0.0.1:${gzServer.address().port}`;
  const requests = { phase: null, seen: new Map() };
  gzServer.on("request", (req) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (requests.phase && !requests.seen.has(path)) requests.seen.set(path, requests.phase);
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const version = browser.version();
  const results = [];
  const sets = [];
  const setsWithPolicies = [];
  const compares = [];
  const first = { runs: [], seen: null };
  const cancels = { reading: [], parsing: [] };
  try {
    if (PARTS.has("first")) {
      for (let i = 0; i < RUNS; i++) {
        const r = await attempt(`first visit run ${i + 1}`, () => firstVisitRun(browser, gzBase, requests));
        if (!r) continue;
        first.runs.push(r);
        first.seen = new Map(requests.seen);
        log(`first visit run ${i + 1}/${RUNS}: landing ready ${ms(r.ready)} ms, load event ${ms(r.load)} ms, ${requests.seen.size} requests`);
      }
    }
    for (const n of SIZES) {
      const bytes = statSync(plans[n]).size;
      const runs = [];
      for (let i = 0; PARTS.has("open") && i < RUNS; i++) {
        const r = await attempt(`${n}: app run ${i + 1}`, () => appRun(browser, base, plans[n], n));
        if (!r) continue;
        runs.push(r);
        log(`${n}: app run ${i + 1}/${RUNS}: interactive ${ms(r.interactive)} ms (open ${ms(r.app)} ms), ` +
          `fetch+parse ${ms(r.floor)} ms (text ${ms(r.floorText)}), ratio ${ratio(r.ratio)}, wasm ${mib(r.wasmMemory)} MiB, ` +
          `longest task ${r.longTasks ? ms(max(r.longTasks)) : "?"} ms, states ${JSON.stringify(r.states)}`);
      }
      const floors = [];
      for (let i = 0; PARTS.has("floor") && i < RUNS; i++) {
        const f = await attempt(`${n}: floor run ${i + 1}`, () => floorRun(browser, base, n, plans[n]));
        if (!f) continue;
        floors.push(f);
        log(`${n}: floor run ${i + 1}/${RUNS}: fetch+parse ${ms(f.fetch)} ms (text ${ms(f.download)} + parse ${ms(f.parse)}), file.text+parse ${ms(f.file)} ms`);
      }
      const graphs = [];
      for (let i = 0; PARTS.has("graph") && i < RUNS; i++) {
        const g = await attempt(`graph ${n} run ${i + 1}`, () => graphRun(browser, base, plans[n]));
        if (!g) continue;
        graphs.push(g);
        log(`${n}: graph run ${i + 1}/${RUNS}: first frame ${ms(g.firstFrame)} ms after the file, build ${ms(g.build)} + layout ${ms(g.layout)} ms, ` +
          `full layout ${ms(g.fullLayout)} ms, frames ${g.defaultFrames.median.toFixed(1)}/${g.fullFrames.median.toFixed(1)} ms`);
      }
      const shares = [];
      for (let i = 0; PARTS.has("share") && n <= SHARE_MAX && i < RUNS; i++) {
        const s = await attempt(`share ${n} run ${i + 1}`, () => shareRun(browser, base, plans[n]));
        if (!s) continue;
        shares.push(s);
        log(`${n}: share run ${i + 1}/${RUNS}: full ${ms(s.fullEncode)} ms → ${s.fullLength} chars, opened in ${ms(s.fullOpen)} ms; ` +
          `redacted ${ms(s.redactedEncode)} ms → ${s.redactedLength} chars, opened in ${ms(s.redactedOpen)} ms`);
      }
      const policies = [];
      for (let i = 0; PARTS.has("policies") && i < RUNS; i++) {
        const p = await attempt(`policies ${n} run ${i + 1}`, () => policiesRun(browser, base, plans[n]));
        if (!p) continue;
        policies.push(p);
        log(`${n}: policies run ${i + 1}/${RUNS}: TOML pack ${ms(p.toml)} ms; Rego ${ms(p.total)} ms in all ` +
          `(engine: compile ${ms(p.compile)}, input ${ms(p.input)}, evaluation ${ms(p.eval)} ms)`);
      }
      results.push({ n, bytes, runs, floors, graphs, shares, policies });
    }
    if (PARTS.has("compare")) {
      const plan = await ensurePlan(10000);
      const other = await ensureOther10k();
      for (let i = 0; i < RUNS; i++) {
        const t = await attempt(`compare run ${i + 1}`, () => compareRun(browser, base, plan, other));
        if (t == null) continue;
        compares.push(t);
        log(`compare 10k with 10k: run ${i + 1}: ${ms(t)} ms`);
      }
    }
    if (PARTS.has("set")) {
      const paths = await ensureSet();
      for (let i = 0; i < RUNS; i++) {
        const r = await attempt(`set run ${i + 1}`, () => setRun(browser, base, paths));
        if (!r) continue;
        sets.push(r);
        log(`set of ${SET_PLANS} × ${SET_RESOURCES}: run ${i + 1}: roll-up on screen after ${ms(r.ready)} ms; ` +
          `longest task ${ms(max(r.longTasks || []))} ms; states ${JSON.stringify(r.states.slice(0, 4))}…`);
      }
      const policies = POLICY_FILES.map((f) => ({ name: basename(f), text: readFileSync(f, "utf8") }));
      for (let i = 0; i < Math.min(RUNS, 3); i++) {
        const r = await attempt(`set with policies run ${i + 1}`, () => setRun(browser, base, paths, policies));
        if (!r) continue;
        setsWithPolicies.push(r);
        log(`set of ${SET_PLANS} × ${SET_RESOURCES} with the Rego guardrails: run ${i + 1}: roll-up on screen after ${ms(r.ready)} ms; ` +
          `longest task ${ms(max(r.longTasks || []))} ms`);
      }
    }
    if (PARTS.has("cancel") && Number.isFinite(bigN)) {
      for (const phase of ["reading", "parsing"]) {
        for (let i = 0; i < Math.min(RUNS, 3); i++) {
          const c = await attempt(`cancel ${phase} run ${i + 1}`, () => cancelRun(browser, base, plans[bigN], phase));
          if (!c) continue;
          cancels[phase].push(c);
          log(`${bigN}: cancel while ${phase} run ${i + 1}: ` + (c.pressed
            ? `pressed ${ms(c.afterStart)} ms after the change event, idle ${ms(c.idle)} ms later, plan opened anyway: ${c.opened}`
            : `not pressed (Cancel button seen: ${c.seen}; states ${JSON.stringify(c.states)})`));
          if (!c.pressed) break; // no button, or no such phase: another run says the same
        }
      }
    }
  } finally {
    await browser.close();
    server.close();
    gzServer.close();
    rmSync(root, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0];

  // -------------------------------------------------------------------------------------------
  // Report
  const pick = (rs, k) => rs.map((r) => r[k]);
  const figures = [];
  console.log(`\nPlanlens benchmark — parts ${[...PARTS].join(", ")}; ${RUNS} cold run(s) each, a fresh browser context per run`);
  console.log(`Chromium ${version}; ${cpus().length} cores; build ${DIST}: ${wasmFiles.join(", ")}; times in ms; medians unless noted`);
  console.log(`load average (1 min) at start ${loadBefore.toFixed(2)}, at end ${loadAfter.toFixed(2)}` +
    (loadBefore > 1.0 ? "  ← the machine was already busy (a build?): figures are suspect" : "") +
    " (the benchmark itself raises the end figure)");

  if (PARTS.has("first")) {
    console.log("\nFirst visit: .js and .wasm fetched (each path once; gzip level 6 as served, level 9 for comparison)\n");
    const files = [...(first.seen || new Map())]
      .filter(([path]) => /\.(m?js|wasm)$/.test(path) && existsSync(join(DIST, path)))
      .map(([path, phase]) => {
        const raw = readFileSync(join(DIST, path));
        return { path, phase, raw: raw.length, gz6: gzipSync(raw, { level: GZIP_LEVEL }).length, gz9: gzipSync(raw, { level: 9 }).length };
      });
    const missing = [...(first.seen || new Map()).keys()].filter((p) => /\.(m?js|wasm)$/.test(p) && !existsSync(join(DIST, p)));
    console.log(table(["file", "fetched for", "raw KiB", "gzip -6 KiB", "gzip -9 KiB"],
      files.map((f) => [f.path, PHASES[f.phase] || f.phase, kib(f.raw), kib(f.gz6), kib(f.gz9)])));
    if (missing.length) console.log(`  (asked for but not in the build: ${missing.join(", ")})`);
    const others = [...(first.seen || new Map())].filter(([p]) => !/\.(m?js|wasm)$/.test(p)).map(([p]) => p);
    console.log(`  other requests: ${others.join(", ") || "none"}`);
    const sum = (phase) => files.filter((f) => !phase || f.phase === phase).reduce((s, f) => s + f.gz6, 0);
    const landingBytes = sum("landing");
    const idleBytes = sum("idle");
    const planBytes = files.filter((f) => f.phase !== "landing" && f.phase !== "idle").reduce((s, f) => s + f.gz6, 0);
    const ready = pick(first.runs, "ready");
    console.log(`\n  landing page ready (first frame with a sample button visible, from navigation start) at 10 Mbit/s, ` +
      `40 ms RTT, cache disabled:\n  median ${ms(median(ready))} ms, min ${ms(min(ready))}, max ${ms(max(ready))} over ` +
      `${ready.length} run(s); load event ${ms(median(pick(first.runs, "load")))} ms; workers started ${max(pick(first.runs, "workers"))}`);
    if (first.seen) {
      const total = landingBytes + idleBytes + planBytes;
      figures.push(figure("first visit wasm + JS, gzip",
        `${kib(landingBytes)} KiB landing page` + (idleBytes ? ` + ${kib(idleBytes)} KiB fetched after it was ready` : "") +
        ` + ${kib(planBytes)} KiB opening a sample = ${kib(total)} KiB`,
        `≤ ${TARGET_FIRST_VISIT_KIB} KiB`, total <= TARGET_FIRST_VISIT_KIB * 1024));
    } else figures.push(figure("first visit wasm + JS, gzip", "not measured (every run failed)"));
    const r = median(ready);
    figures.push(Number.isFinite(r)
      ? figure("landing page ready at 10 Mbit/s, 40 ms RTT", `${ms(r)} ms`, `≤ ${TARGET_LANDING_MS} ms`, r <= TARGET_LANDING_MS)
      : figure("landing page ready at 10 Mbit/s, 40 ms RTT", "not measured"));
  }

  const withRuns = results.filter((r) => r.runs.length);
  if (withRuns.length) {
    console.log("\nOpening a plan from a file (medians)\n");
    console.log(table(
      ["resources", "MiB", "ok", "interactive", "min", "open", "fetch+parse", "ratio", "wall", "setFiles", "ready", "progress"],
      withRuns.map(({ n, bytes, runs }) => [
        n, mib(bytes), `${runs.length}/${RUNS}`, ms(median(pick(runs, "interactive"))), ms(min(pick(runs, "interactive"))),
        ms(median(pick(runs, "app"))), ms(median(pick(runs, "floor"))), ratio(median(pick(runs, "ratio"))),
        ms(median(pick(runs, "wall"))), ms(median(pick(runs, "setInputFiles"))), ms(median(pick(runs, "readyInPage"))),
        `${runs.filter((r) => r.progressPainted).length}/${runs.length}`,
      ]),
    ));
    console.log(`
  interactive = in page: the file input's change event → the first frame with the summary, a resource row and
                the verdict in the DOM (primary)
  open        = the app's performance.measure("planlens:open"): its start mark → plan rendered and painted
  fetch+parse = the same page, after the open: fetch(the same file) + r.text() + JSON.parse; ratio = interactive
                ÷ fetch+parse, per run, then the median
  wall        = Node, just before page.setInputFiles → interactive seen (includes setFiles, polls every 100 ms)
  setFiles    = page.setInputFiles alone (Playwright handing the file to the page)
  ready       = the app's open-start mark → interactive
  progress    = runs in which [data-testid=load-progress] was on screen at a frame (painted)`);

    console.log("\nMemory after opening (medians)\n");
    console.log(table(["resources", "file MiB", "wasm page MiB", "wasm workers MiB", "wasm total MiB", "÷ file", "JS heap MiB", "rows in DOM", "page load ms"],
      withRuns.map(({ n, bytes, runs }) => {
        const workers = max(pick(runs, "workers"));
        return [n, mib(bytes), mib(median(pick(runs, "wasmMain"))),
          workers > 0 ? `${mib(median(pick(runs, "wasmWorker")))} (${workers})` : "no worker",
          mib(median(pick(runs, "wasmMemory"))), ratio(median(pick(runs, "wasmMemory")) / bytes),
          mib(median(pick(runs, "jsHeap"))), median(pick(runs, "rowsInDom")), ms(median(pick(runs, "pageLoad")))];
      })));
    console.log(`
  wasm page / workers = WebAssembly.Memory of the page and of each dedicated worker (the glue's instance there)`);

    console.log("\nThe main thread while a plan opens (change event → interactive and analysed)\n");
    console.log(table(["resources", "long tasks", "longest med", "longest max", "longest frame gap", "reading shown", "parsing shown"],
      withRuns.map(({ n, runs }) => {
        const lt = runs.filter((r) => r.longTasks);
        const shown = (re) => `${runs.filter((r) => r.states.some((s) => re.test(s))).length}/${runs.length}`;
        return [n, lt.length ? median(lt.map((r) => r.longTasks.length)) : "unsupported",
          lt.length ? ms(median(lt.map((r) => max(r.longTasks) || 0))) : "—", lt.length ? ms(max(lt.map((r) => max(r.longTasks) || 0))) : "—",
          ms(median(pick(runs, "maxGap"))), shown(/read|load/i), shown(/pars|analys/i)];
      })));
    for (const { n, runs } of withRuns) {
      const states = [];
      for (const r of runs) for (const s of r.states) if (!states.includes(s)) states.push(s);
      console.log(`  ${n}: status texts seen at frames (digits as #): ${states.length ? states.map((s) => JSON.stringify(s)).join(", ") : "none"}`);
    }
    console.log(`
  long tasks   = PerformanceObserver "longtask" entries (main-thread tasks over 50 ms), count per run (median)
  frame gap    = the longest time between two animation frames from the change event to interactive`);

    const ruleRows = withRuns.map(({ n, runs }) =>
      [n, ms(median(pick(runs, "drift"))), ms(median(pick(runs, "rules"))), ms(median(pick(runs, "rulesAgain")))]);
    console.log("\nDrift and guardrail rules in the browser (medians)\n");
    console.log(table(["resources", "drift", "built-in pack", "again (label changed)"], ruleRows));
    console.log(`
  drift         = drift analysis of the opened plan ("planlens:drift"), part of open
  built-in pack = rules input built and the 7 built-in rules evaluated ("planlens:rules"), part of open
  again         = the same after typing environment=dev in the Rules tab`);
  }

  const withFloors = results.filter((r) => r.floors.length);
  if (withFloors.length) {
    console.log("\nThe browser's floor in a fresh page (medians)\n");
    console.log(table(["resources", "fetch+parse", "f:text", "f:parse", "file.text+parse"], withFloors.map(({ n, floors }) => [
      n, ms(median(pick(floors, "fetch"))), ms(median(pick(floors, "download"))), ms(median(pick(floors, "parse"))),
      ms(median(pick(floors, "file")))])));
    console.log(`
  fetch+parse     = fresh page, same origin: fetch + r.text() + JSON.parse (f:text, f:parse = its two parts)
  file.text+parse = fresh page: file input change → JSON.parse(await file.text())`);
  }

  if (PARTS.has("compare")) {
    const name = "the 10k plan compared with another 10k plan in the page (planlens:compare)";
    if (!compares.length) figures.push(figure(name, "not measured (every run failed)"));
    else {
      const t = median(compares);
      figures.push(figure(name, `${ms(t)} ms (min ${ms(min(compares))}, max ${ms(max(compares))})`, `≤ ${TARGET_COMPARE_MS} ms`, t <= TARGET_COMPARE_MS));
      const longest = compareLongest.filter((x) => !Number.isNaN(x));
      const lname = "its longest main-thread task, the file chosen → the paragraph (longtask)";
      if (!longest.length) figures.push(figure(lname, "not measured (no longtask entries supported)"));
      else figures.push(figure(lname, `${ms(max(longest))} ms (worst of ${longest.length} runs)`, "≤ 50 ms", max(longest) <= 50));
    }
  }
  if (PARTS.has("set")) {
    const name = `${SET_PLANS} plans of ${SET_RESOURCES.toLocaleString("en")} resources chosen together → the roll-up on screen`;
    if (!sets.length) figures.push(figure(name, "not measured (every run failed)"));
    else {
      const t = median(pick(sets, "ready"));
      const cores = sets[0].cores;
      figures.push(figure(name, `${ms(t)} ms (min ${ms(min(pick(sets, "ready")))}, max ${ms(max(pick(sets, "ready")))}; ` +
        `${Math.min(cores, SET_PLANS)} worker(s): the browser reports ${cores} cores)`, `≤ ${TARGET_SET_MS} ms`, t <= TARGET_SET_MS));
      const lt = sets.filter((r) => r.longTasks);
      if (lt.length) {
        const worst = max(lt.map((r) => max(r.longTasks) || 0));
        figures.push(figure("the set: longest main-thread task begun after the files were chosen", `${ms(worst)} ms worst of ${lt.length} run(s)`,
          `≤ ${TARGET_LONG_TASK_MS} ms`, worst <= TARGET_LONG_TASK_MS));
      }
      const counted = sets.every((r) => r.states.some((s) => /Reading the plans: #?\d+ of \d+/.test(s)));
      figures.push(figure("the set: progress counts the plans read", counted ? "yes, in every run" : "no", "yes", counted));
    }
    if (setsWithPolicies.length) {
      const t = median(pick(setsWithPolicies, "ready"));
      figures.push(figure("the same set judged by the Rego guardrails too (no target: information)",
        `${ms(t)} ms (min ${ms(min(pick(setsWithPolicies, "ready")))}, max ${ms(max(pick(setsWithPolicies, "ready")))})`));
    }
  }
  if (PARTS.has("cancel") && Number.isFinite(bigN)) {
    console.log(`\nCancel while the ${bigN} plan opens\n`);
    const rows = [];
    for (const phase of ["reading", "parsing"]) {
      const cs = cancels[phase];
      const pressed = cs.filter((c) => c.pressed);
      if (pressed.length) {
        rows.push([phase, `${pressed.length}/${cs.length}`, ms(median(pick(pressed, "afterStart"))), ms(median(pick(pressed, "idle"))),
          ms(max(pick(pressed, "idle"))), `${pressed.filter((c) => c.opened).length}/${pressed.length}`,
          `${pressed.filter((c) => c.error).length}/${pressed.length}`]);
      } else {
        const why = !cs.length ? "every run failed" : cs.some((c) => c.seen) ? `no ${phase} state with a Cancel button`
          : "no Cancel button";
        rows.push([phase, why, "—", "—", "—", "—", "—"]);
      }
    }
    console.log(table(["while", "pressed", "at (after change)", "idle after", "idle max", "opened anyway", "error shown"], rows));
    console.log(`
  idle after = the click → the first frame with no progress and no Cancel button; "opened anyway" checks for 2 s`);
  }

  const graphRows = results.filter((r) => r.graphs && r.graphs.length).map(({ n, graphs }) => {
    const f = (k) => ms(median(pick(graphs, k)));
    const frame = (k, q) => median(graphs.map((g) => g[k][q])).toFixed(1);
    return [n, `${graphs.length}/${RUNS}`, f("open"), f("firstFrame"), f("build"), f("layout"), median(pick(graphs, "shown")),
      f("fullLayout"), frame("defaultFrames", "median"), frame("defaultFrames", "p95"), frame("fullFrames", "median"), frame("fullFrames", "p95")];
  });
  if (graphRows.length) {
    console.log("\nGraph tab in the browser (medians; opened with the Graph tab showing)\n");
    console.log(table(["resources", "ok", "open", "1st frame", "build", "layout", "boxes", "full layout", "frame med", "frame p95", "full frame med", "full frame p95"], graphRows));
    console.log(`
  1st frame   = open-start mark (file change event) → first graph frame drawn ("planlens:graph")
  build       = dependency graph built from the parsed plan ("planlens:graph-build")
  layout      = default view folded and laid out ("planlens:graph-layout"), boxes = nodes it shows
  full layout = every module expanded and every resource shown
  frame       = time between animation frames while zooming with the wheel (one event per frame), default
                view / full view fitted to the screen; ≈16.7 ms means display rate`);
  }
  const shareRows = results.filter((r) => r.shares && r.shares.length).flatMap(({ n, shares }) =>
    ["full", "redacted"].map((kind) => [
      n, kind, ms(median(pick(shares, `${kind}Encode`))), median(pick(shares, `${kind}Length`)),
      median(pick(shares, `${kind}Length`)) <= 65536 ? "yes" : "no", median(pick(shares, `${kind}Length`)) <= 2 * 1024 * 1024 ? "yes" : "no",
      ms(median(pick(shares, `${kind}Decode`))), ms(median(pick(shares, `${kind}Open`))),
    ]));
  if (shareRows.length) {
    console.log(`\nShare links in the browser (medians; sizes up to ${SHARE_MAX})\n`);
    console.log(table(["resources", "link", "make", "characters", "PR comment", "Chrome", "decode", "open"], shareRows));
    console.log(`
  make      = the Share dialog making the link ("planlens:share-full" / "planlens:share-redacted"):
              full = strip sensitive values + compress + encode; redacted = graph + findings + compress
  decode    = a fresh page decompressing the link's plan ("planlens:link-decode")
  open      = that page opening it: decode, parse, index, drift, rules, painted ("planlens:open")`);
  }
  if (PARTS.has("native")) {
    const existingPlans = SIZES.map((n) => join(DATA, `plan-${n}.json`)).filter((p) => existsSync(p));
    console.log("\nGraph, native (cargo run --release --example graph_bench)\n");
    console.log(await nativeGraph(existingPlans));
    console.log("\nDrift and rules, native (cargo run --release --example rules_bench)\n");
    console.log(await nativeGraph(existingPlans, "rules_bench"));
    console.log("\nShare links, native (cargo run --release --example share_bench)\n");
    console.log(await nativeGraph(existingPlans.filter((p) => !p.endsWith("-50000.json")), "share_bench"));
  }

  console.log("\nWebAssembly size\n");
  console.log(table(["file", "raw KiB", "gzip -6 KiB", "gzip -9 KiB", "brotli KiB"], wasmFiles.map((f) => {
    const buf = wasmBytes[f];
    const gz = gzipSync(buf, { level: 9 }).length;
    const br = brotliCompressSync(buf, { params: { [zc.BROTLI_PARAM_QUALITY]: 11 } }).length;
    return [f, kib(buf.length), kib(gzipSync(buf, { level: GZIP_LEVEL }).length), kib(gz), kib(br)];
  })));

  // -------------------------------------------------------------------------------------------
  // The figures, each next to its target.
  const find = (n) => results.find((r) => r.n === n && r.runs.length);
  if (PARTS.has("open")) {
    for (const [n, target] of [[10000, TARGET_10K_MS], [50000, TARGET_50K_MS]]) {
      const r = find(n);
      const name = `${n / 1000}k plan, file chosen → interactive`;
      if (!r) { figures.push(figure(name, SIZES.includes(n) ? "not measured (every run failed)" : `${n} not in --sizes`)); continue; }
      const t = median(pick(r.runs, "interactive"));
      figures.push(figure(name, `${ms(t)} ms (the app's planlens:open ${ms(median(pick(r.runs, "app")))} ms)`, `≤ ${target} ms`, t <= target));
      if (n === 10000) {
        const q = median(pick(r.runs, "ratio"));
        figures.push(figure("10k plan ÷ fetch + JSON.parse in the same page", `${ratio(q)} (fetch + JSON.parse ${ms(median(pick(r.runs, "floor")))} ms)`,
          `≤ ${TARGET_10K_RATIO}×`, q <= TARGET_10K_RATIO));
      }
    }
    for (const n of [10000, 50000]) {
      const r = find(n);
      if (!r) continue;
      const total = median(pick(r.runs, "wasmMemory"));
      const workers = max(pick(r.runs, "workers"));
      const parts = `page ${mib(median(pick(r.runs, "wasmMain")))} MiB + ` +
        (workers > 0 ? `worker ${mib(median(pick(r.runs, "wasmWorker")))} MiB` : "no worker");
      figures.push(figure(`${n / 1000}k plan, WebAssembly memory ÷ file size`,
        `${ratio(total / r.bytes)} (${parts} = ${mib(total)} MiB; file ${mib(r.bytes)} MiB)`, `≤ ${TARGET_MEMORY_RATIO}×`,
        total / r.bytes <= TARGET_MEMORY_RATIO));
    }
    const big = find(bigN);
    if (big) {
      const lt = big.runs.filter((r) => r.longTasks);
      const name = `${bigN / 1000}k plan, longest main-thread task while it opens`;
      if (!lt.length) figures.push(figure(name, "not measured (no longtask entries supported)"));
      else {
        const worst = max(lt.map((r) => max(r.longTasks) || 0));
        figures.push(figure(name, `${ms(worst)} ms worst of ${lt.length} run(s), median ${ms(median(lt.map((r) => max(r.longTasks) || 0)))} ms; ` +
          `${median(lt.map((r) => r.longTasks.length))} long task(s) per run`, `≤ ${TARGET_LONG_TASK_MS} ms`, worst <= TARGET_LONG_TASK_MS));
      }
      const every = (re) => big.runs.every((r) => r.states.some((s) => re.test(s)));
      const reading = every(/read|load/i);
      const parsing = every(/pars|analys/i);
      figures.push(figure(`${bigN / 1000}k plan, progress shown while reading and while parsing`,
        `reading ${reading ? "yes" : "no"}, parsing ${parsing ? "yes" : "no"} (in every run)`, "both", reading && parsing));
    }
  }
  if (PARTS.has("policies")) {
    for (const r of results) {
      const name = `${r.n / 1000}k plan, the five guardrails in Rego (input + evaluation in the engine)`;
      if (!r.policies || !r.policies.length) { figures.push(figure(name, "not measured (every run failed)")); continue; }
      const both = median(r.policies.map((p) => p.input + p.eval));
      const value = `${ms(both)} ms (input ${ms(median(pick(r.policies, "input")))} + evaluation ${ms(median(pick(r.policies, "eval")))}; ` +
        `compile ${ms(median(pick(r.policies, "compile")))}; the page waited ${ms(median(pick(r.policies, "total")))} ms in all, ` +
        `engine's module fetched each run; TOML pack alone ${ms(median(pick(r.policies, "toml")))} ms)`;
      figures.push(r.n === 10000
        ? figure(name, value, `≤ ${TARGET_10K_POLICIES_MS} ms`, both <= TARGET_10K_POLICIES_MS)
        : figure(name, value));
      const memories = r.policies.map((p) => p.engineMemory).filter(Number.isFinite);
      const memName = `${r.n / 1000}k plan, the Rego engine's WebAssembly memory ÷ file size`;
      if (!memories.length) figures.push(figure(memName, "not measured (no worker had the engine's memory)"));
      else {
        const ratio = median(memories) / r.bytes;
        figures.push(figure(memName, `${ratio.toFixed(2)}× (${(median(memories) / 1048576).toFixed(1)} MiB, the engine's worker alone)`,
          `≤ ${TARGET_POLICY_MEMORY_RATIO}×`, ratio <= TARGET_POLICY_MEMORY_RATIO));
      }
    }
  }
  if (PARTS.has("cancel") && Number.isFinite(bigN)) {
    for (const phase of ["reading", "parsing"]) {
      const cs = cancels[phase];
      const pressed = cs.filter((c) => c.pressed);
      const name = `${bigN / 1000}k plan, Cancel while ${phase}`;
      if (!pressed.length) {
        figures.push(figure(name, !cs.length ? "not measured (every run failed)" : cs.some((c) => c.seen)
          ? `no ${phase} state showed a Cancel button` : "no Cancel button"));
        continue;
      }
      const works = pressed.every((c) => !c.opened && Number.isFinite(c.idle));
      figures.push(figure(name, `idle ${ms(median(pick(pressed, "idle")))} ms after the click (max ${ms(max(pick(pressed, "idle")))}), ` +
        `plan opened anyway in ${pressed.filter((c) => c.opened).length}/${pressed.length}`, "idle, the plan not opened", works));
    }
  }
  const r10 = find(10000);
  if (r10) {
    const r = median(pick(r10.runs, "rules"));
    figures.push(figure("10k rule evaluation (built-in pack)", `${ms(r)} ms`, `≤ ${TARGET_10K_RULES_MS} ms`, r <= TARGET_10K_RULES_MS));
  }
  const g10 = results.find((r) => r.n === 10000 && r.graphs.length);
  if (g10) {
    const g = median(g10.graphs.map((x) => x.build + x.layout));
    figures.push(figure("10k graph build + default layout", `${ms(g)} ms`, `≤ ${TARGET_10K_GRAPH_MS} ms`, g <= TARGET_10K_GRAPH_MS));
    const f = median(g10.graphs.map((x) => x.defaultFrames.p95));
    figures.push(figure("10k pan/zoom p95 frame", `${f.toFixed(1)} ms`, "≤ 20 ms", f <= 20));
  }
  console.log("\nFigures (issue 14; rules: issue 4; graph: issue 3)\n");
  for (const f of figures) console.log(`  ${f}`);

  if (problems.size) {
    console.log("\nPage console errors/warnings and failures (count × message)\n");
    for (const [k, c] of problems) console.log(`  ${c} × ${k}`);
  } else {
    console.log("\nNo console errors, warnings or page errors.");
  }
}

try {
  await main();
} catch (e) {
  console.log(`bench: failed: ${e && e.stack ? e.stack : e}`);
}
process.exit(0);
