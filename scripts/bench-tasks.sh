#!/usr/bin/env bash
# Tasks with each store (issue 27's figures): the `preferences` example over HTTP with its
# tasks in memory, then in a PostgreSQL database (a cluster this script makes in a temporary
# directory with Debian's programs, never the system's), each loaded by http_load with 16
# keep-alive clients:
#
#   - `report` tasks created (the CreateTaskResult back), every task parked on its question
#     until its TTL (2 s here, so the live tasks stay about two seconds' worth);
#   - `tasks/get` of one task per client (TTL 600 s), in a closed loop.
#
# Prints one line per row and store (rate, p99) and the JSON lines http_load writes.
#
#   scripts/bench-tasks.sh                 # 10 s rows after 2 s of warm-up
#   scripts/bench-tasks.sh --duration 3    # arguments go to http_load
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -q -p snodo-std --features postgres --example preferences
cargo build --release --locked -q -p snodo-benches --bin http_load
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
server=$target_dir/release/examples/preferences
load=$target_dir/release/http_load

# A database cluster of our own, on a free port, trusting loopback.
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "bench-tasks: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
dir=$(mktemp -d)
as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U snodo --auth=trust --no-sync -E UTF8 >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir'" >/dev/null
"${as_owner[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U snodo snodo
url="postgres://snodo@127.0.0.1:$port/snodo"

lifted=(--tasks-max 100000000 --tasks-per-caller 100000000 --tasks-running 100000000)
# run <store> <scenario> <ttl secs> [http_load arguments...]
run() {
  local store=$1 scenario=$2 ttl=$3
  shift 3
  local env=() out
  [ "$store" = postgres ] && env=(SNODO_TASKS_DATABASE_URL="$url")
  out=$(mktemp)
  env "${env[@]}" "$server" --http 127.0.0.1:0 "${lifted[@]}" --tasks-ttl-secs "$ttl" >"$out" 2>/dev/null &
  pid=$!
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
  local endpoint
  endpoint=$(head -n 1 "$out")
  [ -n "$endpoint" ] || { echo "bench-tasks: the example did not start ($store)" >&2; exit 1; }
  "$load" --url "$endpoint" --pid "$pid" --clients 16 --scenario "$scenario" \
    --label "$store $scenario" "$@"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  rm -f "$out"
}
for store in memory postgres; do
  run "$store" task-create 2 "$@"
  run "$store" task-get 600 "$@"
done
