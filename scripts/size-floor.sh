#!/usr/bin/env bash
# Prints the gzip -6 size of two modules that bound the first visit from below (README, "Size"):
# examples/size_floor_open.rs (opening and grading a plan, no view) and
# examples/size_floor_leptos.rs (Leptos' runtime, no view of ours), each built as the app is
# (release profile, wasm-bindgen --target web, wasm-opt -Oz), beside the app's own first-visit
# module when dist/ holds a build. Not a test: a measurement. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet --target wasm32-unknown-unknown --example size_floor_open --example size_floor_leptos
gz() { gzip -6 -c "$1" | wc -c; }
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB (%d B)", b / 1024, b }'; }
for name in size_floor_open size_floor_leptos; do
  wasm-bindgen --target web --out-dir "$out/$name" "target/wasm32-unknown-unknown/release/examples/$name.wasm"
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types \
    "$out/$name/${name}_bg.wasm" -o "$out/$name/opt.wasm"
  wasm=$(gz "$out/$name/opt.wasm")
  glue=$(gz "$out/$name/$name.js")
  printf '%-18s wasm %s + glue %s = %s\n' "$name" "$(kib "$wasm")" "$(kib "$glue")" "$(kib $((wasm + glue)))"
done
if ls dist/planlens-web-*_bg.wasm >/dev/null 2>&1; then
  wasm=$(gz dist/planlens-web-*_bg.wasm)
  glue=$(gz "$(ls dist/planlens-web-*.js | head -1)")
  printf '%-18s wasm %s + glue %s = %s\n' "planlens-web" "$(kib "$wasm")" "$(kib "$glue")" "$(kib $((wasm + glue)))"
fi
