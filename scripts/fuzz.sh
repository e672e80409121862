#!/usr/bin/env bash
# Fuzzes Planlens: every cargo-fuzz target in fuzz/ for SECONDS each, one after the other, then a
# table of executions, crashes and timeouts per target (from libFuzzer's final stats).
#
#   scripts/fuzz.sh SECONDS [TARGET…]
#
# Installs what it needs first (idempotent): the nightly toolchain (minimal profile) and
# cargo-fuzz. Seeds the corpora from the fixtures (tests/fixtures/**, ../shared/fixtures/real
# when present, samples/) through the ignored test `write_fuzz_seeds`. Limits: -timeout=1 (s),
# -rss_limit_mb=512, -max_len=1 MiB. Findings land in fuzz/artifacts/<target>/; minimise one
# with `cargo +nightly fuzz tmin -s none -a TARGET FILE` and put it in
# tests/fuzz_regressions/<target>/, which `cargo test` replays on stable. Runs niced: the
# machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${1:?usage: scripts/fuzz.sh SECONDS [TARGET…]}"
shift
ALL_TARGETS=(load wrapped diff graph markdown link redacted rules rego structured)
[ $# -gt 0 ] && TARGETS=("$@") || TARGETS=("${ALL_TARGETS[@]}")

# What it needs.
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

# No sanitizer (the core is safe Rust; ASan halves the executions), debug assertions on (integer
# overflow is a finding).
FUZZ_FLAGS=(-s none -a)
echo "== building the fuzz targets (nightly)"
nice -n 10 cargo +nightly fuzz build "${FUZZ_FLAGS[@]}" >&2

echo "== seeding the corpora from the fixtures"
SEEDS="$PWD/fuzz/seeds"
rm -rf "$SEEDS"
PLANLENS_FUZZ_SEEDS="$SEEDS" nice -n 10 cargo test --quiet --test core \
  -- --ignored --exact fuzz_regressions::write_fuzz_seeds >&2
# The regression files are seeds too.
for t in "${ALL_TARGETS[@]}"; do
  mkdir -p "$SEEDS/$t" "fuzz/corpus/$t" "fuzz/artifacts/$t"
  if [ -d "tests/fuzz_regressions/$t" ] && [ "$t" != structured ]; then
    cp tests/fuzz_regressions/"$t"/* "$SEEDS/$t/" 2>/dev/null || true
  fi
done

mkdir -p fuzz/logs
RESULTS=()
for t in "${TARGETS[@]}"; do
  log="fuzz/logs/$t.log"
  echo "== fuzzing $t for ${SECONDS_EACH}s (log: $log)"
  # libFuzzer exits non-zero on a finding; the table reports it.
  nice -n 10 cargo +nightly fuzz run "${FUZZ_FLAGS[@]}" "$t" "fuzz/corpus/$t" "$SEEDS/$t" -- \
    -max_total_time="$SECONDS_EACH" -timeout=1 -rss_limit_mb=512 -max_len=1048576 \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || true
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  crashes=$(grep -cE 'Test unit written to .*/(crash|oom|leak)-' "$log" || true)
  timeouts=$(grep -cE 'Test unit written to .*/timeout-' "$log" || true)
  RESULTS+=("$t ${execs:-0} $crashes $timeouts")
done

echo
printf '%-12s %14s %8s %9s\n' target executions crashes timeouts
total=0
for r in "${RESULTS[@]}"; do
  read -r t e c o <<<"$r"
  printf '%-12s %14s %8s %9s\n' "$t" "$e" "$c" "$o"
  total=$((total + e))
done
printf '%-12s %14s\n' total "$total"
echo "($(date -u +%Y-%m-%dT%H:%MZ), ${SECONDS_EACH}s per target)"
