#!/usr/bin/env bash
# Tests the npm package the way a user gets it: installs dist-npm/planlens-*.tgz (scripts/package.sh)
# into an empty folder with no Rust on PATH (only node and npm) and compares what the packaged CLI
# prints, and its exit code, with the native CLI's on every input scripts/cli-outputs.sh knows
# (tests/fixtures, samples and ../shared/fixtures/real when it is beside the repository, else
# those say SKIPPED), every command, byte for byte; then the cases that script does not cover
# (standard input, a missing file, usage, help, `report` with the packaged app).
#
#   scripts/npm-test.sh NATIVE_BIN [INSTALL_DIR]
#
# INSTALL_DIR (default: a temporary folder, removed at the end) keeps the installed package, for
# the browser test of `planlens open` (tests/e2e/npm_open.spec.mjs, PLANLENS_NPM_BIN).
set -euo pipefail
cd "$(dirname "$0")/.."

NATIVE="$(realpath "${1:?usage: scripts/npm-test.sh NATIVE_BIN [INSTALL_DIR]}")"
TARBALL=$(ls dist-npm/planlens-*.tgz 2>/dev/null | head -1)
[ -n "$TARBALL" ] || { echo "scripts/npm-test.sh: no dist-npm/planlens-*.tgz; run scripts/package.sh" >&2; exit 1; }
TARBALL="$(realpath "$TARBALL")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
INSTALL="${2:-$WORK/install}"
rm -rf "$INSTALL"
mkdir -p "$INSTALL" "$WORK/bin"

# A PATH with node and npm only: nothing of Rust (cargo, rustc, rustup) can be found on it.
ln -s "$(command -v node)" "$WORK/bin/node"
ln -s "$(command -v npm)" "$WORK/bin/npm"
NO_RUST_PATH="$WORK/bin:/usr/bin:/bin"
if PATH="$NO_RUST_PATH" command -v cargo rustc rustup >/dev/null 2>&1; then
  echo "scripts/npm-test.sh: Rust is on $NO_RUST_PATH; the test needs a PATH without it" >&2
  exit 1
fi

printf '\n== npm install %s (an empty folder, no Rust on PATH)\n' "$(basename "$TARBALL")"
# A package.json of its own: without one, npm installs into the nearest folder above that has one
# (the repository itself, when INSTALL is inside it).
printf '{ "name": "planlens-install-test", "private": true }\n' > "$INSTALL/package.json"
(cd "$INSTALL" && PATH="$NO_RUST_PATH" npm install --no-audit --no-fund --no-save --silent "$TARBALL")
[ -x "$INSTALL/node_modules/.bin/planlens" ] || { echo "scripts/npm-test.sh: npm did not install planlens into $INSTALL" >&2; exit 1; }
PKG_BIN="$INSTALL/node_modules/.bin/planlens"
echo "installed: $(du -sb "$INSTALL/node_modules/planlens" | cut -f1) bytes"

if [ ! -d ../shared/fixtures/real ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "scripts/npm-test.sh: ../shared/fixtures/real is absent under CI=true" >&2
    exit 1
  fi
  echo "real plans: SKIPPED (../shared/fixtures/real is not beside the repository)"
fi

printf '\n== every input, every command: the packaged CLI against the native one\n'
start=$(date +%s)
scripts/cli-outputs.sh "$NATIVE" "$WORK/native" >/dev/null
# Two at a time: a packaged run costs ~0.15 s (Node's start and compiling the module), 2,000 of them.
for shard in 1/2 2/2; do
  PATH="$NO_RUST_PATH" CLI_OUTPUTS_SHARD=$shard scripts/cli-outputs.sh "$PKG_BIN" "$WORK/npm" >/dev/null &
done
wait
if ! diff -r "$WORK/native" "$WORK/npm" > "$WORK/diff"; then
  head -50 "$WORK/diff"
  echo "FAIL: the packaged CLI's output differs from the native CLI's ($(grep -c '^diff' "$WORK/diff") files)" >&2
  exit 1
fi
echo "identical: $(ls "$WORK/npm" | wc -l) outputs ($(( $(date +%s) - start )) s for both)"

printf '\n== standard input, errors, usage, help, report\n'
PLAN=samples/web-app-replace.json
failed=0
same() { # NAME STDIN_FILE ARGS…: stdout, stderr and exit code equal
  local name="$1" input="$2"; shift 2
  local a="$WORK/case.native" b="$WORK/case.npm"
  local code=0
  "$NATIVE" "$@" <"$input" >"$a.out" 2>"$a.err" || code=$?
  echo "$code" >"$a.code"
  code=0
  PATH="$NO_RUST_PATH" "$PKG_BIN" "$@" <"$input" >"$b.out" 2>"$b.err" || code=$?
  echo "$code" >"$b.code"
  if cmp -s "$a.out" "$b.out" && cmp -s "$a.err" "$b.err" && cmp -s "$a.code" "$b.code"; then
    echo "ok   $name (exit $(cat "$a.code"))"
  else
    echo "FAIL $name: native exit $(cat "$a.code"), package exit $(cat "$b.code")"
    diff "$a.err" "$b.err" | head -5 || true
    failed=1
  fi
}
same "summary from standard input" "$PLAN" summary -
same "check --format json from standard input" "$PLAN" check - --format json
same "a missing file" /dev/null summary no-such-plan.json
same "a relative path with .." /dev/null summary "../$(basename "$PWD")/$PLAN"
same "an absolute path" /dev/null check "$PWD/$PLAN"
same "no arguments (usage, 64)" /dev/null
same "an unknown subcommand (usage, 64)" /dev/null frobnicate "$PLAN"
same "--help" /dev/null --help
same "check --help" /dev/null check --help
same "--mask" /dev/null link "$PLAN" --base https://example.test/ --mask '*_pin'
same "a rule file with errors (3)" /dev/null check "$PLAN" --rules tests/fixtures/rules/broken.toml
# The packaged app is the default for report: the file equals the native CLI's from the same app.
SITE="$INSTALL/node_modules/planlens/site"
"$NATIVE" report "$PLAN" -o "$WORK/native.html" --app "$SITE" 2>/dev/null
(cd "$WORK" && env -u PLANLENS_APP PATH="$NO_RUST_PATH" "$PKG_BIN" report "$OLDPWD/$PLAN" -o "$WORK/npm.html" 2>"$WORK/report.err")
if cmp -s "$WORK/native.html" "$WORK/npm.html"; then
  echo "ok   report with the packaged app, no --app ($(wc -c < "$WORK/npm.html") bytes, as native --app)"
else
  echo "FAIL report with the packaged app: $(cat "$WORK/report.err")"
  failed=1
fi
[ "$failed" = 0 ] || exit 1
echo "the packaged CLI: same output and exit codes as the native CLI"
