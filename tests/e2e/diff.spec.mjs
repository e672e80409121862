// Diffs read as `terraform show` prints them, at desktop and phone sizes: a list that loses its
// first rule shows one removal and folds the eleven unchanged rules, a policy held in a string is
// diffed as JSON inside `jsonencode(…)`, a multi-line string line by line in a heredoc, list
// elements are labelled by index, and sensitive values stay masked where the list shifts.
// The diff is asked of the plan's worker: "Loading the diff…" until it answers, and an answer for a
// row no longer selected is dropped.
// The fixture is tests/fixtures/diff_like_terraform_show.json (see the README there).
import { join } from "node:path";
import { test, expect, REPO } from "./harness.mjs";
import { gotoApp, openPlan } from "./helpers.mjs";

const FIXTURE = join(REPO, "tests", "fixtures", "diff_like_terraform_show.json");

const rowByAddress = (page, address) =>
  page.locator(`[data-testid=resource-row][data-address="${address.replace(/["\\]/g, "\\$&")}"]`);

/** Opens a resource's diff and returns its lines as the user reads them (indentation dropped). */
async function diffLines(page, address) {
  // On a phone the detail is a full-screen sheet over the list: go back to the list first.
  const back = page.getByTestId("sheet-back");
  if (await back.isVisible()) await back.click();
  await rowByAddress(page, address).click();
  await expect(page.getByTestId("diff-address")).toHaveText(address);
  const tree = page.getByTestId("diff-tree");
  await expect(tree).toBeVisible();
  const text = await tree.innerText();
  return text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** The diff tree fits its pane: nothing in it runs past the right edge of the screen. */
async function expectTreeFits(page, what) {
  const overflow = await page.getByTestId("diff-tree").evaluate((tree) => {
    const width = document.documentElement.clientWidth;
    return [...tree.querySelectorAll("*")]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.right > width + 1).length;
  });
  expect(overflow, `${what}: diff lines past the right edge`).toBe(0);
}

/**
 * Holds the page's diff requests to the plan's worker until `release`, so a test can see the
 * diff pane while it waits and choose the order the answers come back in. Counts the worker's
 * answers.
 */
async function holdDiffRequests(page) {
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    const held = [];
    const watched = new WeakSet();
    let holding = false;
    let answered = 0;
    window.__diffRequests = {
      hold: () => { holding = true; },
      held: () => held.length,
      answered: () => answered,
      // Sends what was held, the newest first, and stops holding.
      releaseNewestFirst: () => { holding = false; while (held.length) held.pop()(); },
    };
    Worker.prototype.postMessage = function (message, ...rest) {
      if (!watched.has(this)) {
        watched.add(this);
        this.addEventListener("message", (e) => { if (e.data && e.data.kind === "done") answered++; });
      }
      const isDiff = message && message.kind === "ask" && String(message.request).includes('"Diff"');
      if (holding && isDiff) {
        held.push(() => post.call(this, message, ...rest));
        return undefined;
      }
      return post.call(this, message, ...rest);
    };
  });
}

for (const [device, viewport] of [
  ["desktop", { width: 1400, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test.describe(`Diffs like terraform show (${device})`, () => {
    test.use({ viewport });

    test("removing the first of twelve rules reads as one removal, the rest folded", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, FIXTURE);
      const lines = await diffLines(page, "aws_security_group.web");
      // ~ ingress = [ / - [0] = { … - from_port = 22 … } / # (11 unchanged elements hidden) / ]
      const open = lines.indexOf("~ ingress = [");
      expect(open, lines.join("\n")).toBeGreaterThanOrEqual(0);
      expect(lines[open + 1]).toBe("- [0] = {");
      expect(lines).toContain("- from_port = 22");
      expect(lines).toContain('- description = "ssh from office"');
      const folded = lines.indexOf("# (11 unchanged elements hidden)");
      expect(folded, lines.join("\n")).toBeGreaterThan(open);
      expect(lines[folded + 1]).toBe("]");
      // No rule is shown as changed in place, and no other rule is listed.
      expect(lines.filter((l) => /^[~+-] \[\d+\] = \{$/.test(l))).toEqual(["- [0] = {"]);
      expect(lines).not.toContain("+ from_port = 80");
      await expectTreeFits(page, "security group");

      // Shown unchanged, the rules that stay are labelled where they are now and say where they were.
      await page.getByTestId("show-unchanged-attrs").setChecked(true);
      const all = (await page.getByTestId("diff-tree").innerText()).split("\n").map((l) => l.trim());
      expect(all).not.toContain("# (11 unchanged elements hidden)");
      expect(all).toContain("[10] = {");
      expect(all).toContain("from_port = 11211");
      const moved = page.getByTestId("diff-tree").locator(".dn-key", { hasText: /^\[10\]$/ }).first();
      await expect(moved).toHaveAttribute("title", "[11] before the change");
      await page.getByTestId("show-unchanged-attrs").setChecked(false);
    });

    test("a policy string is diffed as JSON, a config file line by line, secrets stay masked", async ({ page }) => {
      await gotoApp(page);
      await openPlan(page, FIXTURE);

      const policy = await diffLines(page, "aws_iam_policy.deploy");
      const open = policy.indexOf("~ policy = jsonencode({");
      expect(open, policy.join("\n")).toBeGreaterThanOrEqual(0);
      expect(policy).toContain("~ Statement = [");
      expect(policy).toContain('+ [2] = "s3:PutObject"');
      expect(policy).toContain("# (2 unchanged elements hidden)");
      expect(policy).toContain(
        '~ Resource = "arn:aws:lambda:eu-west-1:123456789012:function:api" → "arn:aws:lambda:eu-west-1:123456789012:function:api-v2"',
      );
      expect(policy).toContain("})");
      // The policy is never one escaped line.
      expect(policy.join("\n")).not.toContain('\\"Version\\"');
      await expectTreeFits(page, "policy");

      const config = await diffLines(page, "kubernetes_config_map.nginx");
      const heredoc = config.indexOf('~ "nginx.conf" = <<-EOT');
      expect(heredoc, config.join("\n")).toBeGreaterThanOrEqual(0);
      // Each line as written in the file, indentation included, after its mark.
      expect(config).toContain("-   keepalive_timeout 65;");
      expect(config).toContain("+   keepalive_timeout 30;");
      expect(config).toContain("+     listen [::]:80;");
      expect(config).toContain("EOT");
      expect(config.indexOf("EOT")).toBeGreaterThan(heredoc);
      await expectTreeFits(page, "config map");

      const users = await diffLines(page, "terraform_data.users");
      expect(users).toContain("~ input = [");
      expect(users).toContain("- [0] = {");
      expect(users).toContain("- password = (sensitive value)");
      expect(users).toContain("# (2 unchanged elements hidden)");
      expect(users.join("\n")).toContain("(known after apply)");
      await page.getByTestId("show-unchanged-attrs").setChecked(true);
      await expect(page.getByTestId("diff-tree")).toContainText('name = "bo"');
      const html = await page.evaluate(() => document.documentElement.outerHTML);
      expect(html).not.toContain("SECRET-DIFF-USER");
      await page.getByTestId("show-unchanged-attrs").setChecked(false);
    });

    test("the diff comes from the plan's worker: a line says it is on its way, an answer for a row left behind is dropped", async ({ page }) => {
      await holdDiffRequests(page);
      await gotoApp(page);
      await openPlan(page, FIXTURE);
      await page.evaluate(() => window.__diffRequests.hold());

      await rowByAddress(page, "aws_security_group.web").click();
      await expect(page.getByTestId("diff-address")).toHaveText("aws_security_group.web");
      await expect(page.getByTestId("diff-loading")).toHaveText("Loading the diff…");
      await expect(page.getByTestId("diff-tree")).toHaveCount(0);

      const back = page.getByTestId("sheet-back");
      if (await back.isVisible()) await back.click();
      await rowByAddress(page, "aws_iam_policy.deploy").click();
      await expect(page.getByTestId("diff-address")).toHaveText("aws_iam_policy.deploy");
      await expect(page.getByTestId("diff-loading")).toBeVisible();
      await expect.poll(() => page.evaluate(() => window.__diffRequests.held())).toBe(2);

      // The policy's answer comes first, the security group's (no longer shown) last.
      const before = await page.evaluate(() => window.__diffRequests.answered());
      await page.evaluate(() => window.__diffRequests.releaseNewestFirst());
      await expect.poll(() => page.evaluate(() => window.__diffRequests.answered())).toBe(before + 2);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const tree = page.getByTestId("diff-tree");
      await expect(tree).toContainText("~ policy = jsonencode({");
      await expect(tree).not.toContainText("ingress");
      await expect(page.getByTestId("diff-loading")).toHaveCount(0);
      await expect(page.getByTestId("diff-address")).toHaveText("aws_iam_policy.deploy");
    });
  });
}
