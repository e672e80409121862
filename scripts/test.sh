#!/usr/bin/env bash
# Runs every check and test: formatting, clippy (native and wasm32), the core's tests over the real
# and hand-written fixtures, the release build (at / and at the sub-path /planlens/), and the
# npm package (scripts/package.sh, scripts/npm-test.sh), the GitHub Action's script, and the
# real-browser tests (Playwright on Chromium).
# Installs what is missing first (scripts/setup.sh). Real-plan tests skip, saying so, when
# ../shared/fixtures/real is not beside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$PATH"

printf '\n== cargo fmt --check\n'
cargo fmt --all -- --check
printf '\n== cargo clippy (native: core, CLI, tests)\n'
cargo clippy --all-targets --quiet -- -D warnings
printf '\n== cargo clippy (wasm32: the browser UI and its lazily loaded parts)\n'
cargo clippy --target wasm32-unknown-unknown -p planlens -p planlens-part-yaml -p planlens-part-rego \
  -p planlens-part-readers --features planlens-part-readers/part --lib --bins --quiet -- -D warnings
printf '\n== cargo test\n'
cargo test
printf '\n== Rego policies: the same findings as OPA (scripts/opa_diff.py; OPA from PyPI, cached in .cache/opa)\n'
if command -v python3 >/dev/null; then python3 scripts/opa_diff.py; else echo "opa_diff: SKIPPED (no python3)"; fi
printf '\n== trunk build --release\n'
trunk build --release
printf '\n== trunk build --release for a sub-path (/planlens/, as GitHub Pages serves a fork)\n'
trunk build --release --public-url /planlens/ --dist dist-sub
printf '\n== the GitHub Action'"'"'s script against a fake GitHub API (tests/action)\n'
node --test tests/action/
printf '\n== the npm package: packed, installed with no Rust on PATH, compared with the native CLI\n'
scripts/package.sh --allow-dirty
cargo build --quiet --bin planlens    # the native CLI to compare with (cargo test built it already)
NPM_INSTALL="$PWD/tmp/npm-install"
scripts/npm-test.sh "${CARGO_TARGET_DIR:-target}/debug/planlens" "$NPM_INSTALL"
# tests/e2e/npm_open.spec.mjs runs `planlens open` from the installed package.
export PLANLENS_NPM_BIN="$NPM_INSTALL/node_modules/.bin/planlens"
printf '\n== browser tests (Playwright, /usr/bin/chromium)\n'
npx playwright test
