// A Terraform state opens as a state view, at desktop and phone sizes: the summary says
// "State: N resources in M modules (Terraform X.Y)." and nothing on the page is a verdict (no
// badge, no "No changes.", no "No drift", no pass); the list shows resources by module without
// actions; a resource's detail shows its attributes, not a before → after, with a secret masked
// (marked by the state, and one only named like a secret); the graph is the recorded
// dependencies; the Rules tab says no rule ran; outputs are listed with the sensitive one masked.
// A reload, the full link and the redacted link reopen it as a state, and the PR comment has no
// verdict. The fixture is tests/fixtures/states/modules.tfstate (see the
// README there).
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan, closeDetail } from "./helpers.mjs";

const STATE = join(REPO, "tests", "fixtures", "states", "modules.tfstate");
const SECRETS = [
  "SECRET-STATE-OUTPUT-PASSWORD-2468",
  "SECRET-STATE-RANDOM-RESULT-1357",
  "SECRET-STATE-DB-PASSWORD-8642",
  "SECRET-STATE-MARKED-PARAMETER-5511",
  "SECRET-STATE-DEPLOY-TOKEN-BLUE-1122",
];

const rowByAddress = (page, address) =>
  page.locator(`[data-testid=resource-row][data-address="${address.replace(/["\\]/g, "\\$&")}"]`);

/** Nothing on the page reads as a verdict on a plan, and no secret is shown. */
async function expectNoVerdict(page, where) {
  await expect(page.getByTestId("verdict"), where).toHaveCount(0);
  const body = await page.locator("body").innerText();
  for (const words of ["No changes", "No drift", "needs approval", "every rule passes", "Plan:"]) {
    expect(body, `${where}: "${words}"`).not.toContain(words);
  }
  expect(body, where).not.toMatch(/\bpass\b/i);
  for (const s of SECRETS) expect(body, `${where}: ${s}`).not.toContain(s);
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`A state opens as a state, never judged (${device})`, () => {
    test.use({ viewport });

    test("summary, list, attributes, graph, rules, drift and outputs", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, STATE);
      await expect(page.getByTestId("plan-summary")).toHaveText("State: 9 resources in 4 modules (Terraform 1.9.5).");
      await expect(page.getByTestId("banner-state")).toContainText("This is a Terraform state, not a plan");
      await expect(page.getByTestId("plan-versions")).toContainText("serial 42");
      await expectNoVerdict(page, "summary");
      await page.screenshot({ path: `test-results/state-${device}-summary.png` });

      // Every resource is listed, by module, as recorded: no action, nothing hidden as a no-op.
      const rows = page.getByTestId("resource-row");
      await expect(rows).toHaveCount(10);
      await expect(page.locator("[data-testid=resource-row]:not([data-action=in-state])")).toHaveCount(0);
      await expect(page.getByTestId("module-heading")).toHaveText([
        /^\(root module\)\s*5$/,
        /^module\.app\["blue"\]\s*2$/,
        /^module\.app\["green"\]\s*1$/,
        /^module\.db\s*2$/,
      ]);
      await expect(rowByAddress(page, 'module.app["green"].aws_instance.web')).toContainText("tainted");
      await expect(rowByAddress(page, 'module.app["blue"].aws_instance.web').last()).toContainText("deposed");
      await expect(page.getByTestId("show-no-ops")).toBeHidden();
      await expect(page.locator("[data-testid^=filter-no-op]")).toHaveCount(0);

      // A resource's attributes: values as recorded, masked secrets, no arrows.
      await rowByAddress(page, "module.db.aws_db_instance.main").click();
      await expect(page.getByTestId("diff-address")).toHaveText("module.db.aws_db_instance.main");
      await expect(page.getByTestId("diff-action")).toHaveText("in the state");
      await expect(page.getByTestId("fact-state")).toContainText("Recorded in the state");
      const tree = page.getByTestId("diff-tree");
      await expect(tree).toContainText('engine = "postgres"');
      await expect(tree).toContainText("password = (sensitive value)");
      await expect(tree).toContainText('value = "500"');
      await expect(page.getByTestId("show-unchanged-attrs")).toHaveCount(0);
      const text = await tree.innerText();
      expect(text).not.toContain("→");
      expect(text).not.toMatch(/^\s*[+~-] /m);
      await expectNoVerdict(page, "detail");
      await page.screenshot({ path: `test-results/state-${device}-detail.png` });
      await closeDetail(page);
      // Not marked by the state, masked by its name.
      await rowByAddress(page, 'module.app["blue"].aws_instance.web').first().click();
      await expect(page.getByTestId("diff-tree")).toContainText("deploy_token = (sensitive value)");
      await expect(page.getByTestId("diff-tree")).toContainText('Name = "web-blue"');
      await closeDetail(page);
      await rowByAddress(page, 'module.app["green"].aws_instance.web').click();
      await expect(page.getByTestId("fact-tainted")).toHaveText("Tainted: Terraform will replace it at the next apply.");
      await closeDetail(page);

      // The graph: the recorded dependencies, every resource drawn.
      await page.getByTestId("tab-graph").click();
      await expect(page.getByTestId("graph-note")).toContainText("dependencies Terraform recorded in the state");
      await expect(page.getByTestId("graph-canvas")).toBeVisible();
      await expect(page.getByTestId("graph-status")).toContainText(/^10 resource instances · 12 dependencies · showing 10 nodes/);
      await expectNoVerdict(page, "graph");
      await page.screenshot({ path: `test-results/state-${device}-graph.png` });

      // Rules: none ran, and the tab says why.
      await page.getByTestId("tab-rules").click();
      await expect(page.getByTestId("rules-planning")).toContainText("This is a Terraform state, not a plan");
      await expect(page.getByTestId("rules-counts")).toContainText("No rules ran");
      await expect(page.getByTestId("findings")).toContainText("no rule ran on this state");
      await expectNoVerdict(page, "rules");

      // Drift: a state cannot say.
      // No count on the Drift tab: "0" would read as "no drift", which a state cannot say.
      await expect(page.getByTestId("tab-drift").locator(".tab-count")).toHaveCount(0);
      await expect(page.getByTestId("tab-outputs").locator(".tab-count")).toHaveCount(1);
      await page.getByTestId("tab-drift").click();
      await expect(page.getByTestId("no-drift")).toContainText("A state cannot show drift");

      // Outputs, the sensitive one masked.
      await page.getByTestId("tab-outputs").click();
      const outputs = page.getByTestId("output-row");
      await expect(outputs).toHaveCount(3);
      await expect(outputs.filter({ hasText: "db_admin_password" })).toContainText("(sensitive value)");
      await expect(outputs.filter({ hasText: "vpc_id" })).toContainText("vpc-0a1b2c3d4e5f60718");
      await expectNoVerdict(page, "outputs");

      // Checks: not read from a state, and the tab says so rather than "none".
      await page.getByTestId("tab-checks").click();
      await expect(page.getByTestId("checks-empty")).toHaveText("Planlens does not show a state's check results (check_results of its last apply).");

      // A reload reopens the state as a state (the kept file goes through the same reader).
      await page.reload();
      await expect(page.getByTestId("plan-summary")).toHaveText("State: 9 resources in 4 modules (Terraform 1.9.5).");
      await expectNoVerdict(page, "after a reload");
    });
  });
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) test.describe(`A state's share links and comment (${device})`, () => {
  test.use({ viewport });

  test("the full link reopens the state as a state without its secrets; the comment has no verdict", async ({ page }) => {
    await gotoApp(page);
    await openPlan(page, STATE);
    await page.getByTestId("share").click();
    const dialog = page.getByTestId("share-dialog");
    await expect(dialog.getByTestId("share-full-link")).toBeVisible();
    const markdown = await dialog.getByTestId("share-markdown-text").inputValue();
    expect(markdown).toMatch(/^### Planlens: State: 9 resources in 4 modules \\\(Terraform 1\.9\.5\\\)\./);
    expect(markdown).toContain("**No verdict**");
    expect(markdown).not.toContain("Verdict");
    for (const s of SECRETS) expect(markdown).not.toContain(s);
    const full = await dialog.getByTestId("share-full-link").inputValue();
    const redacted = await dialog.getByTestId("share-redacted-link").inputValue();
    for (const [what, link] of [["redacted link", redacted], ["full link", full]]) {
      // A fresh page for each link, as whoever receives it opens it.
      const other = await page.context().newPage();
      await other.goto(link);
      await expect(other.getByTestId("plan-summary")).toHaveText("State: 9 resources in 4 modules (Terraform 1.9.5).");
      await expectNoVerdict(other, what);
      if (what === "full link") {
        // The full link still shows attributes, with the secret masked.
        await rowByAddress(other, "module.db.aws_db_instance.main").click();
        await expect(other.getByTestId("diff-tree")).toContainText("password = (sensitive value)");
        await expect(other.getByTestId("diff-tree")).toContainText('engine = "postgres"');
      }
      await other.close();
    }
  });
});
