// Browser tests for the built site (dist/): `npx playwright test` from the repository root.
// Uses Debian's Chromium (never downloads a browser). The tests start their own static server
// (tests/e2e/serve.mjs on 127.0.0.1, random port) in a worker fixture, see tests/e2e/harness.mjs.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "*.spec.mjs",
  workers: 1,
  fullyParallel: false,
  reporter: "list",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    browserName: "chromium",
    headless: true,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
    },
  },
});
