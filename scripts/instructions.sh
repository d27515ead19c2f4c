#!/usr/bin/env bash
# Instructions per operation under callgrind, for the cases of benches/round.rs,
# benches/state.rs and benches/mrtr.rs (the retry round and its floor): each case runs with 1 and with N+1 iterations and the difference is
# divided by N, so start-up and set-up cancel out.
#
#   scripts/instructions.sh            # every case
#   scripts/instructions.sh round 300  # one case
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
cargo build -q --release -p snodo-benches --example profile_round
bin=target/release/examples/profile_round
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
one() {
    local a b
    a=$(count "$1" "$2" 1)
    b=$(count "$1" "$2" $((N + 1)))
    printf '%-8s %5s %10d instructions\n' "$1" "$2" $(((b - a) / N))
}
if [ $# -gt 0 ]; then
    one "$1" "${2:-300}"
    exit
fi
for size in 300 4096; do
    for what in accept round ignored value; do one "$what" "$size"; done
done
for what in hmac seal open retry retry_floor; do one "$what" 0; done
