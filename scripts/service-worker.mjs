// Trunk post-build hook (run after csp-boot.mjs, in the same hook: Trunk starts the hooks of one
// stage all at once, not in order): writes `sw.js`, the service worker that lets the site work with
// no network after one visit.
//
// It lists every file of the build (Trunk's hashed glue, wasm and CSS, the boot script, index.html,
// samples/, and anything else there, such as a worker script or lazily loaded parts) and carries a
// version derived from their names and contents, so every deploy that changes any file yields a
// different sw.js, which the browser installs beside the old one. The worker:
// - on install, fetches every listed file into a cache named after its scope and version (a file
//   whose name carries its hash from the HTTP cache the page has just filled, the others past it),
//   and takes over at once (`skipWaiting`, `clients.claim`) — except the lazily loaded parts
//   (`part-*`: the Rego engine, the YAML reader) and a share link's first paint
//   (`planlens-glance_bg.wasm`), which most visits never use: those are kept the first time the
//   page fetches one (cache-first like the rest), not before. That holds for the readers' part too
//   (`part-readers`: text plans, states, plan logs, driftctl reports; 254 KiB of gzip): fetching it
//   on install would add it to every first visit, for a file most visits never open. Offline, a
//   file whose part was never used says so (src/worker.rs), and a link opens without its first
//   paint;
// - on activate, deletes the caches of older versions *of its own scope* (two sites under
//   different sub-paths of one origin keep theirs);
// - answers GET requests for listed files from the cache (network only if the cache lost one);
// - answers the page itself (index.html, navigations to the site's address, with or without a
//   query such as `?url=`) from the network first, so a new deploy is picked up on the next
//   visit, and from the cache when the network fails;
// - leaves everything else alone: other origins (a `?url=` plan fetched from elsewhere), requests
//   that are not GET (none carry a body), and same-origin files it did not list are never cached.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error("TRUNK_STAGING_DIR is not set: run this as a Trunk post_build hook");
const NAME = "sw.js";

/** Every file under `root`, as URL paths relative to it, sorted (the version must not depend on order). */
function filesUnder(root) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      // Dot files are no part of the site (Trunk keeps none there; an editor's might be).
      if (entry.name.startsWith(".")) continue;
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(root, path).split(sep).join("/"));
    }
  };
  walk(root);
  return out.filter((f) => f !== NAME).sort();
}

const files = filesUnder(dir);
/**
 * A file most visits never use, kept the first time it is fetched rather than on install: a lazily
 * loaded part of the app (a `part-*` binary's glue and wasm, named by Trunk), and the module of a
 * share link's first paint (`planlens-glance_bg.wasm`, 87 KiB of gzip; its 6 KiB glue is preloaded
 * by every visit anyway). Offline, a link whose first paint was never fetched opens without it.
 */
function keptOnFirstUse(file) {
  return /^part-[a-z0-9-]+(\.js|_bg\.wasm)$/.test(file) || file === "planlens-glance_bg.wasm";
}
if (!files.includes("index.html")) throw new Error(`service-worker: no index.html in ${dir}; did Trunk's output change?`);
if (!files.some((f) => /^boot-[0-9a-f]+\.js$/.test(f))) {
  throw new Error("service-worker: no boot-*.js beside index.html; csp-boot.mjs must run first (same hook)");
}

// The version: the names and contents of every file. Trunk's hashed names already change with
// their contents; index.html, samples/ and the boot script are hashed here.
const version = createHash("sha256");
for (const f of files) {
  version.update(f).update("\0");
  version.update(createHash("sha256").update(readFileSync(join(dir, f))).digest()).update("\0");
}
const VERSION = version.digest("hex").slice(0, 16);

// Paths are relative to sw.js, which sits at the site's root (the public URL), so the same text
// works at `/` and under a sub-path such as `/planlens/`.
const worker = `// Planlens service worker, written by scripts/service-worker.mjs at build time: do not edit.
// Keeps this build's own files so the site works with no network after one visit.
"use strict";
const VERSION = ${JSON.stringify(VERSION)};
const FILES = ${JSON.stringify(files, null, 1).replace(/\n\s*/g, " ")};
// Lazily loaded parts and a link's first paint: cached on first use, not on install.
const LATER = new Set(${JSON.stringify(files.filter(keptOnFirstUse), null, 1).replace(/\n\s*/g, " ")});
// The site's root: where this file is (the boot script registers it with that scope).
const ROOT = new URL("./", self.location).href;
const PREFIX = "planlens " + self.registration.scope + " ";
const CACHE = PREFIX + VERSION;
const OWN = new Set(FILES.map((f) => new URL(f, ROOT).href));
const INDEX = new URL("index.html", ROOT).href;
const PAGES = new Set([ROOT, INDEX]);

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // A file whose name carries its content's hash (Trunk's boot script, glue, wasm and style)
      // is taken from the HTTP cache when the page has just downloaded it (the wasm is a
      // megabyte: not twice on a first visit); the others past it, since a host may let it keep
      // the previous deploy's index.html, worker.js or samples for minutes. Trunk writes the hash
      // as hex without leading zeros: up to 16 digits, fewer now and then (14 seen).
      const now = FILES.filter((f) => !LATER.has(f));
      const mode = (f) => (/-[0-9a-f]{8,16}(?:_bg)?\\.[a-z]+$/.test(f) ? "default" : "reload");
      await cache.addAll(now.map((f) => new Request(new URL(f, ROOT), { cache: mode(f) })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  url.hash = "";
  const bare = url.origin + url.pathname;
  if (PAGES.has(bare) && (request.mode === "navigate" || url.search === "")) {
    event.respondWith(networkFirst(request));
  } else if (url.search === "" && OWN.has(bare)) {
    event.respondWith(cacheFirst(request, bare));
  }
});

/** The page: the network's answer if there is one (a new deploy), else this version's copy. */
async function networkFirst(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const cached = await (await caches.open(CACHE)).match(INDEX);
    if (cached) return cached;
    throw error;
  }
}

/** A listed file: hashed names never change their contents, so the cache's copy is the file. */
async function cacheFirst(request, url) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(url);
  if (cached) return cached;
  // The browser may have evicted the cache; fetch the file and keep it again.
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await cache.put(url, response.clone());
  return response;
}
`;
writeFileSync(join(dir, NAME), worker);
console.log(`service-worker: ${NAME} version ${VERSION}, ${files.length} file(s)`);
