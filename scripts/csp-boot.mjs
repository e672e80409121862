// Trunk post-build hook: replaces Trunk's inline start-up <script type="module"> with a file of our
// own (so the Content-Security-Policy in index.html can say script-src 'self': no inline scripts)
// that paints a share link's glance before the app loads, then starts the app, and registers the
// service worker.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error("TRUNK_STAGING_DIR is not set: run this as a Trunk post_build hook");
const indexPath = join(dir, "index.html");
let html = readFileSync(indexPath, "utf8");
// After the app has started, the boot script registers the service worker that
// scripts/service-worker.mjs writes beside it (sw.js, scoped to the site's root, which is where
// the boot script itself is: `/` or a sub-path such as `/planlens/`). Only on http(s): a page
// opened from disk (file://) or built from blob: URLs has no service worker to register.
const REGISTER = `
if ("serviceWorker" in navigator && /^https?:$/.test(location.protocol)) {
  const root = new URL("./", import.meta.url);
  if (root.origin === location.origin) {
    navigator.serviceWorker.register(new URL("sw.js", root), { scope: root.pathname }).catch((error) => {
      console.warn("Planlens will not work offline: the service worker was not registered.", error);
    });
  }
}
`;
// The app's files, as Trunk linked them: its glue (a module preload) and its wasm (a preload).
// Both preloads go: they would start the app's 2 MB download at once, before a share link's first
// paint, which must come first. The boot script fetches them instead (below); the tags stay in the
// page with a rel that fetches nothing (`planlens-glue`, `planlens-wasm`), where `planlens report`
// (crates/cli/src/report) and the app's worker (src/ui/backend.rs) look for them.
const href = (rel) => {
  const tag = html.match(new RegExp(`<link rel="${rel}" href="([^"]+)"[^>]*>`));
  if (!tag) throw new Error(`no <link rel="${rel}"> in index.html; did Trunk's output change?`);
  return tag[1];
};
const glue = href("modulepreload");
const wasmFile = [...html.matchAll(/<link rel="preload" href="([^"]+\.wasm)"[^>]*>/g)].map((m) => m[1]);
if (wasmFile.length !== 1) throw new Error("expected one wasm preload in index.html");
// The first paint's glue (6 KB of gzip) is preloaded instead, on every visit: a link's first paint
// then waits for one round trip fewer, and a visit without a link loses nothing it would notice.
const glanceGlue = glue.replace(/[^/]*$/, "planlens-glance.js");
html = html
  .replace(/<link rel="modulepreload" href="([^"]+)"[^>]*>/, `<link rel="planlens-glue" href="$1"><link rel="modulepreload" href="${glanceGlue}">`)
  .replace(/<link rel="preload" href="([^"]+\.wasm)"[^>]*>/, '<link rel="planlens-wasm" href="$1">');

// The start-up: a share link that carries a glance (`g=`, next to its plan) is painted first by the
// small first-paint module (src/glance.rs, `planlens-glance.js` beside the glue), and only once
// that is on screen does the app's download begin; any other address starts the app at once, its
// wasm fetched beside its glue. If the first paint fails, the app opens the link as always.
const BOOT = `// Planlens' start-up, written by scripts/csp-boot.mjs.
// An async module: the page may still be parsing (it is a few lines; this arrives after it).
if (document.readyState === "loading") {
  await new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
}
const glue = new URL(${JSON.stringify(glue)}, location.href).href;
const wasmUrl = new URL(${JSON.stringify(wasmFile[0])}, location.href).href;
window.planlensGlueUrl = glue;
const key = (name) => new RegExp("(^#|&)" + name + "=").test(location.hash);
if (key("g") && key("p")) {
  try {
    // The module's wasm is fetched while its glue (preloaded by the page) is imported.
    const wasmOfGlance = fetch(new URL("planlens-glance_bg.wasm", glue).href);
    const glance = await import(new URL("planlens-glance.js", glue).href);
    await glance.default({ module_or_path: wasmOfGlance });
    // Let the glance reach the screen before the app's download takes the network.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  } catch (error) {
    console.warn("Planlens: the link's first paint failed; the app opens the link.", error);
  }
}
const wasmResponse = fetch(wasmUrl);
const bindings = await import(glue);
const wasm = await bindings.default({ module_or_path: wasmResponse });
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent("TrunkApplicationStarted", { detail: { wasm } }));
`;

const inline = /<script type="module"([^>]*)>([\s\S]*?)<\/script>/g;
let count = 0;
html = html.replace(inline, (whole, attrs, body) => {
  if (/\bsrc=/.test(attrs)) return whole;
  // Trunk's own start-up imports the glue and awaits init() with the wasm: BOOT does the same.
  if (!body.includes("module_or_path")) throw new Error("Trunk's start-up script changed: check BOOT");
  const text = BOOT + REGISTER;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const name = `boot-${hash}.js`;
  writeFileSync(join(dir, name), text);
  count += 1;
  const publicUrl = process.env.TRUNK_PUBLIC_URL || "/";
  // async: it starts as soon as it has arrived, not after the style sheet (a deferred script waits
  // for it), so a link's first paint fetches its module one style sheet's download earlier.
  return `<script type="module" async src="${publicUrl}${name}"></script>`;
});
// Trunk's nonce placeholder means nothing without a server filling it in.
html = html.replace(/ nonce="[^"]*"/g, "");
if (count === 0) throw new Error("no inline start-up script found in index.html; did Trunk's output change?");
writeFileSync(indexPath, html);
console.log(`csp-boot: moved ${count} inline script(s) to files`);
