#!/usr/bin/env bash
# Builds the npm package `planlens` (npm/): the CLI compiled to wasm32-wasip1 (release, LTO, then
# `wasm-opt -Oz`), its Node launcher, and the release site (`trunk build --release`), packed with
# `npm pack` into dist-npm/planlens-VERSION.tgz. Nothing in it needs Rust or a download to run.
#
#   scripts/package.sh [--version X.Y.Z] [--allow-dirty]
#
# The package is built from the committed tree: it refuses uncommitted changes unless
# --allow-dirty (scripts/test.sh tests the working tree, so it passes it), and it starts from an
# empty dist-npm/ each time. --version sets the package's version (the release workflow gives the
# tag's); by default the workspace's. Needs what scripts/setup.sh installs (the wasm32-wasip1
# target, trunk, wasm-bindgen, node_modules/.bin/wasm-opt).
set -euo pipefail
cd "$(dirname "$0")/.."

ALLOW_DIRTY=false
VERSION=""
while [ $# -gt 0 ]; do
  case "$1" in
    --allow-dirty) ALLOW_DIRTY=true ;;
    --version) VERSION="${2:?--version needs a value}"; shift ;;
    *) echo "usage: scripts/package.sh [--version X.Y.Z] [--allow-dirty]" >&2; exit 64 ;;
  esac
  shift
done
if ! $ALLOW_DIRTY && [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
  echo "scripts/package.sh: the tree has uncommitted changes; commit them (or pass --allow-dirty)" >&2
  git status --short >&2
  exit 1
fi
if [ -z "$VERSION" ]; then
  VERSION=$(awk '/^\[workspace.package\]/ { w = 1 } w && /^version = / { gsub(/version = |"/, ""); print; exit }' Cargo.toml)
fi
export PATH="$PWD/node_modules/.bin:$PATH"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
OUT="$PWD/dist-npm"
STAGE="$OUT/package"
rm -rf "$OUT"
mkdir -p "$STAGE"

printf '\n== the CLI for wasm32-wasip1 (release)\n'
cargo build --release --locked -p planlens-cli --target wasm32-wasip1
RAW="$TARGET/wasm32-wasip1/release/planlens.wasm"
printf '\n== wasm-opt -Oz\n'
# -Oz: 20 % smaller than rustc's output and as fast (README, "The npm package").
wasm-opt -Oz --strip-debug --strip-producers "$RAW" -o "$STAGE/planlens.wasm"

printf '\n== the site (trunk build --release)\n'
trunk build --release --dist "$STAGE/site"

printf '\n== npm pack\n'
cp -R npm/bin npm/lib npm/README.md "$STAGE/"
node -e '
  const fs = require("fs");
  const [src, dst, version] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(src, "utf8"));
  pkg.version = version;
  fs.writeFileSync(dst, JSON.stringify(pkg, null, 2) + "\n");
' npm/package.json "$STAGE/package.json" "$VERSION"
(cd "$STAGE" && npm pack --silent --pack-destination "$OUT" >/dev/null)
TARBALL="$OUT/planlens-$VERSION.tgz"
[ -f "$TARBALL" ] || { echo "scripts/package.sh: npm pack wrote no $TARBALL" >&2; exit 1; }

kb() { echo "$(( ($1 + 999) / 1000 )) KB"; }
echo "$TARBALL: $(kb "$(wc -c < "$TARBALL")") compressed, $(kb "$(du -sb "$STAGE" | cut -f1)") installed" \
  "(planlens.wasm $(kb "$(wc -c < "$STAGE/planlens.wasm")"), site $(kb "$(du -sb "$STAGE/site" | cut -f1)"))"
