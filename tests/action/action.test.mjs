// The GitHub Action's own script (action/planlens-action.mjs) against a small fake of GitHub's REST
// API on 127.0.0.1: one comment per pull request, found by its hidden marker and edited in place
// on every push, never a second one; GitHub's error answers reported, not hidden; the job's exit
// code for each of check's exit codes and `fail-on`. Run by scripts/test.sh: `node --test tests/action/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { github, jobExitCode, marker, previousLink, upsertComment } from "../../action/planlens-action.mjs";

const SCRIPT = fileURLToPath(new URL("../../action/planlens-action.mjs", import.meta.url));
const TOKEN = "test-token";

/**
 * A fake of the issue-comment endpoints for repository `o/r`: `comments` is the store, `calls`
 * every request seen, `fail` makes the next request of a method answer an error.
 */
async function fakeGitHub(initial = []) {
  const state = { comments: initial.map((c) => ({ ...c })), calls: [], fail: {}, nextId: 1000 };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const url = new URL(req.url, "http://x");
      state.calls.push(`${req.method} ${url.pathname}${url.search}`);
      const answer = (status, body) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(401, { message: "Bad credentials" });
      const failure = state.fail[req.method];
      if (failure) {
        delete state.fail[req.method];
        return answer(failure.status, { message: failure.message });
      }
      let m;
      if ((m = /^\/repos\/o\/r\/issues\/(\d+)\/comments$/.exec(url.pathname))) {
        const issue = Number(m[1]);
        if (req.method === "GET") {
          const per = Number(url.searchParams.get("per_page") ?? 30);
          const page = Number(url.searchParams.get("page") ?? 1);
          const mine = state.comments.filter((c) => c.issue === issue);
          return answer(200, mine.slice((page - 1) * per, page * per).map(({ issue: _, ...c }) => c));
        }
        if (req.method === "POST") {
          const comment = { id: state.nextId++, issue, body: JSON.parse(raw).body, html_url: `https://github.test/o/r/pull/${issue}#c` };
          state.comments.push(comment);
          const { issue: _, ...out } = comment;
          return answer(201, out);
        }
      }
      if ((m = /^\/repos\/o\/r\/issues\/comments\/(\d+)$/.exec(url.pathname)) && req.method === "PATCH") {
        const comment = state.comments.find((c) => c.id === Number(m[1]));
        if (!comment) return answer(404, { message: "Not Found" });
        comment.body = JSON.parse(raw).body;
        const { issue: _, ...out } = comment;
        return answer(200, out);
      }
      answer(404, { message: "Not Found" });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.api = `http://127.0.0.1:${server.address().port}`;
  state.close = () => new Promise((resolve) => server.close(resolve));
  return state;
}

const client = (fake) => github({ api: fake.api, token: TOKEN, repository: "o/r" });

test("the first run creates the comment, with the hidden marker", async () => {
  const fake = await fakeGitHub([{ id: 1, issue: 7, body: "LGTM" }]);
  try {
    const done = await upsertComment(client(fake), 7, "Plan: 1 to add.");
    assert.equal(done.action, "created");
    assert.equal(fake.comments.length, 2);
    assert.equal(fake.comments[1].body, `${marker()}\nPlan: 1 to add.`);
    assert.equal(fake.comments[0].body, "LGTM", "other comments are left alone");
  } finally {
    await fake.close();
  }
});

test("every later push edits that comment in place, never a new one, even past the first page", async () => {
  const others = Array.from({ length: 150 }, (_, i) => ({ id: i + 1, issue: 7, body: `comment ${i}` }));
  const fake = await fakeGitHub([...others, { id: 500, issue: 7, body: `${marker()}\nold` }, { id: 501, issue: 8, body: `${marker()}\nanother PR` }]);
  try {
    for (const body of ["Plan: 2 to add.", "Plan: 3 to add."]) {
      const done = await upsertComment(client(fake), 7, body);
      assert.equal(done.action, "updated");
      assert.equal(done.id, 500);
    }
    assert.equal(fake.comments.length, 152, "no comment was added");
    assert.equal(fake.comments.find((c) => c.id === 500).body, `${marker()}\nPlan: 3 to add.`);
    assert.equal(fake.comments.find((c) => c.id === 501).body, `${marker()}\nanother PR`, "another pull request's comment is untouched");
    assert.ok(fake.calls.includes("GET /repos/o/r/issues/7/comments?per_page=100&page=2"), "the second page was read");
    assert.equal(fake.calls.filter((c) => c.startsWith("PATCH")).length, 2);
  } finally {
    await fake.close();
  }
});

test("the same body again changes nothing; a body with its marker already is kept as it is", async () => {
  const fake = await fakeGitHub([{ id: 3, issue: 7, body: `${marker()}\nsame` }]);
  try {
    assert.equal((await upsertComment(client(fake), 7, "same")).action, "unchanged");
    assert.equal((await upsertComment(client(fake), 7, `x\n${marker()}`)).action, "updated");
    assert.equal(fake.comments[0].body, `x\n${marker()}`);
    assert.equal(fake.calls.filter((c) => c.startsWith("PATCH") || c.startsWith("POST")).length, 1);
  } finally {
    await fake.close();
  }
});

test("each key is a comment of its own (several plans, several comments)", async () => {
  const fake = await fakeGitHub([{ id: 3, issue: 7, body: `${marker("prod")}\nprod` }]);
  try {
    assert.equal((await upsertComment(client(fake), 7, "staging plan", "staging")).action, "created");
    assert.equal((await upsertComment(client(fake), 7, "prod plan", "prod")).action, "updated");
    assert.deepEqual(
      fake.comments.map((c) => c.body),
      [`${marker("prod")}\nprod plan`, `${marker("staging")}\nstaging plan`],
    );
    assert.throws(() => marker("a b"), /letters, digits/);
  } finally {
    await fake.close();
  }
});

test("GitHub's error answers are reported with their status and message", async () => {
  const fake = await fakeGitHub([{ id: 3, issue: 7, body: `${marker()}\nold` }]);
  try {
    fake.fail.PATCH = { status: 403, message: "Resource not accessible by integration" };
    await assert.rejects(upsertComment(client(fake), 7, "new"), { status: 403, message: /403 to PATCH \/repos\/o\/r\/issues\/comments\/3: Resource not accessible by integration/ });
    fake.fail.GET = { status: 500, message: "Server Error" };
    await assert.rejects(upsertComment(client(fake), 7, "new"), { status: 500 });
    await assert.rejects(
      upsertComment(github({ api: fake.api, token: "wrong", repository: "o/r" }), 7, "new"),
      { status: 401, message: /Bad credentials/ },
    );
    await assert.rejects(client(fake).update(12345, "x"), { status: 404, message: /Not Found/ });
    assert.equal(fake.comments[0].body, `${marker()}\nold`, "nothing was changed by a refused request");
  } finally {
    await fake.close();
  }
});

test("the command: posts from a body file with the event's pull request; a refusal is a warning and exit 1", async () => {
  const fake = await fakeGitHub();
  const dir = mkdtempSync(join(tmpdir(), "planlens-action-"));
  try {
    const body = join(dir, "comment.md");
    const event = join(dir, "event.json");
    writeFileSync(body, "Plan: 1 to add.\n");
    writeFileSync(event, JSON.stringify({ pull_request: { number: 12 } }));
    const env = { ...process.env, GITHUB_TOKEN: TOKEN, GITHUB_API_URL: fake.api, GITHUB_REPOSITORY: "o/r", GITHUB_EVENT_PATH: event };
    delete env.PLANLENS_PR;
    const run = promisify(execFile);
    let out = await run(process.execPath, [SCRIPT, "comment", body], { env });
    assert.match(out.stdout, /comment created on #12/);
    out = await run(process.execPath, [SCRIPT, "comment", body], { env });
    assert.match(out.stdout, /comment unchanged on #12/);
    assert.equal(fake.comments.length, 1);

    fake.fail.GET = { status: 403, message: "Resource not accessible by integration" };
    const refused = await run(process.execPath, [SCRIPT, "comment", body], { env }).catch((e) => e);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /^::warning title=Planlens comment not posted::GitHub answered 403/);

    writeFileSync(event, JSON.stringify({ push: {} }));
    out = await run(process.execPath, [SCRIPT, "comment", body], { env });
    assert.match(out.stdout, /not a pull request: no comment posted/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await fake.close();
  }
});

test("the job's exit code: fail-on needs-approval, warn or never, for each of check's exit codes", async () => {
  const table = {
    //                 pass warn approval bad-input planning-failed usage
    "needs-approval": [0, 0, 2, 3, 4, 64],
    warn: [0, 1, 2, 3, 4, 64],
    never: [0, 0, 0, 0, 0, 0],
  };
  for (const [failOn, expected] of Object.entries(table)) {
    assert.deepEqual([0, 1, 2, 3, 4, 64].map((code) => jobExitCode(code, failOn)), expected, failOn);
  }
  assert.throws(() => jobExitCode(2, "sometimes"), /needs-approval, warn or never/);
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, "exit-code", "2", "needs-approval"]);
  assert.equal(stdout, "2\n");
});

test("the link the last push's comment carries is found for --since, and nothing on a first push", async () => {
  const site = "https://o.github.io/planlens/";
  const body = `${marker("default")}\n### Planlens\n[Open in Planlens](<${site}#g=AX&p=AXja>) (the plan is in the link)`;
  const fake = await fakeGitHub([
    { id: 1, issue: 7, body: "LGTM", html_url: "u" },
    { id: 2, issue: 7, body, html_url: "u" },
    { id: 3, issue: 8, body: "no marker here", html_url: "u" },
  ]);
  try {
    assert.equal(await previousLink(client(fake), 7, site), `${site}#g=AX&p=AXja`);
    assert.equal(await previousLink(client(fake), 8, site), null);
    // Another site's link is not ours to compare with.
    assert.equal(await previousLink(client(fake), 7, "https://elsewhere.example/"), null);
  } finally {
    await fake.close();
  }
});
