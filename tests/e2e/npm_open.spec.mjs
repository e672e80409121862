// `planlens open` from the npm package (npm/lib/open.js): the installed package serves its own copy
// of the app and the plans on 127.0.0.1 and prints one address per plan; opened in Chromium, each
// shows its plan's summary sentence. The plan is fetched from that server (`?url=`), never put in
// the address, so a plan of any size opens. A file the CLI cannot read is refused with the CLI's
// message and exit code, before anything is served.
//
// PLANLENS_NPM_BIN is the installed package's `planlens` (scripts/test.sh installs the tarball of
// scripts/package.sh with scripts/npm-test.sh and sets it); without it these tests say SKIPPED, and
// with CI=true they fail instead.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, expect, REPO, REAL, needsShared } from "./harness.mjs";

const BIN = process.env.PLANLENS_NPM_BIN;
const MANIFEST = JSON.parse(readFileSync(join(REPO, "tests", "fixtures", "manifest.json"), "utf8")).fixtures;
const summaryOf = (path) => MANIFEST.find((f) => f.path === path)?.summary;

test.skip(!BIN && process.env.CI !== "true", "SKIPPED: PLANLENS_NPM_BIN is not set (scripts/test.sh sets it)");

/** Runs `planlens open ARGS… --no-browser` and resolves once it has printed `count` addresses. */
function open(args, count) {
  const child = spawn(BIN, ["open", ...args, "--no-browser"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const urls = new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const lines = out.split("\n").filter(Boolean);
      if (lines.length >= count) resolve(lines);
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => reject(new Error(`planlens open exited with ${code}: ${err}`)));
  });
  return { child, urls, stderr: () => err };
}

/** Stops a `planlens open` as Ctrl+C does and waits for it to exit (0). */
async function stop(child) {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGINT");
  return exited;
}

test("serves the packaged app with the plan opened at the printed address", async ({ page, pageLog }) => {
  const plan = "samples/web-app-replace.json";
  const run = open([plan], 1);
  try {
    const [url] = await run.urls;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?url=/);
    expect(url, "the plan travels by ?url=, not in the address").not.toMatch(/[#&]p=/);
    await expect.poll(run.stderr).toContain("planlens: serving the app and the plan on http://127.0.0.1:");
    pageLog.allowed.push(new URL(url).origin + "/");
    await page.goto(url);
    await expect(page.getByTestId("plan-summary")).toHaveText(summaryOf(plan));
  } finally {
    expect(await stop(run.child)).toBe(0);
  }
});

test("several plans: one address each, each opens its own plan, with the rules and label given", async ({ page, pageLog }) => {
  const plans = ["tests/fixtures/blast_radius.json", "samples/web-app-replace.json"];
  const run = open([...plans, "--rules", "tests/fixtures/rules/warn_only.toml", "--label", "environment=prod"], 2);
  try {
    const urls = await run.urls;
    expect(urls).toHaveLength(2);
    pageLog.allowed.push(new URL(urls[0]).origin + "/");
    for (const [i, url] of urls.entries()) {
      expect(url).toContain("env=prod");
      expect(url).toContain("rules=");
      await page.goto(url);
      await expect(page.getByTestId("plan-summary")).toHaveText(summaryOf(plans[i]));
    }
  } finally {
    expect(await stop(run.child)).toBe(0);
  }
});

test("a generated plan of 3,000 resources opens: nothing of it is in the address", async ({ page, pageLog }) => {
  const tool = join(REPO, "..", "shared", "tools", "gen_plan.py");
  needsShared(tool);
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), "planlens-open-"));
  const file = join(dir, "plan.json");
  writeFileSync(file, execFileSync("python3", [tool, "--resources", "3000", "--seed", "1"], { maxBuffer: 1 << 30 }));
  const expected = execFileSync(BIN, ["summary", file], { maxBuffer: 1 << 30 }).toString().split("\n")[0];
  const run = open([file], 1);
  try {
    const [url] = await run.urls;
    expect(url.length).toBeLessThan(1000);
    pageLog.allowed.push(new URL(url).origin + "/");
    await page.goto(url);
    await expect(page.getByTestId("plan-summary")).toHaveText(expected, { timeout: 60_000 });
  } finally {
    expect(await stop(run.child)).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file the CLI cannot read is refused with its message and exit code, nothing served", async () => {
  const run = open(["tests/fixtures/apply_log.jsonl"], 1);
  const error = await run.urls.then(
    () => null,
    (e) => e,
  );
  expect(run.child.exitCode).toBe(3);
  expect(error?.message).toContain("planlens: ");
});

test("the real corpus opens the same way", async ({ page, pageLog }) => {
  const plan = join(REAL, "policy-engine__fv1_1_mixed_changes_drift.json");
  needsShared(plan);
  const run = open([plan], 1);
  try {
    const [url] = await run.urls;
    pageLog.allowed.push(new URL(url).origin + "/");
    await page.goto(url);
    await expect(page.getByTestId("plan-summary")).toHaveText(
      summaryOf("../shared/fixtures/real/policy-engine__fv1_1_mixed_changes_drift.json"),
    );
  } finally {
    expect(await stop(run.child)).toBe(0);
  }
});
