#!/usr/bin/env bash
# Side by side with the official Rust SDK (issue 12's harness): builds the `preferences`
# example, the rmcp reference server (benches/src/bin/rmcp_peer.rs: the same `echo` tool
# and 3-leg form flow on rmcp) and the load generator, then drives both servers in one run,
# one right after the other for each row: HTTP `echo` and the 3-leg flow with 16 and 64
# keep-alive clients (rate, p99, peak RSS), HTTP `echo` in 2025-11-25 sessions (16 clients,
# each opening its session with `initialize`; rmcp answers in an event stream), stdio `echo` with 100 000, 400 000 and
# 1 000 000 requests written at once (rate, peak RSS) and 100 000 stdio flows. Prints each
# row with both servers' figures and the ratio, then one JSON line. Arguments go to
# http_load (`--help` lists them), e.g. --duration 5 --backlogs 20000,200000 --flows 20000.
#
#   scripts/bench-peers.sh            # the issue's table (a few minutes)
#   scripts/bench-peers.sh --smoke    # a debug-build run of about a second, so it cannot rot
#
# Other processes skew the figures on a small machine: ratios within a row are measured
# minutes apart at most, on the same machine; the header shows the load average.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
args=()
if [ "${1:-}" = "--smoke" ]; then
  shift
  profile=debug
  args=(--duration 0.2 --warmup 0.05 --backlogs 300 --flows 100)
fi
flag=()
[ "$profile" = release ] && flag=(--release)
cargo build "${flag[@]}" --locked -p snodo-std --example preferences
cargo build "${flag[@]}" --locked -p snodo-benches --bin http_load --bin rmcp_peer
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
bin=$target_dir/$profile
"$bin/http_load" --server "$bin/examples/preferences" --peer "$bin/rmcp_peer" "${args[@]}" "$@"
