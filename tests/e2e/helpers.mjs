// Steps shared by the browser test files.
import { basename } from "node:path";
import { expect } from "./harness.mjs";

export async function gotoApp(page, hash = "") {
  await page.goto(`/${hash}`);
  // The header (with the file input) is rendered by the WebAssembly app once it has started.
  await expect(page.locator("input[type=file][data-testid=plan-file]")).toBeAttached();
}

export async function chooseFile(page, path) {
  await page.locator("input[type=file][data-testid=plan-file]").setInputFiles(path);
}

/** Opens a plan through the file input and waits until it is the open plan. */
export async function openPlan(page, path) {
  await chooseFile(page, path);
  await expect(page.locator(".topbar .doc-name")).toHaveText(basename(path));
  await expect(page.getByTestId("plan-summary")).toBeVisible();
  await expect(page.getByTestId("load-error")).toHaveCount(0);
}

/**
 * On a phone the selection's detail is a full-screen sheet over the list and the tabs; its Back
 * button closes it and keeps the selection. Does nothing where there is no sheet (desktop).
 */
export async function closeDetail(page) {
  for (const id of ["sheet-back", "drift-sheet-back"]) {
    const back = page.getByTestId(id);
    if (await back.isVisible()) await back.click();
  }
}
