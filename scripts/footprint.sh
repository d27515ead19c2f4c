#!/usr/bin/env bash
# The firmware's footprint on this host: static RAM (.data + .bss), the peak stack of whole
# MRTR rounds (measured by painting, per flow and framing), and code size per part, for the
# `snodo-device` host build of embedded-example. A microcontroller build differs (see
# docs/firmware.md): other instruction set, other calling convention, no libc start-up.
#
#   scripts/footprint.sh [OPT_LEVELS...]     default: "3 s" (workspace release, and size)
#
# Needs: cargo, binutils (size, nm), python3.
set -euo pipefail
shopt -s inherit_errexit # a failed build inside $(build …) stops the script
cd "$(dirname "$0")/.."

levels=("${@:-3}")
[ $# -eq 0 ] && levels=(3 s)
goal=$((12 * 1024))

build() { # OPT_LEVEL -> path of the binary
    local opt=$1 dir="target/footprint-opt-$1"
    CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt cargo rustc --quiet --release --locked \
        -p snodo-embedded-example --bin snodo-device --features host-binary \
        --target-dir "$dir" -- -C panic=abort >&2
    echo "$dir/release/snodo-device"
}

section() { size -A "$1" | awk -v s="$2" '$1 == s { print $2 }'; }

# Drives one device process per flow and framing over pipes, with --measure-stack, and prints
# "flow framing boot rounds" lines. Every leg of each flow is checked, so a number is only
# printed for a flow that ran as it should.
measure() {
    python3 - "$1" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "scripts")
from device_flows import FLOWS, cobs, crc16, uncobs

device = sys.argv[1]

class Device:
    def __init__(self, framing):
        self.framing = framing
        self.p = subprocess.Popen([device, "--framing", framing, "--measure-stack"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
    def send(self, msg):
        data = json.dumps(msg).encode()
        self.p.stdin.write(data + b"\n" if self.framing == "line" else cobs(data + crc16(data).to_bytes(2, "big")) + b"\0")
        self.p.stdin.flush()
    def frame(self):
        delim = b"\n" if self.framing == "line" else b"\0"
        while delim not in self.buf:
            chunk = self.p.stdout.read1(65536)
            assert chunk, "the device closed its output"
            self.buf += chunk
        frame, self.buf = self.buf.split(delim, 1)
        return json.loads(frame if self.framing == "line" else uncobs(frame))
    def call(self, msg):
        self.send(msg)
        while True:
            got = self.frame()
            if "id" in got:
                return got
    def close(self):
        self.p.stdin.close(); self.p.stdout.read()
        err = self.p.stderr.read().decode(); self.p.wait()
        words = err.split()
        return int(words[words.index("boot") + 1]), int(words[words.index("rounds") + 1])

for framing in ("line", "cobs"):
    for flow in FLOWS:
        d = Device(framing)
        flow(d)
        boot, rounds = d.close()
        print(flow.__name__, framing, boot, rounds)
PY
}

symbols() { # BINARY -> "bytes group" lines, largest first
    nm -S -C --size-sort "$1" | awk '$3 ~ /^[tTrR]$/' | python3 -c '
import re, sys, collections
sizes = collections.Counter()
for line in sys.stdin:
    parts = line.rstrip("\n").split(" ", 3)
    if len(parts) < 4: continue
    size, name = int(parts[1], 16), parts[3]
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)", name)
    if not m: group = "other (C start-up, libc glue)"
    elif m.group(1) in ("snodo_core", "snodo_embedded_example"): group = m.group(1) + "::" + m.group(2)
    elif m.group(1) == "core": group = "core (Rust library: formatting, floats, slices)"
    else: group = m.group(1)
    sizes[group] += size
for group, size in sizes.most_common():
    print(size, group)
'
}

for opt in "${levels[@]}"; do
    bin=$(build "$opt")
    data=$(section "$bin" .data); bss=$(section "$bin" .bss)
    text=$(section "$bin" .text); rodata=$(section "$bin" .rodata)
    static=$((data + bss))
    echo
    echo "## snodo-device, host build, opt-level=$opt"
    echo
    echo "Static RAM: .data $data + .bss $bss = $static bytes"
    echo "Code: .text $text bytes, .rodata $rodata bytes"
    echo
    echo "| flow | framing | boot peak stack | round peak stack | static + round peak | goal $goal |"
    echo "| --- | --- | ---: | ---: | ---: | --- |"
    measure "$bin" | while read -r flow framing boot rounds; do
        total=$((static + rounds))
        verdict=$([ "$total" -le "$goal" ] && echo within || echo "over by $((total - goal))")
        echo "| $flow | $framing | $boot | $rounds | $total | $verdict |"
    done
    echo
    echo "Code by part (symbol sizes, bytes; the embedded-io feature is snodo_core::io + crc):"
    echo
    echo "| bytes | part |"
    echo "| ---: | --- |"
    symbols "$bin" | head -25 | while read -r bytes group; do echo "| $bytes | $group |"; done
done
