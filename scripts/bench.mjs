// Benchmark: how long Planlens takes to open generated plans, cold, in headless Chromium.
//   node scripts/bench.mjs [--sizes 1000,10000,50000] [--runs 5]
// Needs the release build in dist/ (this script never builds) and ../shared/tools/gen_plan.py.
// Plans are written to bench-data/plan-N.json (gitignored) and reused when present.
// A benchmark, not a test: it prints a table and always exits 0.
import { chromium } from "@playwright/test";
import { spawn } from "node:child_process";
import {
  cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync,
  rmSync, statSync, symlinkSync, unlinkSync, writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zc, gzipSync } from "node:zlib";
import { serve } from "../tests/e2e/serve.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const DATA = join(ROOT, "bench-data");
const GEN = resolve(ROOT, "../shared/tools/gen_plan.py");
const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--enable-precise-memory-info",
];
const READY_TIMEOUT = 180_000;

// Targets from BRIEF.md "What fast means".
const TARGET_10K_MS = 500;
const TARGET_10K_RATIO = 2.5;
const TARGET_50K_MS = 2500;
// Issue 3: graph build + layout of the default view of the 10k plan.
const TARGET_10K_GRAPH_MS = 300;
const TARGET_10K_RULES_MS = 50; // issue 4: built-in pack on 10k resources, in the browser

// ---------------------------------------------------------------------------------------------
// Arguments

function option(name, fallback) {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name && i + 1 < args.length) return args[i + 1];
    if (args[i].startsWith(name + "=")) return args[i].slice(name.length + 1);
  }
  return fallback;
}
const SIZES = option("--sizes", "1000,10000,50000").split(",").map((s) => Number(s.trim())).filter((n) => n > 0);
const RUNS = Math.max(1, Number(option("--runs", "5")) || 5);

// ---------------------------------------------------------------------------------------------
// Small helpers

const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const min = (xs) => { const v = xs.filter(Number.isFinite); return v.length ? Math.min(...v) : NaN; };
const ms = (x) => (Number.isFinite(x) ? Math.round(x).toString() : "—");
const mib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1048576).toFixed(1) : "—");
const kib = (bytes) => (bytes / 1024).toFixed(1);
const log = (...a) => console.error(...a); // progress on stderr, results on stdout

function table(header, rows) {
  const all = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(all[0]), widths.map((w) => "-".repeat(w)).join("  "), ...all.slice(1).map(line)].join("\n");
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

// Runs in the page before any of its scripts: keeps a handle on the wasm exports (for memory).
function initScript() {
  addEventListener("TrunkApplicationStarted", (e) => { window.__benchWasm = e.detail && e.detail.wasm; });
}

// Installed just before setInputFiles: records when the plan is on screen and whether the
// progress element was ever added (MutationObserver) or present at a frame (i.e. painted).
function installObservers() {
  const b = (window.__bench = { progressAdded: false, progressPainted: false, readyAt: null, errorText: null });
  const isReady = () =>
    document.querySelector("[data-testid=plan-summary]") && document.querySelector("[data-testid=resource-row]");
  const check = () => {
    if (!b.progressAdded && document.querySelector("[data-testid=load-progress]")) b.progressAdded = true;
    const err = document.querySelector("[data-testid=load-error]");
    if (err && b.errorText == null) b.errorText = err.textContent;
    if (b.readyAt == null && isReady()) b.readyAt = performance.now();
  };
  const mo = new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches("[data-testid=load-progress]") || n.querySelector("[data-testid=load-progress]")) {
          b.progressAdded = true;
        }
      }
    }
    check();
    if (b.readyAt != null || b.errorText != null) mo.disconnect();
  });
  mo.observe(document.body, { childList: true, subtree: true });
  const frame = () => {
    if (document.querySelector("[data-testid=load-progress]")) b.progressPainted = true;
    if (b.readyAt == null && b.errorText == null) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

async function appRun(browser, base, planPath) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  await context.addInitScript(initScript);
  const page = await context.newPage();
  watch(page, "app");
  try {
    const tLoad = Date.now();
    await page.goto(base + "/", { waitUntil: "load" });
    const input = page.locator("input[data-testid=plan-file]");
    await input.waitFor({ state: "attached", timeout: 60_000 });
    const pageLoad = Date.now() - tLoad;
    await page.evaluate(installObservers);

    const t0 = Date.now();
    await page.setInputFiles("input[data-testid=plan-file]", planPath);
    const tSet = Date.now();
    await page.waitForFunction(
      () =>
        (document.querySelector("[data-testid=plan-summary]") && document.querySelector("[data-testid=resource-row]")) ||
        document.querySelector("[data-testid=load-error]"),
      null,
      { polling: "raf", timeout: READY_TIMEOUT },
    );
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
      const w = window.__benchWasm;
      return {
        ...window.__bench,
        readyInPage: start && window.__bench.readyAt != null ? window.__bench.readyAt - start.startTime : NaN,
        rows,
        jsHeap: mem ? mem.usedJSHeapSize : NaN,
        wasmMemory: w && w.memory ? w.memory.buffer.byteLength : NaN,
      };
    });
    if (info.errorText) throw new Error(`app showed a load error: ${info.errorText}`);
    // Drift analysis and the built-in rule pack, as measured by the app; then one re-evaluation
    // (the environment label changed in the Rules tab, as a user would).
    const measured = (n) => page.evaluate((n) => performance.getEntriesByName(n, "measure").map((m) => m.duration), n);
    let rules = [];
    for (let i = 0; i < 100 && rules.length < 1; i++) {
      rules = await measured("planlens:rules");
      if (rules.length < 1) await page.waitForTimeout(50);
    }
    const [drift] = await measured("planlens:drift");
    await page.getByTestId("tab-rules").click();
    await page.getByTestId("rules-environment").fill("dev");
    for (let i = 0; i < 100 && rules.length < 2; i++) {
      rules = await measured("planlens:rules");
      if (rules.length < 2) await page.waitForTimeout(50);
    }
    return {
      drift, rules: rules[0], rulesAgain: rules[1],
      app, wall: tReady - t0, setInputFiles: tSet - t0, pageLoad,
      readyInPage: info.readyInPage, rowsInDom: info.rows,
      progressAdded: info.progressAdded, progressPainted: info.progressPainted,
      jsHeap: info.jsHeap, wasmMemory: info.wasmMemory,
    };
  } finally {
    await context.close();
  }
}

// The floor: what the browser itself needs to get the same bytes and parse them as JSON.
async function floorRun(browser, base, n, planPath) {
  const context = await browser.newContext();
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
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
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

// Share links: the Share dialog makes the full and the redacted link of an opened plan
// ("planlens:share-full", "planlens:share-redacted"); each link is then opened in a fresh page
// ("planlens:link-decode": decompress and decode; "planlens:open": from the start of opening the
// link to the plan painted).
const SHARE_MAX = 10000;
async function shareRun(browser, base, planPath) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
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

async function main() {
  if (!existsSync(GEN)) {
    console.log(`bench: ${GEN} is not here (../shared/tools is absent), so there are no plans to time. Skipping.`);
    return;
  }
  if (!existsSync(DIST) || !readdirSync(DIST).some((f) => f.endsWith(".wasm"))) {
    console.log("bench: no dist/*.wasm; build the release site first (this script does not build). Skipping.");
    return;
  }
  mkdirSync(DATA, { recursive: true });
  const plans = {};
  for (const n of SIZES) plans[n] = await ensurePlan(n);

  const root = siteRoot();
  const wasmFiles = readdirSync(root).filter((f) => f.endsWith(".wasm"));
  const wasmBytes = Object.fromEntries(wasmFiles.map((f) => [f, readFileSync(join(root, f))]));
  const loadBefore = loadavg()[0];
  const server = await serve(root, { port: 0 });
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const version = browser.version();
  const results = [];
  try {
    for (const n of SIZES) {
      const bytes = statSync(plans[n]).size;
      const runs = [];
      for (let i = 0; i < RUNS; i++) {
        try {
          const r = await appRun(browser, base, plans[n]);
          runs.push(r);
          log(`${n}: app run ${i + 1}/${RUNS}: open ${ms(r.app)} ms, wall ${ms(r.wall)} ms ` +
            `(setInputFiles ${ms(r.setInputFiles)} ms), progress ${r.progressPainted ? "painted" : r.progressAdded ? "added, not painted" : "no"}`);
        } catch (e) {
          log(`${n}: app run ${i + 1}/${RUNS} failed: ${e.message}`);
          problems.set(`[bench] ${n}: ${e.message}`, (problems.get(`[bench] ${n}: ${e.message}`) || 0) + 1);
        }
      }
      const floors = [];
      for (let i = 0; i < RUNS; i++) {
        try {
          const f = await floorRun(browser, base, n, plans[n]);
          floors.push(f);
          log(`${n}: floor run ${i + 1}/${RUNS}: fetch+parse ${ms(f.fetch)} ms (text ${ms(f.download)} + parse ${ms(f.parse)}), file.text+parse ${ms(f.file)} ms`);
        } catch (e) {
          log(`${n}: floor run ${i + 1}/${RUNS} failed: ${e.message}`);
        }
      }
      const graphs = [];
      for (let i = 0; i < RUNS; i++) {
        try {
          const g = await graphRun(browser, base, plans[n]);
          graphs.push(g);
          log(`${n}: graph run ${i + 1}/${RUNS}: first frame ${ms(g.firstFrame)} ms after the file, build ${ms(g.build)} + layout ${ms(g.layout)} ms, ` +
            `full layout ${ms(g.fullLayout)} ms, frames ${g.defaultFrames.median.toFixed(1)}/${g.fullFrames.median.toFixed(1)} ms`);
        } catch (e) {
          log(`${n}: graph run ${i + 1}/${RUNS} failed: ${e.message}`);
          problems.set(`[bench] graph ${n}: ${e.message}`, (problems.get(`[bench] graph ${n}: ${e.message}`) || 0) + 1);
        }
      }
      const shares = [];
      for (let i = 0; n <= SHARE_MAX && i < RUNS; i++) {
        try {
          const s = await shareRun(browser, base, plans[n]);
          shares.push(s);
          log(`${n}: share run ${i + 1}/${RUNS}: full ${ms(s.fullEncode)} ms → ${s.fullLength} chars, opened in ${ms(s.fullOpen)} ms; ` +
            `redacted ${ms(s.redactedEncode)} ms → ${s.redactedLength} chars, opened in ${ms(s.redactedOpen)} ms`);
        } catch (e) {
          log(`${n}: share run ${i + 1}/${RUNS} failed: ${e.message}`);
          problems.set(`[bench] share ${n}: ${e.message}`, (problems.get(`[bench] share ${n}: ${e.message}`) || 0) + 1);
        }
      }
      results.push({ n, bytes, runs, floors, graphs, shares });
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0];

  // -------------------------------------------------------------------------------------------
  // Report
  const pick = (rs, k) => rs.map((r) => r[k]);
  const rows = results.map(({ n, bytes, runs, floors }) => {
    const appMed = median(pick(runs, "app"));
    const floorMed = median(pick(floors, "fetch"));
    return [
      n, mib(bytes), `${runs.length}/${RUNS}`, ms(appMed), ms(min(pick(runs, "app"))), ms(median(pick(runs, "wall"))),
      ms(median(pick(runs, "setInputFiles"))), ms(median(pick(runs, "readyInPage"))), ms(floorMed),
      ms(median(pick(floors, "download"))), ms(median(pick(floors, "parse"))), ms(median(pick(floors, "file"))), Number.isFinite(appMed / floorMed) ? (appMed / floorMed).toFixed(2) : "—",
      runs.length ? `${runs.filter((r) => r.progressPainted).length}/${runs.length}` : "—",
    ];
  });
  console.log(`\nPlanlens open benchmark — ${RUNS} cold run(s) per size, each in a fresh browser context`);
  console.log(`Chromium ${version}; build ${wasmFiles.join(", ")}; times in ms; medians unless noted`);
  console.log(`load average (1 min) at start ${loadBefore.toFixed(2)}, at end ${loadAfter.toFixed(2)}` +
    (loadBefore > 1.0 ? "  ← the machine was already busy (a build?): figures are suspect" : "") +
    " (the benchmark itself raises the end figure)" + "\n");
  console.log(table(
    ["resources", "MiB", "ok", "open med", "open min", "wall med", "setFiles", "ready", "floor", "f:text", "f:parse", "floor(file)", "open/floor", "progress"],
    rows,
  ));
  console.log(`
  open      = the app's performance.measure("planlens:open"): change event → plan rendered and painted (primary)
  wall      = Node, just before page.setInputFiles → summary and a resource row present (includes setFiles)
  setFiles  = page.setInputFiles alone (Playwright handing the file to the page)
  ready     = in page, open-start mark → summary and a resource row in the DOM (MutationObserver)
  floor     = fresh page, same origin: fetch + r.text() + JSON.parse (f:text, f:parse = its two parts)
  floor(file) = fresh page: file input change → JSON.parse(await file.text())
  progress  = runs in which [data-testid=load-progress] was on screen at a frame (painted)`);

  const mem = results.filter((r) => r.runs.length).map(({ n, runs }) => [
    n, mib(median(pick(runs, "jsHeap"))), mib(median(pick(runs, "wasmMemory"))), ms(median(pick(runs, "pageLoad"))),
    median(pick(runs, "rowsInDom")),
    `${runs.filter((r) => r.progressAdded).length}/${runs.length}`,
  ]);
  if (mem.length) {
    console.log("\nAfter open (medians)\n");
    console.log(table(["resources", "JS heap MiB", "wasm memory MiB", "page load ms", "rows in DOM", "progress added"], mem));
  }

  const ruleRows = results.filter((r) => r.runs.length).map(({ n, runs }) =>
    [n, ms(median(pick(runs, "drift"))), ms(median(pick(runs, "rules"))), ms(median(pick(runs, "rulesAgain")))]);
  if (ruleRows.length) {
    console.log("\nDrift and guardrail rules in the browser (medians)\n");
    console.log(table(["resources", "drift", "built-in pack", "again (label changed)"], ruleRows));
    console.log(`
  drift         = drift analysis of the opened plan ("planlens:drift"), part of open
  built-in pack = rules input built and the 7 built-in rules evaluated ("planlens:rules"), part of open
  again         = the same after typing environment=dev in the Rules tab`);
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
  const existingPlans = SIZES.map((n) => join(DATA, `plan-${n}.json`)).filter((p) => existsSync(p));
  console.log("\nGraph, native (cargo run --release --example graph_bench)\n");
  console.log(await nativeGraph(existingPlans));
  console.log("\nDrift and rules, native (cargo run --release --example rules_bench)\n");
  console.log(await nativeGraph(existingPlans, "rules_bench"));
  console.log("\nShare links, native (cargo run --release --example share_bench)\n");
  console.log(await nativeGraph(existingPlans.filter((p) => !p.endsWith("-50000.json")), "share_bench"));

  console.log("\nWebAssembly size\n");
  console.log(table(["file", "raw KiB", "gzip -9 KiB", "brotli KiB"], wasmFiles.map((f) => {
    const buf = wasmBytes[f];
    const gz = gzipSync(buf, { level: 9 }).length;
    const br = brotliCompressSync(buf, { params: { [zc.BROTLI_PARAM_QUALITY]: 11 } }).length;
    return [f, kib(buf.length), kib(gz), kib(br)];
  })));

  console.log("\nTargets (BRIEF.md \"What fast means\")\n");
  const targets = [];
  const find = (n) => results.find((r) => r.n === n);
  const r10 = find(10000);
  if (r10) {
    const app = median(pick(r10.runs, "app"));
    const floor = median(pick(r10.floors, "fetch"));
    targets.push([`10k open ≤ ${TARGET_10K_MS} ms`, `${ms(app)} ms`, app <= TARGET_10K_MS ? "OK" : "MISS"]);
    targets.push([`10k open ≤ ${TARGET_10K_RATIO}× floor`, `${(app / floor).toFixed(2)}× (floor ${ms(floor)} ms)`,
      app / floor <= TARGET_10K_RATIO ? "OK" : "MISS"]);
  } else targets.push(["10k targets", "10000 not in --sizes", "—"]);
  const r50 = find(50000);
  if (r50) {
    const app = median(pick(r50.runs, "app"));
    const shown = r50.runs.length > 0 && r50.runs.every((r) => r.progressPainted);
    targets.push([`50k open ≤ ${TARGET_50K_MS} ms`, `${ms(app)} ms`, app <= TARGET_50K_MS ? "OK" : "MISS"]);
    targets.push(["50k progress shown", `${r50.runs.filter((r) => r.progressPainted).length}/${r50.runs.length} runs painted, ` +
      `${r50.runs.filter((r) => r.progressAdded).length}/${r50.runs.length} added`, shown ? "OK" : "MISS"]);
  } else targets.push(["50k targets", "50000 not in --sizes", "—"]);
  if (r10 && r10.runs.length) {
    const r = median(pick(r10.runs, "rules"));
    targets.push([`10k rule evaluation ≤ ${TARGET_10K_RULES_MS} ms`, `${ms(r)} ms`, r <= TARGET_10K_RULES_MS ? "OK" : "MISS"]);
  }
  if (r10 && r10.graphs && r10.graphs.length) {
    const g = median(r10.graphs.map((x) => x.build + x.layout));
    targets.push([`10k graph build + default layout ≤ ${TARGET_10K_GRAPH_MS} ms`, `${ms(g)} ms`, g <= TARGET_10K_GRAPH_MS ? "OK" : "MISS"]);
    const f = median(r10.graphs.map((x) => x.defaultFrames.p95));
    targets.push(["10k pan/zoom at display rate (p95 frame ≤ 20 ms)", `${f.toFixed(1)} ms`, f <= 20 ? "OK" : "MISS"]);
  }
  console.log(table(["target", "measured", ""], targets));

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
