#!/usr/bin/env bash
# Installs everything Planlens needs to build and test, from crates.io, npm and Debian packages only.
# Idempotent: each step is skipped when what it installs is already there at the right version.
#
#   scripts/setup.sh                everything: what the build, the tests and the benchmarks need
#   scripts/setup.sh --build-only   everything except Chromium, which only the browser tests and the
#                                   benchmarks use (the GitHub Pages workflow builds this way); npm ci
#                                   still runs, for wasm-opt
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_ONLY=false
for arg in "$@"; do
  case "$arg" in
    --build-only) BUILD_ONLY=true ;;
    *) echo "usage: scripts/setup.sh [--build-only]" >&2; exit 64 ;;
  esac
done

TRUNK_VERSION=0.21.14
step() { printf '\n== %s\n' "$*"; }

# wasm32-unknown-unknown: the browser app; wasm32-wasip1: the CLI of the npm package.
for target in wasm32-unknown-unknown wasm32-wasip1; do
  step "Rust target $target"
  if rustup target list --installed | grep -qx "$target"; then
    echo "present"
  else
    rustup target add "$target"
  fi
done

step "Chromium (Debian) for the browser tests and benchmarks"
if $BUILD_ONLY; then
  echo "skipped (--build-only)"
elif [ -x /usr/bin/chromium ]; then
  echo "present: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  echo "installed: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
fi

step "trunk $TRUNK_VERSION (cargo install: about 8 minutes the first time)"
if trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION"; then
  echo "present"
else
  # 0.22.x needs a newer rustc than 1.95; --locked keeps its tested dependency versions.
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi

# wasm-bindgen-cli must equal the wasm-bindgen in Cargo.lock, or Trunk would try to download one.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
if wasm-bindgen --version 2>/dev/null | grep -q "wasm-bindgen $WASM_BINDGEN_VERSION"; then
  echo "present"
else
  # Not --locked: its lockfile wants a webpki-roots the registry lacks (../shared/TOOLCHAIN.md).
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

step "npm packages: wasm-opt (binaryen 132), Playwright, marked (renders the PR comment in a test)"
if [ -x node_modules/.bin/wasm-opt ] && [ -x node_modules/.bin/playwright ] && [ -f node_modules/marked/package.json ] \
   && node -e 'process.exit(require("./node_modules/binaryen/package.json").version === "132.0.0" ? 0 : 1)'; then
  echo "present"
else
  # Never `npx playwright install`: the tests drive Debian's /usr/bin/chromium.
  npm ci --no-audit --no-fund
fi

step "crates for offline builds"
cargo fetch --quiet
echo "done"
