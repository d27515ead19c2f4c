#!/usr/bin/env bash
# The tool device's firmware for a microcontroller: built for a Cortex-M (or RISC-V) target,
# run under QEMU, measured.
#
#   scripts/firmware.sh build [TARGET] [FEATURES]   build the image; its path is the last line
#   scripts/firmware.sh run [ARGS...]               build for thumbv7em-none-eabihf and run it on
#                                                   QEMU's mps2-an386, UART0 on this terminal
#                                                   (ARGS: --framing line|cobs, --announce, ...)
#   scripts/firmware.sh footprint                   the table of docs/firmware.md: flash, static
#                                                   RAM and peak stack per target and feature set,
#                                                   and the cost of fixed rounds
#
# TARGET defaults to thumbv7em-none-eabihf (the board runs thumbv6m-none-eabi images too:
# ARMv6-M is a subset); riscv32imc-unknown-none-elf builds the QEMU `virt` board instead. FEATURES is a comma-separated list of the board crate's features
# (defmt, cost). The build takes the rustup target when installed, Debian's build-std route
# otherwise (scripts/cross-toolchain.sh), and says which. QEMU (qemu-system-arm) is installed
# with apt-get when missing.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
source scripts/cross-toolchain.sh

build() { # TARGET FEATURES -> the image's path on stdout
  local target=${1:-thumbv7em-none-eabihf} features=${2:-}
  # Cortex-M targets build the mps2-an386 board; RISC-V ones the QEMU virt board.
  local board=embedded-example/boards/mps2-an386 image=snodo-an386
  if [[ $target == riscv* ]]; then
    board=embedded-example/boards/qemu-riscv-virt image=snodo-riscv-virt
  fi
  local tag=${features:-plain}
  tag=${tag//,/-}
  cross_route "$target" >&2
  local dir="$PWD/target/firmware/$tag"
  # defmt keeps only what DEFMT_LOG lets through, at build time: the boot and every round.
  (cd "$board" && DEFMT_LOG=${DEFMT_LOG:-debug} CARGO_TARGET_DIR="$dir" cross_cargo build --release --locked --quiet \
    ${features:+--features "$features"}) >&2
  echo "$dir/$target/release/$image"
}

need_qemu() {
  command -v qemu-system-arm >/dev/null && return
  echo "firmware: installing qemu-system-arm" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-arm >/dev/null
}

qemu() { # IMAGE ARGS... (extra QEMU options in QEMU_EXTRA)
  local image=$1
  shift
  # shellcheck disable=SC2086
  qemu-system-arm -machine mps2-an386 -nographic -monitor none \
    -semihosting-config enable=on,target=native ${QEMU_EXTRA:-} \
    -kernel "$image" -append "$*"
}

case "${1:-}" in
  build)
    shift
    build "$@"
    ;;
  run)
    shift
    need_qemu
    image=$(build thumbv7em-none-eabihf "")
    QEMU_EXTRA="-serial stdio" qemu "$image" "$@"
    ;;
  footprint)
    need_qemu
    exec python3 scripts/firmware_footprint.py
    ;;
  *)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
