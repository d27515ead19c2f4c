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
#   scripts/bench-http.sh --server target/release/http_floor   # the crates.io-only floor
#
# Other processes skew the figures on a small machine, so first this waits (at most
# BENCH_WAIT seconds, default 180) until the machine was idle for 3 s: busy below
# BENCH_MAX_BUSY percent of all CPUs (default 10; 100 skips the wait), then runs anyway. The
# load average lags too much to tell. The table's `oth cpu` column shows how much CPU
# everything else took during each scenario.
#
#   BENCH_JSON=path   also append the JSON line to this file
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -p snodo-std --example preferences
cargo build --release --locked -p snodo-benches --bin http_load --bin http_floor
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
generator=$target_dir/release/http_load
server=$target_dir/release/examples/preferences

max_busy=${BENCH_MAX_BUSY:-10}
wait_s=${BENCH_WAIT:-180}
# Busy and total jiffies of all CPUs so far (user nice system idle iowait irq softirq steal).
jiffies() { awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat; }
# Percent of the machine busy over the next 3 seconds.
busy() {
  local b0 t0 b1 t1
  read -r b0 t0 < <(jiffies)
  sleep 3
  read -r b1 t1 < <(jiffies)
  echo $(((b1 - b0) * 100 / (t1 - t0 > 0 ? t1 - t0 : 1)))
}
waited=0
while [ "$max_busy" -lt 100 ]; do
  now=$(busy)
  waited=$((waited + 3))
  [ "$now" -lt "$max_busy" ] && break
  if [ "$waited" -ge "$wait_s" ]; then
    echo "bench-http: the machine is still ${now}% busy after ${wait_s}s; running anyway (see oth cpu)"
    break
  fi
  [ $((waited % 30)) -eq 3 ] && echo "bench-http: the machine is ${now}% busy; waiting for < ${max_busy}%"
done
echo "bench-http: $(uptime)"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$generator" --server "$server" "$@" | tee "$out" || status=$?
if [ -n "${BENCH_JSON:-}" ]; then
  grep '^{"bench":"http_load"' "$out" >>"$BENCH_JSON" || true
fi
exit "$status"
