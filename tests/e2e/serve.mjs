// A small static file server for the built site (dist/), used by `scripts/start.sh`, the browser
// tests and the benchmark. Serves only files under the root, on 127.0.0.1.
import { createServer } from "node:http";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { TYPES } from "../../npm/lib/types.js";

/** What GitHub Pages sends gzip-compressed (of the types this site has). */
const GZIP_TYPES = new Set([".html", ".js", ".mjs", ".css", ".wasm", ".json"]);

/**
 * Starts serving `root` under `prefix` (e.g. "/" or "/planlens/"); resolves to the server.
 * Test options: `cors` adds `Access-Control-Allow-Origin: *` (a CI artifact host that allows
 * other sites to read its files); `chunkDelay` sends files in 16 KB pieces this many ms apart (a
 * slow network, so progress can be seen); `gzip` sends .html, .js, .mjs, .css, .wasm and .json with
 * `Content-Encoding: gzip` (zlib level 6) to clients that accept it, as GitHub Pages does, so the
 * benchmark's first visit downloads what a visitor downloads; `maxAge` sends `Cache-Control:
 * max-age=N` instead of `no-cache` (GitHub Pages sends max-age=600).
 */
export function serve(root, { port = 0, host = "127.0.0.1", prefix = "/", cors = false, chunkDelay = 0, gzip = false, maxAge = 0 } = {}) {
  const base = resolve(root);
  // Compressed once per file version, as a host's cache would: compressing is not part of a visit.
  const compressed = new Map(); // path -> { mtimeMs, size, body }
  const gzipped = (file, stat) => {
    const hit = compressed.get(file);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.body;
    const body = gzipSync(readFileSync(file), { level: 6 });
    compressed.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, body });
    return body;
  };
  const server = createServer((req, res) => {
    if (cors) res.setHeader("access-control-allow-origin", "*");
    const url = new URL(req.url, "http://localhost");
    let path = decodeURIComponent(url.pathname);
    if (!path.startsWith(prefix)) {
      res.writeHead(404).end("not found");
      return;
    }
    path = path.slice(prefix.length);
    if (path === "" || path.endsWith("/")) path += "index.html";
    const file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403).end("forbidden");
      return;
    }
    let stat;
    try {
      stat = statSync(file);
    } catch {
      res.writeHead(404).end("not found");
      return;
    }
    if (!stat.isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    const encode = gzip && GZIP_TYPES.has(extname(file)) && /\bgzip\b/.test(req.headers["accept-encoding"] || "");
    const body = encode ? gzipped(file, stat) : null;
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] || "application/octet-stream",
      "content-length": body ? body.length : stat.size,
      "cache-control": maxAge > 0 ? `max-age=${maxAge}` : "no-cache",
      ...(gzip ? { vary: "accept-encoding" } : {}),
      ...(body ? { "content-encoding": "gzip" } : {}),
    });
    if (chunkDelay > 0) {
      const data = body || readFileSync(file);
      let at = 0;
      const next = () => {
        if (at >= data.length) return res.end();
        res.write(data.subarray(at, at + 16384));
        at += 16384;
        setTimeout(next, chunkDelay);
      };
      next();
      return;
    }
    if (body) {
      res.end(body);
      return;
    }
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, host, () => ok(server)));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] || "dist";
  const port = Number(process.argv[3] || 8080);
  const server = await serve(root, { port });
  console.log(`Planlens is at http://127.0.0.1:${server.address().port}/  (Ctrl-C stops)`);
}
