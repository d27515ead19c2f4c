#!/usr/bin/env bash
# Long fuzzing with a record: every cargo-fuzz target (or those named) for at least
# FUZZ_RUNS executions, the corpora merged and minimised into fuzz/corpus/, and the table of
# docs/fuzzing.md written with the figures.
#
#   scripts/fuzz-long.sh [TARGET...]
#
#   FUZZ_RUNS=10000000   executions per target
#   FUZZ_SECONDS=0       if set above 0, run each target this long instead of FUZZ_RUNS
#   FUZZ_TABLE=docs/fuzzing.md   where the table goes (between its two marker lines)
#
# Each target runs on its committed seeds plus a scratch directory for what it finds, with
# `--sanitizer none` (the crates are safe Rust; it needs no nightly flag), a 10 s timeout per
# input and a 2 GiB memory limit: a crash, a timeout or an out-of-memory fails the run and
# keeps the input in fuzz/artifacts/<target>/. The new inputs are then merged into
# fuzz/corpus/<target>/ and the whole corpus minimised with `cargo fuzz cmin`.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
runs=${FUZZ_RUNS:-10000000}
seconds=${FUZZ_SECONDS:-0}
table=${FUZZ_TABLE:-docs/fuzzing.md}

source scripts/fuzz-common.sh
need_cargo_fuzz
fuzz_targets "$@"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-long.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
commit=$(git rev-parse --short HEAD)
day=$(date -u +%Y-%m-%d)
rows=()
failed=0

for target in "${targets[@]}"; do
  echo "== $target"
  (cd fuzz && cargo fuzz build --sanitizer none "$target")
  found="$scratch/$target"
  mkdir -p "$found" "fuzz/corpus/$target"
  limit=("-runs=$runs")
  [ "$seconds" -gt 0 ] && limit=("-max_total_time=$seconds")
  dict_flag=()
  dict=$(dict_flag_of "$target") && dict_flag=("$dict")
  log="$scratch/$target.log"
  status=0
  started=$(date +%s)
  (cd fuzz && cargo fuzz run --sanitizer none "$target" "$found" "corpus/$target" -- \
      "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${dict_flag[@]}") \
      >"$log" 2>&1 || status=$?
  took=$(( $(date +%s) - started ))
  executed=$({ grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" || true; } | awk '{print $2}' | tail -1)
  # The last status line names the coverage: `cov: <edges> ft: <features> corp: <n>/<size>`.
  last=$({ grep -E '^#[0-9]+' "$log" || true; } | tail -1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  crashes=$(find "fuzz/artifacts/$target" -name 'crash-*' 2>/dev/null | wc -l)
  timeouts=$(find "fuzz/artifacts/$target" -name 'timeout-*' 2>/dev/null | wc -l)
  ooms=$(find "fuzz/artifacts/$target" -name 'oom-*' 2>/dev/null | wc -l)
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log"
    failed=1
  fi
  cp -n "$found"/* "fuzz/corpus/$target/" 2>/dev/null || true
  (cd fuzz && cargo fuzz cmin --sanitizer none "$target" >"$scratch/$target.cmin" 2>&1) || {
    tail -n 20 "$scratch/$target.cmin"
    failed=1
  }
  files=$(find "fuzz/corpus/$target" -type f | wc -l)
  bytes=$(du -sb "fuzz/corpus/$target" | awk '{print $1}')
  row="| \`$target\` | ${executed:-?} | ${took} s | ${cov:-?} | ${ft:-?} | $files ($(( bytes / 1024 )) KiB) | $crashes / $timeouts / $ooms | $day | \`$commit\` |"
  echo "$row"
  rows+=("$row")
done

# The table goes between the marker lines of $table, replacing what was there.
{
  echo "| target | executions | time | edges | coverage features | corpus (files, size) | crashes / timeouts / out-of-memory | date | commit |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
} >"$scratch/table"
if [ -f "$table" ] && grep -q '<!-- fuzz-long table -->' "$table"; then
  awk -v file="$scratch/table" '
    /<!-- fuzz-long table -->/ { print; while ((getline line < file) > 0) print line; skip = 1; next }
    /<!-- end of table -->/ { skip = 0 }
    !skip { print }
  ' "$table" >"$scratch/doc" && cp "$scratch/doc" "$table"
else
  cat "$scratch/table"
fi
exit "$failed"
