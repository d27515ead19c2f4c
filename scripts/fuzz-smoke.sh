#!/usr/bin/env bash
# A short fuzzing smoke over every cargo-fuzz target, on the stable toolchain.
#
#   scripts/fuzz-smoke.sh [TARGET...]      (default: every target `cargo fuzz list` names)
#
#   FUZZ_SECONDS=20   seconds each target runs (0: build only)
#
# Installs cargo-fuzz when it is missing, builds each target with `--sanitizer none` (the
# one configuration that needs no nightly flag), then runs it on a scratch copy of its
# committed seeds (fuzz/corpus/<target>/, so the committed corpora never grow) with the
# dictionary fuzz/dict/<target>.dict, or fuzz/dict/json.dict when a target has none.
# Exits non-zero when a target fails to build or finds a crash, a timeout or an
# out-of-memory; the input that did it is kept in fuzz/artifacts/<target>/.
# A target declared in fuzz/Cargo.toml whose source file does not exist yet is skipped
# with a warning.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${FUZZ_SECONDS:-20}

source scripts/fuzz-common.sh
need_cargo_fuzz
fuzz_targets "$@"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-smoke.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

declare -a summary=()
failed=0

for target in "${targets[@]}"; do
  src=$(source_of "$target")
  if [ ! -f "$src" ]; then
    echo "warning: skipping $target: $src does not exist yet" >&2
    summary+=("$target: skipped (no $src)")
    continue
  fi

  echo "== build $target"
  started=$(date +%s)
  if ! (cd fuzz && cargo fuzz build --sanitizer none "$target"); then
    summary+=("$target: BUILD FAILED")
    failed=1
    continue
  fi
  built=$(( $(date +%s) - started ))

  if [ "$seconds" = "0" ]; then
    summary+=("$target: built in ${built} s, not run (FUZZ_SECONDS=0)")
    continue
  fi

  corpus="$scratch/$target"
  mkdir -p "$corpus"
  if [ -d "fuzz/corpus/$target" ]; then
    cp -R "fuzz/corpus/$target/." "$corpus/"
  fi
  seeds=$(find "$corpus" -type f | wc -l)
  dict_flag=()
  dict=$(dict_flag_of "$target") && dict_flag=("$dict")
  echo "== run $target for ${seconds} s ($seeds seeds, dictionary ${dict#"-dict=$root/"})"
  log="$scratch/$target.log"
  status=0
  (cd fuzz && cargo fuzz run --sanitizer none "$target" "$corpus" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 "${dict_flag[@]}") >"$log" 2>&1 || status=$?
  runs=$({ grep -Eo 'Done [0-9]+ runs' "$log" || true; } | tail -1 | awk '{print $2}')
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    summary+=("$target: FAILED (exit $status); see fuzz/artifacts/$target/")
    failed=1
  else
    grep -E '^(Dictionary:|INFO: seed corpus)|stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$log" || true
    summary+=("$target: ok, ${runs:-?} runs in ${seconds} s (built in ${built} s)")
  fi
done

echo
echo "== fuzz smoke summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
