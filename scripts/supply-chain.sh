#!/usr/bin/env bash
# What a user checks before depending on the crates, as CI checks it:
#
#   1. cargo-deny (pinned, installed into .tools/ when missing) over the workspace's whole
#      graph with deny.toml: licenses, bans (no OpenSSL, no wildcards) and sources (crates.io
#      only). The advisory check needs the RustSec database from GitHub, which these machines
#      cannot reach: ADVISORIES=1 adds it where the network allows.
#   2. `cargo publish --dry-run` for snodo-core and snodo-std: both package and build from
#      their packaged sources alone.
#   3. the docs as docs.rs builds them: nightly features on (RUSTC_BOOTSTRAP for `doc_cfg`),
#      `--cfg docsrs`, the features from each crate's [package.metadata.docs.rs], every
#      intra-doc link resolved.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cargo-tools.sh
need_tool cargo-deny 0.20.2

checks=(licenses bans sources)
[ "${ADVISORIES:-0}" = 1 ] && checks+=(advisories)
echo "supply chain: cargo deny check ${checks[*]}"
# Errors only: the duplicate-version warnings (deny.toml says why they are not refused) would
# bury them. `cargo deny check` without the flag lists them.
cargo deny --log-level error --locked check --hide-inclusion-graph "${checks[@]}"

echo "supply chain: cargo publish --dry-run (snodo-core, snodo-std)"
# Cargo verifies snodo-std against the packaged snodo-core through a local overlay registry,
# and treats a registry crate as immutable: its extracted source
# ($CARGO_HOME/registry/src/-<hash of the overlay's path>/, a leading dash, never crates.io's)
# and its compiled library are keyed by name and version only, so a copy left by an earlier run
# from the same checkout path would be built instead of this tree's. Both are removed first; the
# dry run has its own target directory, so the rest of its build stays cached.
publish_target=target/publish-check
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/snodo-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/-*/snodo-*
find "$publish_target" -name '*snodo*' -prune -exec rm -rf {} + 2>/dev/null || true
# --allow-dirty: CI's clone is clean; a developer's tree need not be for a dry run.
cargo publish --dry-run --locked --allow-dirty --quiet --target-dir "$publish_target" \
  -p snodo-core -p snodo-std

echo "supply chain: docs as docs.rs builds them"
for crate in snodo-core snodo-std; do
  features=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
crate = sys.argv[1]
package = next(p for p in json.load(sys.stdin)["packages"] if p["name"] == crate)
docs = package.get("metadata", {}).get("docs.rs", {})
print("--all-features" if docs.get("all-features") else "--features=" + ",".join(docs.get("features", [])))
' "$crate")
  RUSTC_BOOTSTRAP=1 RUSTDOCFLAGS="--cfg docsrs -D warnings" \
    cargo doc --locked --no-deps -p "$crate" "$features" --target-dir target/docsrs
done
echo "supply chain: licenses, bans and sources clean; both crates package; docs build"
