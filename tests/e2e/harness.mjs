// Shared fixtures for every browser test:
// - `origin`: a static server for dist/ on 127.0.0.1 (random port), one per worker;
// - `baseURL` points at it, so `page.goto("/")` opens the app;
// - `page` is watched for the whole test: every request of the context (pages, popups, workers)
//   must go to the test server's origin and nowhere else, no uncaught page error may occur, and
//   no dialog (alert/confirm/prompt) may open, and nothing may be logged as a console error
//   (CSP violations, failed loads). No request may carry a body: the app never sends anything
//   (a plan, a link's fragment) anywhere. These are checked after each test.
// - `pageLog` gives tests the recorded requests, console messages, page errors and dialogs; a
//   test that serves files from a second origin (`?url=`) adds it to `pageLog.allowed`, and one
//   that provokes a failed request lists the console messages Chromium prints for it in
//   `pageLog.allowedConsole`.
import { test as base, expect } from "@playwright/test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./serve.mjs";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
// PLANLENS_DIST: another build to test (a second checkout building beside this one).
export const DIST = process.env.PLANLENS_DIST || fileURLToPath(new URL("../../dist", import.meta.url));

// The real corpus beside the repository (../shared/fixtures/real).
export const REAL = join(REPO, "..", "shared", "fixtures", "real");

// Skips the running test when `path` (the real corpus, or a file or tool in ../shared) is absent,
// saying so. With CI=true it does not skip: CI runs with ../shared beside the clone, so a missing
// file there fails the test instead of passing it silently.
export function needsShared(path) {
  test.skip(!existsSync(path) && process.env.CI !== "true", `SKIPPED: ${path} is absent (../shared is not beside the repository)`);
}

// `paths` to add to a test's files: those that exist, or all of them with CI=true (a missing one
// fails there).
export function sharedFiles(...paths) {
  return process.env.CI === "true" ? paths : paths.filter((path) => existsSync(path));
}

export const test = base.extend({
  origin: [
    async ({}, use) => {
      const server = await serve(DIST, { port: 0, host: "127.0.0.1", prefix: "/" });
      await use(`http://127.0.0.1:${server.address().port}`);
      server.closeAllConnections?.();
      await new Promise((done) => server.close(done));
    },
    { scope: "worker" },
  ],

  baseURL: async ({ origin }, use) => {
    await use(`${origin}/`);
  },

  pageLog: async ({}, use) => {
    await use({ requests: [], bodies: [], console: [], errors: [], dialogs: [], allowed: [], allowedConsole: [] });
  },

  page: async ({ page, origin, pageLog }, use) => {
    const context = page.context();
    const watch = (p) => {
      p.on("pageerror", (e) => pageLog.errors.push(`${p.url()}: ${e.stack || e.message || e}`));
      p.on("console", (m) => pageLog.console.push(`${m.type()}: ${m.text()}`));
      p.on("websocket", (ws) => pageLog.requests.push(ws.url()));
      p.on("dialog", (d) => {
        pageLog.dialogs.push(`${d.type()}: ${d.message()}`);
        d.dismiss().catch(() => {});
      });
    };
    context.on("request", (r) => {
      pageLog.requests.push(r.url());
      const body = r.postDataBuffer();
      if (body && body.length > 0) pageLog.bodies.push(`${r.method()} ${r.url()}: ${body.length} bytes`);
    });
    watch(page);
    context.on("page", (p) => {
      if (p !== page) watch(p);
    });

    await use(page);

    const ours = `${origin}/`;
    const allowed = [ours, ...pageLog.allowed];
    const foreign = pageLog.requests.filter((u) => !allowed.some((a) => u.startsWith(a)));
    expect(foreign, `every request must go to ${allowed.join(" or ")} and nowhere else`).toEqual([]);
    expect(pageLog.bodies, "requests that carry a body").toEqual([]);
    expect(pageLog.errors, "uncaught errors in the page").toEqual([]);
    expect(pageLog.dialogs, "dialogs opened by the page").toEqual([]);
    // Console errors include Content-Security-Policy violations and failed loads.
    const expectedError = (m) => pageLog.allowedConsole.some((s) => m.includes(s));
    expect(pageLog.console.filter((m) => m.startsWith("error:") && !expectedError(m)), "console errors").toEqual([]);
  },
});

export { expect };
