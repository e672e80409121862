#!/usr/bin/env node
// The GitHub Action's own logic (action.yml), apart from what GitHub's runner does: keeping one
// Planlens comment per pull request, and choosing the job's exit code. Node ≥ 20, no dependencies,
// tested against a fake GitHub API in tests/action/ (the real one cannot be reached from there).
//
//   node planlens-action.mjs comment BODY_FILE [--key KEY]
//       Finds the pull request's comment carrying the hidden marker `<!-- planlens:KEY -->`
//       (KEY: `default`) and edits it in place, or creates it when there is none: one comment per
//       pull request (and key), kept up to date on every push. Reads GITHUB_TOKEN,
//       GITHUB_API_URL (default https://api.github.com), GITHUB_REPOSITORY and the pull request's
//       number from PLANLENS_PR or the event (GITHUB_EVENT_PATH). Prints what it did; outside a
//       pull request it says so and does nothing. Exit 0 done or skipped, 1 GitHub refused
//       (its status and message are printed as a workflow warning).
//
//   node planlens-action.mjs exit-code CHECK_EXIT FAIL_ON
//       Prints the job's exit code for `planlens check`'s exit code (0 pass, 1 warn or incomplete,
//       2 needs approval, 3 bad input, 4 planning failed, 64 usage) and FAIL_ON: `needs-approval`
//       fails on 2, 3, 4 and 64; `warn` on anything but 0; `never` on nothing.
import { readFileSync, realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** The hidden marker that identifies the comment of `key`. */
export function marker(key = "default") {
  if (!/^[A-Za-z0-9_.\/-]+$/.test(key)) throw new Error(`comment key ${JSON.stringify(key)}: letters, digits, _ . / - only`);
  return `<!-- planlens:${key} -->`;
}

/** The exit code of the job for `check`'s exit code under `failOn`. */
export function jobExitCode(checkExit, failOn) {
  const code = Number(checkExit);
  if (!Number.isInteger(code) || code < 0) throw new Error(`check's exit code ${JSON.stringify(checkExit)} is not a number`);
  switch (failOn) {
    case "never":
      return 0;
    case "warn":
      return code;
    case "needs-approval":
      return code === 0 || code === 1 ? 0 : code;
    default:
      throw new Error(`fail-on ${JSON.stringify(failOn)}: needs-approval, warn or never`);
  }
}

/** An error GitHub answered, with its status and message. */
export class GitHubError extends Error {
  constructor(method, url, status, message) {
    super(`GitHub answered ${status} to ${method} ${new URL(url).pathname}: ${message}`);
    this.status = status;
  }
}

/** A small client of the REST API's issue comments. */
export function github({ api = "https://api.github.com", token, repository, fetch = globalThis.fetch }) {
  if (!token) throw new Error("no GitHub token (the action's github-token input, or GITHUB_TOKEN)");
  if (!/^[^/]+\/[^/]+$/.test(repository ?? "")) throw new Error(`GITHUB_REPOSITORY ${JSON.stringify(repository)} is not OWNER/REPO`);
  const base = api.replace(/\/+$/, "");
  const request = async (method, path, body) => {
    const url = `${base}/repos/${repository}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        Accept: "application/vnd.github+json",
        Authorization: `Bearer ${token}`,
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "planlens-action",
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    let json;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!response.ok) throw new GitHubError(method, url, response.status, json?.message ?? (text.slice(0, 200) || response.statusText));
    return json;
  };
  return {
    /** Every comment of issue or pull request `number`, oldest first. */
    async comments(number) {
      const all = [];
      for (let page = 1; ; page++) {
        const batch = await request("GET", `/issues/${number}/comments?per_page=100&page=${page}`);
        if (!Array.isArray(batch)) throw new Error("GitHub's list of comments is not a list");
        all.push(...batch);
        if (batch.length < 100) return all;
      }
    },
    create: (number, body) => request("POST", `/issues/${number}/comments`, { body }),
    update: (id, body) => request("PATCH", `/issues/comments/${id}`, { body }),
  };
}

/**
 * Keeps one comment with `body` on pull request `number`: edits the oldest comment carrying the
 * marker of `key`, or creates one. Returns `{ action: "created" | "updated" | "unchanged", id, url }`.
 */
export async function upsertComment(client, number, body, key = "default") {
  const mark = marker(key);
  const text = body.includes(mark) ? body : `${mark}\n${body}`;
  const existing = (await client.comments(number)).find((c) => typeof c.body === "string" && c.body.includes(mark));
  if (!existing) {
    const created = await client.create(number, text);
    return { action: "created", id: created?.id, url: created?.html_url };
  }
  if (existing.body === text) return { action: "unchanged", id: existing.id, url: existing.html_url };
  const updated = await client.update(existing.id, text);
  return { action: "updated", id: existing.id, url: updated?.html_url ?? existing.html_url };
}

/**
 * The Planlens link the pull request's comment of `key` carries (the one the last push left), for
 * `planlens summary --since`: the first `(<URL>)` link whose address starts with `site`, or null.
 */
export async function previousLink(client, number, site, key = "default") {
  const mark = marker(key);
  const existing = (await client.comments(number)).find((c) => typeof c.body === "string" && c.body.includes(mark));
  if (!existing) return null;
  const base = site.replace(/[?#].*$/, "");
  for (const m of existing.body.matchAll(/\]\(<([^>\s]+)>\)/g)) {
    if (m[1].startsWith(base) && m[1].includes("#")) return m[1];
  }
  return null;
}

/** The pull request's number: PLANLENS_PR, else the event's pull_request (or issue) number. */
export function pullRequestNumber(env = process.env) {
  if (env.PLANLENS_PR) return Number(env.PLANLENS_PR);
  if (!env.GITHUB_EVENT_PATH) return null;
  const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8"));
  return event.pull_request?.number ?? (event.issue?.pull_request ? event.issue.number : null) ?? null;
}

async function main(argv) {
  const [command, ...args] = argv;
  if (command === "exit-code" && args.length === 2) {
    console.log(jobExitCode(args[0], args[1]));
    return 0;
  }
  if (command === "comment" && (args.length === 1 || (args.length === 3 && args[1] === "--key"))) {
    const number = pullRequestNumber();
    if (!number) {
      console.log("planlens: not a pull request: no comment posted");
      return 0;
    }
    const body = readFileSync(args[0], "utf8");
    try {
      const client = github({
        api: process.env.GITHUB_API_URL || undefined,
        token: process.env.GITHUB_TOKEN,
        repository: process.env.GITHUB_REPOSITORY,
      });
      const done = await upsertComment(client, number, body, args[2]);
      console.log(`planlens: comment ${done.action} on #${number}${done.url ? `: ${done.url}` : ""}`);
      return 0;
    } catch (e) {
      // A workflow warning: a read-only token (a fork's pull request) must not hide the verdict.
      console.log(`::warning title=Planlens comment not posted::${e.message}`);
      return 1;
    }
  }
  if (command === "previous-link" && (args.length === 1 || (args.length === 3 && args[1] === "--key"))) {
    // Prints the last push's link, or nothing: a first push, no token, or an error all mean the
    // comment is made without "Since the last plan".
    const number = pullRequestNumber();
    if (!number) return 0;
    try {
      const client = github({
        api: process.env.GITHUB_API_URL || undefined,
        token: process.env.GITHUB_TOKEN,
        repository: process.env.GITHUB_REPOSITORY,
      });
      const link = await previousLink(client, number, args[0], args[2]);
      if (link) console.log(link);
    } catch (e) {
      console.error(`planlens: the last comment could not be read (${e.message}): no "since the last plan"`);
    }
    return 0;
  }
  console.error(
    "usage: planlens-action.mjs comment BODY_FILE [--key KEY] | previous-link SITE [--key KEY] | exit-code CHECK_EXIT FAIL_ON",
  );
  return 64;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2)).catch((e) => {
    console.error(`planlens-action: ${e.message}`);
    return 1;
  });
}
