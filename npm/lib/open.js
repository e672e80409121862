// `planlens open PLAN… [--rules FILE] [--label K=V]… [--mask PATTERN]… [--port N] [--no-browser]`
//
// A local review with no site anywhere: serves the packaged app and the named plans on
// 127.0.0.1 (a random port unless --port), prints one address per plan on stdout and opens the
// first in a browser where one is available (not under CI=true, not with --no-browser). WASI
// preview 1 has no sockets, so this is Node's part; the CLI makes each address: `planlens link
// PLAN --base ORIGIN --plan-url ORIGIN/plans/N/NAME` with the same --rules, --label and --mask, a
// `?url=` link the app opens by fetching the plan from this server. So a plan of any size opens
// (nothing of it is in the address), and a plan the CLI cannot read is refused here with the
// CLI's message and exit code. Ctrl+C stops the server.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TYPES } from "./types.js";
import { SITE } from "./wasi.js";

const LAUNCHER = fileURLToPath(new URL("../bin/planlens.js", import.meta.url));

const USAGE = `usage:
  planlens open PLAN… [--rules FILE] [--label K=V]… [--mask PATTERN]… [--port N] [--no-browser]
                                                 serves the packaged Planlens app and the plans on
                                                 127.0.0.1 and prints one address per plan (the
                                                 first opens in a browser unless --no-browser or
                                                 CI=true); Ctrl+C stops it. PLAN as for summary
                                                 (- reads standard input)`;

/** The arguments: plans, what goes to `link` as it is, the port and whether to open a browser. */
function parse(args) {
  const parsed = { plans: [], pass: [], port: 0, browser: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--rules" || arg === "--label" || arg === "--mask") {
      if (i + 1 >= args.length) return null;
      parsed.pass.push(arg, args[++i]);
    } else if (arg === "--port") {
      const port = Number(args[++i]);
      if (!Number.isInteger(port) || port < 0 || port > 65535) return null;
      parsed.port = port;
    } else if (arg === "--no-browser") {
      parsed.browser = false;
    } else if (arg.startsWith("--")) {
      return null;
    } else {
      parsed.plans.push(arg);
    }
  }
  return parsed.plans.length ? parsed : null;
}

/** Opens `url` in the system's browser when there is one to open; never fails. */
function openBrowser(url) {
  if (process.env.CI === "true") return;
  let command;
  if (process.platform === "darwin") command = ["open", [url]];
  else if (process.platform === "win32") command = ["rundll32", ["url.dll,FileProtocolHandler", url]];
  else if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) command = ["xdg-open", [url]];
  else return;
  const child = spawn(command[0], command[1], { stdio: "ignore", detached: true });
  child.on("error", () => {});
  child.unref();
}

/** Serves the site's files and the plans (read afresh at each request). */
function server(plans, origin) {
  const site = path.resolve(SITE);
  return http.createServer(async (req, res) => {
    const send = (status, body, type = "text/plain; charset=utf-8") => {
      res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    // Only this address: a page elsewhere cannot reach the plans through another host name.
    if (req.headers.host !== origin().host) return send(403, "forbidden\n");
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed\n");
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, "http://x").pathname);
    } catch {
      return send(400, "bad request\n");
    }
    const plan = /^\/plans\/(\d+)\//.exec(pathname);
    if (plan) {
      const entry = plans[Number(plan[1])];
      if (!entry) return send(404, "not found\n");
      try {
        const bytes = entry.bytes ?? (await readFile(entry.path));
        return send(200, bytes, entry.path.endsWith(".json") ? "application/json" : "application/octet-stream");
      } catch (e) {
        return send(404, `${e.message}\n`);
      }
    }
    let file = path.resolve(site, `.${pathname}`);
    if (file !== site && !file.startsWith(site + path.sep)) return send(404, "not found\n");
    try {
      if ((await stat(file)).isDirectory()) file = path.join(file, "index.html");
      send(200, await readFile(file), TYPES[path.extname(file)] ?? "application/octet-stream");
    } catch {
      send(404, "not found\n");
    }
  });
}

/** Runs `planlens open` with `args` (after `open`); resolves to the exit code when it stops. */
export async function open(args) {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const options = parse(args);
  if (!options) {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  let stdin;
  const plans = options.plans.map((p) => {
    if (p !== "-") return { path: p, name: path.basename(p) };
    stdin ??= readFileSync(0);
    return { path: p, name: "plan.json", bytes: stdin };
  });

  let address;
  const srv = server(plans, () => address);
  await new Promise((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(options.port, "127.0.0.1", resolve);
  }).catch((e) => {
    process.stderr.write(`planlens: cannot serve on 127.0.0.1:${options.port}: ${e.message}\n`);
    process.exit(3);
  });
  address = new URL(`http://127.0.0.1:${srv.address().port}/`);

  const links = [];
  for (const [i, plan] of plans.entries()) {
    const planUrl = new URL(`plans/${i}/${encodeURIComponent(plan.name)}`, address).href;
    const link = spawnSync(
      process.execPath,
      [LAUNCHER, "link", plan.path, ...options.pass, "--base", address.href, "--plan-url", planUrl],
      { input: plan.bytes, stdio: ["pipe", "pipe", "inherit"], maxBuffer: 1 << 30 },
    );
    if (link.status !== 0) {
      srv.close();
      return link.status ?? 3;
    }
    links.push(link.stdout.toString().trim());
  }
  process.stdout.write(links.map((l) => `${l}\n`).join(""));
  process.stderr.write(
    `planlens: serving the app and ${plans.length === 1 ? "the plan" : `${plans.length} plans`} on ${address.href} until Ctrl+C\n`,
  );
  if (options.browser) openBrowser(links[0]);

  return new Promise((resolve) => {
    const stop = () => {
      srv.close();
      srv.closeAllConnections();
      resolve(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
