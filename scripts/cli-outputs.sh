#!/usr/bin/env bash
# Records what the CLI prints, and its exit code, for every command on every input Planlens has:
# tests/fixtures/**, samples/ and ../shared/fixtures/real (when present). Run it before and after a
# change that must not change behaviour, then compare the two folders:
#
#   scripts/cli-outputs.sh BIN OUTDIR     BIN: a built `planlens` CLI
#   diff -r BEFORE AFTER                  nothing printed = byte-identical
#
# Each file OUTDIR/<input path with / as __>.<command> holds stdout, then `--- stderr`, stderr,
# then `--- exit N`. Commands: summary (text, Markdown with a link), link (full, redacted), check
# (text, JSON, and with the policies of tests/fixtures/policies/conftest_v1), drift (text, JSON),
# graph (DOT, JSON, SVG) and fleet.
#
# CLI_OUTPUTS_SHARD=K/N records only every Nth input from the Kth (1-based), so N runs side by
# side cover them all (scripts/npm-test.sh runs the slower packaged CLI in two).
set -uo pipefail
cd "$(dirname "$0")/.."

BIN="$(realpath "${1:?usage: scripts/cli-outputs.sh BIN OUTDIR}")"
OUT="${2:?usage: scripts/cli-outputs.sh BIN OUTDIR}"
mkdir -p "$OUT"

all_inputs() {
  find tests/fixtures samples -type f ! -name '*.md' ! -name '*.rego' ! -name '*.toml' | sort
  [ -d ../shared/fixtures/real ] && find ../shared/fixtures/real -type f -name '*.json' | sort
}
SHARD="${CLI_OUTPUTS_SHARD:-1/1}"
inputs() {
  all_inputs | awk -v k="${SHARD%/*}" -v n="${SHARD#*/}" '(NR - 1) % n == k - 1'
}

BASE=https://example.test/planlens/
run() { # NAME ARGS…
  local name="$1"; shift
  local file="$OUT/$KEY.$name"
  "$BIN" "$@" >"$file" 2>"$file.err"
  local code=$?
  { echo "--- stderr"; cat "$file.err"; echo "--- exit $code"; } >>"$file"
  rm -f "$file.err"
}

count=0
while IFS= read -r f; do
  KEY=$(echo "$f" | sed 's|^\.\./shared/|shared__|; s|/|__|g')
  run summary summary "$f"
  run summary-md summary "$f" --format markdown --base "$BASE"
  run link link "$f" --base "$BASE"
  run link-redacted link "$f" --base "$BASE" --redacted
  run check check "$f"
  run check-json check "$f" --format json
  run check-policy check "$f" --policy tests/fixtures/policies/conftest_v1
  run drift drift "$f"
  run drift-json drift "$f" --format json
  run graph graph "$f"
  run graph-json graph "$f" --format json
  run graph-svg graph "$f" --format svg
  run fleet fleet "$f"
  count=$((count + 1))
done < <(inputs)
echo "$count inputs, $(ls "$OUT" | wc -l) outputs in $OUT"
