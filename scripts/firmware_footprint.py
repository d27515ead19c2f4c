#!/usr/bin/env python3
"""The firmware's footprint on emulated silicon, for docs/firmware.md (run by
`scripts/firmware.sh footprint`): flash (.vector_table + .text + .rodata) and static RAM
(.data + .bss) per target and feature set, the peak stack of each flow in each framing
measured by painting on the target (the image's `--measure-stack`), and the cost of fixed
rounds and of sealing and opening under QEMU's `-icount shift=0` (the `cost` image)."""

import json, os, re, select, subprocess, sys, tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from device_flows import FLOWS, META, cobs, crc16, uncobs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_RAM, GOAL_FLASH = 12 * 1024, 128 * 1024


def build(target, features=""):
    out = subprocess.run(["bash", "scripts/firmware.sh", "build", target, features], cwd=ROOT,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def sections(image):
    sizes = {}
    for line in subprocess.run(["size", "-A", image], check=True, stdout=subprocess.PIPE,
                               text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    # Cortex-M: .vector_table, .text, .rodata. RISC-V adds its start-up and trap code and the
    # small-data sections of its ABI.
    flash = sum(sizes.get(name, 0) for name in (
        ".vector_table", ".text", ".rodata", ".init", ".init.rust", ".trap", ".trap.rust",
        ".srodata"))
    ram = sum(sizes.get(name, 0) for name in (".data", ".bss", ".sdata", ".sbss"))
    return flash, ram


class Board:
    """The image on QEMU's mps2-an386, UART0 on a pty opened here in raw mode."""

    def __init__(self, image, args, icount=False):
        cmd = ["qemu-system-arm", "-machine", "mps2-an386", "-nographic", "-monitor", "none",
               "-serial", "pty", "-semihosting-config", "enable=on,target=native",
               "-kernel", image, "-append", " ".join(args)]
        if icount:
            cmd[1:1] = ["-icount", "shift=0"]
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        self.out = b""
        self.framing = "cobs" if "cobs" in args else "line"
        self.fd = None
        if "--cost" not in args:
            while b"(label serial0)" not in self.out:
                self.read_console(5)
            path = re.search(rb"redirected to (\S+)", self.out).group(1).decode()
            self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
            tty.setraw(self.fd)
        self.buf = b""

    def read_console(self, timeout):
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        assert ready, "no output from QEMU"
        chunk = os.read(self.p.stdout.fileno(), 65536)
        assert chunk, "QEMU ended:\n" + self.out.decode(errors="replace")
        self.out += chunk

    def send(self, msg):
        data = json.dumps(msg).encode()
        frame = data + b"\n" if self.framing == "line" else cobs(data + crc16(data).to_bytes(2, "big")) + b"\0"
        os.write(self.fd, frame)

    def frame(self):
        delim = b"\n" if self.framing == "line" else b"\0"
        while delim not in self.buf:
            ready, _, _ = select.select([self.fd], [], [], 20)
            assert ready, "the board did not answer"
            self.buf += os.read(self.fd, 65536)
        frame, self.buf = self.buf.split(delim, 1)
        if not frame:
            return self.frame()
        return json.loads(frame if self.framing == "line" else uncobs(frame))

    def call(self, msg):
        self.send(msg)
        while True:
            got = self.frame()
            if "id" in got:
                return got

    def stack(self):
        """Boot and round peaks: an unknown method answered last means every report of the
        rounds before it has been written."""
        self.call({"jsonrpc": "2.0", "id": "end", "method": "x/end", "params": {"_meta": META}})
        while True:
            text = self.out.decode(errors="replace")
            boot = re.findall(r"stack: boot (\d+) bytes", text)
            rounds = re.findall(r"stack: rounds (\d+) bytes", text)
            if boot and rounds:
                return int(boot[-1]), max(map(int, rounds))
            self.read_console(5)

    def close(self):
        self.p.kill(); self.p.wait()
        if self.fd is not None:
            os.close(self.fd)




def main():
    targets = sys.argv[1:] or ["thumbv7em-none-eabihf", "thumbv6m-none-eabi"]
    images = {}
    print("## Flash and static RAM\n")
    print("| target | features | flash (.vector_table+.text+.rodata) | static RAM (.data+.bss) | flash goal 128 KiB |")
    print("| --- | --- | ---: | ---: | --- |")
    for target in targets:
        for features in ("", "defmt"):
            image = build(target, features)
            images[(target, features)] = image
            flash, ram = sections(image)
            verdict = "within" if flash <= GOAL_FLASH else f"over by {flash - GOAL_FLASH}"
            print(f"| {target} | {features or 'none'} | {flash} | {ram} | {verdict} |")
    # The RISC-V board has no defmt transport; its image is built without optional features.
    riscv = "riscv32imc-unknown-none-elf"
    flash, ram = sections(build(riscv))
    print(f"| {riscv} (QEMU virt) | none | {flash} | {ram} | "
          f"{'within' if flash <= GOAL_FLASH else f'over by {flash - GOAL_FLASH}'} |")
    print("\nBoth framings are in every image (chosen at boot); defmt adds its encoder and log calls.")
    for target in targets:
        image = images[(target, "")]
        _, ram = sections(image)
        print(f"\n## Peak stack on {target} (painted, measured on the emulated Cortex-M4)\n")
        print(f"| flow | framing | boot peak | round peak | static + round peak | goal {GOAL_RAM} |")
        print("| --- | --- | ---: | ---: | ---: | --- |")
        for framing in ("line", "cobs"):
            for flow in FLOWS:
                board = Board(image, ["--framing", framing, "--measure-stack"])
                try:
                    flow(board)
                    boot, rounds = board.stack()
                finally:
                    board.close()
                total = ram + rounds
                verdict = "within" if total <= GOAL_RAM else f"over by {total - GOAL_RAM}"
                print(f"| {flow.__name__} | {framing} | {boot} | {rounds} | {total} | {verdict} |")
    for target in targets:
        image = build(target, "cost")
        board = Board(image, ["--cost"], icount=True)
        status = board.p.wait(timeout=120)
        while True:
            chunk = os.read(board.p.stdout.fileno(), 65536)
            if not chunk: break
            board.out += chunk
        text = board.out.decode(errors="replace")
        assert status == 0, text
        print(f"\n## Cost on {target} (`-icount shift=0`: one SysTick count = 40 instructions)\n")
        print("| work | SysTick counts | instructions |")
        print("| --- | ---: | ---: |")
        for name, counts in re.findall(r"cost: (boot|round [^\n]*?) (\d+) counts", text):
            print(f"| {name} | {counts} | {int(counts) * 40} |")
        m = re.search(r"cost: seal (\d+) counts, open (\d+) counts \((\d+) data bytes, (\d+) token bytes\)", text)
        assert m, text
        print(f"| seal ({m.group(3)} data bytes, {m.group(4)}-byte token) | {m.group(1)} | {int(m.group(1)) * 40} |")
        print(f"| open (the same token) | {m.group(2)} | {int(m.group(2)) * 40} |")


if __name__ == "__main__":
    main()
