#!/usr/bin/env bash
# Builds the crates over their feature combinations with cargo-hack (pinned, installed into
# .tools/ when missing), warnings as errors:
#
#   snodo-core  the feature powerset to depth 2, on the host (clippy, the library: the tests
#               build with the features the test step gives them) and on
#               thumbv7em-none-eabihf (check; `tracing` left out there: tracing-core needs alloc);
#   snodo-std   each feature on its own, the defaults, and none (clippy: the library and its
#               binary), and its tests without default features (the workspace's clippy has the defaults).
#
# The Thumb build takes the rustup target when installed, Debian's build-std route otherwise
# (scripts/cross-toolchain.sh), and says which.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cargo-tools.sh
source scripts/cross-toolchain.sh
need_tool cargo-hack 0.6.46

echo "features: snodo-core, powerset to depth 2, host"
cargo hack clippy -p snodo-core --locked --feature-powerset --depth 2 \
  --exclude-features default -- -D warnings

echo "features: snodo-std, each feature, host"
cargo hack clippy -p snodo-std --locked --each-feature -- -D warnings
# Its tests and examples without default features (no serial bridge and nix, no typed layer).
cargo clippy -p snodo-std --locked --no-default-features --all-targets -- -D warnings

echo "features: snodo-core, powerset to depth 2, thumbv7em-none-eabihf"
cross_route thumbv7em-none-eabihf
RUSTFLAGS="-D warnings" CARGO_TARGET_DIR=target/thumb \
  cross_cargo hack check -p snodo-core --locked --feature-powerset --depth 2 \
  --exclude-features default,tracing
echo "features: every combination built"
