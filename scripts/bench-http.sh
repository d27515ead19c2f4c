#!/usr/bin/env bash
# Load test of the Streamable HTTP listener (issue 5's benchmark). Builds the `preferences`
# example and the load generator (benches/src/bin/http_load) in release mode, then runs the
# generator, which starts the example on a free loopback port as a child process and loads
# it with 64 concurrent keep-alive HTTP/1.1 clients: `tools/call` of `echo`, then the 3-leg
# `preference_preview` flow. It stops by itself (2 s warm-up + 10 s per scenario by default)
# and prints a table, then one JSON line. Arguments go to http_load (`--help` lists them):
#
#   scripts/bench-http.sh                          # the issue's figures
#   scripts/bench-http.sh --duration 20 --threads 2
#
# Other processes skew the figures on a small machine, so first this waits (at most
# BENCH_WAIT seconds, default 180) until the 1-minute load average is below BENCH_MAX_LOAD
# (default 1.0; 0 skips the wait), then runs anyway. The table's `oth cpu` column shows how
# much CPU everything else took during each scenario.
#
#   BENCH_JSON=path   also append the JSON line to this file
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -p snodo-std --example preferences
cargo build --release --locked -p snodo-benches --bin http_load
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
generator=$target_dir/release/http_load
server=$target_dir/release/examples/preferences

max_load=${BENCH_MAX_LOAD:-1.0}
wait_s=${BENCH_WAIT:-180}
waited=0
above() { awk -v max="$max_load" '{ exit !(max > 0 && $1 >= max) }' /proc/loadavg; }
while above && [ "$waited" -lt "$wait_s" ]; do
  [ "$waited" -eq 0 ] && echo "bench-http: load average $(cut -d' ' -f1-3 /proc/loadavg); waiting for < $max_load"
  sleep 10
  waited=$((waited + 10))
done
above && echo "bench-http: load is still high after ${wait_s}s; running anyway (see oth cpu)"
echo "bench-http: $(uptime)"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$generator" --server "$server" "$@" | tee "$out" || status=$?
if [ -n "${BENCH_JSON:-}" ]; then
  grep '^{"bench":"http_load"' "$out" >>"$BENCH_JSON" || true
fi
exit "$status"
