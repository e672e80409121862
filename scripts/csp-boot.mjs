// Trunk post-build hook: moves Trunk's inline start-up <script type="module"> into its own file,
// so the Content-Security-Policy in index.html can say script-src 'self' (no inline scripts), and
// adds the service worker's registration to it.
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
const inline = /<script type="module"([^>]*)>([\s\S]*?)<\/script>/g;
let count = 0;
html = html.replace(inline, (whole, attrs, body) => {
  if (/\bsrc=/.test(attrs)) return whole;
  const text = body.trim() + "\n" + REGISTER;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const name = `boot-${hash}.js`;
  writeFileSync(join(dir, name), text);
  count += 1;
  const publicUrl = process.env.TRUNK_PUBLIC_URL || "/";
  return `<script type="module" src="${publicUrl}${name}"></script>`;
});
// Trunk's nonce placeholder means nothing without a server filling it in.
html = html.replace(/ nonce="[^"]*"/g, "");
if (count === 0) throw new Error("no inline start-up script found in index.html; did Trunk's output change?");
writeFileSync(indexPath, html);
console.log(`csp-boot: moved ${count} inline script(s) to files`);
