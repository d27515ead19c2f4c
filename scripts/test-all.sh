#!/usr/bin/env bash
# Sets up everything the tests need and runs them all, on a fresh machine with a Rust
# toolchain and the package registries. CI runs exactly this (`.ci/run`).
#
#   FUZZ_SECONDS=12   seconds each fuzz target runs in the smoke (0 skips fuzzing); the long
#                     runs are scripts/fuzz-long.sh's, recorded in docs/fuzzing.md
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
last_step=""
last_step_start=$started
# Each step's heading, and the time the one before it took (the gate's budget is read from these).
step() {
  local now
  now=$(date +%s)
  [ -n "$last_step" ] && printf '\n[step took %d s: %s]\n' $((now - last_step_start)) "$last_step"
  last_step=${1%%:*}
  last_step=${last_step:0:60}
  last_step_start=$now
  printf '\n== %s == (at %d s)\n' "$*" $((now - started))
}

step "system packages the tests use (the MSRV step runs tests too), installed when missing: nginx (the cluster), PostgreSQL (tasks in a database), jemalloc (memory given back), QEMU (the firmware)"
missing=()
command -v qemu-system-arm >/dev/null || missing+=(qemu-system-arm)
command -v qemu-system-riscv32 >/dev/null || missing+=(qemu-system-misc)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -e /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] || missing+=(libjemalloc2)
# The tests make their own database cluster with these programs, never the system's one.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

step "format"
cargo fmt --all -- --check

step "clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "docs build with every intra-doc link resolved"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
# The core's private items too: its module docs are how a reader finds their way around.
RUSTDOCFLAGS="-D warnings" cargo doc -p snodo-core --no-deps --locked --document-private-items

step "feature combinations: the core's powerset (host and Thumb), each of snodo-std's features"
# Covers the core without features and with defmt alone, and snodo-std without defaults.
scripts/feature-matrix.sh

step "MSRV: both crates built and tested by rustc 1.85"
scripts/msrv.sh

step "supply chain: cargo-deny, publish dry runs, docs as docs.rs builds them"
scripts/supply-chain.sh


step "firmware: the boards' images for Cortex-M4F, Cortex-M0 and RV32IMC (linked into 256 KiB flash, 64 KiB RAM), their lint, defmt-print"
# The images the QEMU tests run (thumbv7em, plain and defmt) are built here first; thumbv6m
# is built to prove the ARMv6-M link. The board crate is linted for the host: its
# peripheral code type-checks there, and Debian's toolchain has no clippy.
scripts/firmware.sh build thumbv7em-none-eabihf "" >/dev/null
scripts/firmware.sh build thumbv7em-none-eabihf defmt >/dev/null
scripts/firmware.sh build thumbv6m-none-eabi "" >/dev/null
scripts/firmware.sh build riscv32imc-unknown-none-elf "" >/dev/null
(cd embedded-example/boards/mps2-an386 && cargo fmt --check &&
  CARGO_TARGET_DIR=../../../target/firmware/clippy-host cargo clippy --locked --features cost -- -D warnings)
(cd embedded-example/boards/qemu-riscv-virt && cargo fmt --check)
(source scripts/cargo-tools.sh && need_tool defmt-print 1.0.0)

step "tests"
cargo test --workspace --locked 2>&1 | tee target/test-output.txt
# Tasks in PostgreSQL (feature `postgres`): two servers on one database the test makes.
cargo test -p snodo-std --features postgres --locked --test tasks_postgres 2>&1 |
  tee -a target/test-output.txt
passed=$(grep -Eo '^test result: ok\. [0-9]+ passed' target/test-output.txt | awk '{s+=$4} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' target/test-output.txt | awk '{s+=$1} END {print s+0}')

step "conformance runner (official, pinned; 2025-11-25, 2026-07-28 and the tasks extension at one URL)"
scripts/conformance.sh

step "conformance runner, client mode: our Rust client (official, pinned; 2026-07-28)"
scripts/client-conformance.sh

step "real clients of both eras: TypeScript client, SDK legacy server, Inspector CLI (pinned; stdio and HTTP)"
scripts/interop.sh

step "side by side with rmcp: a smoke of the harness (debug build, about a second of load)"
scripts/bench-peers.sh --smoke

step "fuzz smoke: every target"
if [ "${FUZZ_SECONDS:-12}" != "0" ]; then
  FUZZ_SECONDS=${FUZZ_SECONDS:-12} scripts/fuzz-smoke.sh
fi

step "summary"
echo "elapsed: $(( $(date +%s) - started )) s"
echo "tests: ${passed} passed, ${failed} failed"
