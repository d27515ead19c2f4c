//! The tool device on an emulated RISC-V core: QEMU's `virt` machine with a `riscv32imc`
//! image, its NS16550 UART as the serial link, the CLINT's `mtime` as the clock, and
//! semihosting for the options, the boot secret's entropy and the way out.
//!
//! ```sh
//! qemu-system-riscv32 -machine virt -bios none -nographic -serial pty \
//!     -semihosting-config enable=on,target=native \
//!     -kernel snodo-riscv-virt -append "--framing cobs --announce"
//! ```
//!
//! Entropy comes from the host's `/dev/urandom` through semihosting: the emulator's stand-in
//! for a TRNG (a real part reads its RNG peripheral). The UART is polled: this board is the
//! proof that the firmware builds, links and serves on RV32IMC; the Cortex-M board
//! (`../mps2-an386`) is the interrupt-driven model.
#![no_std]
#![no_main]

use core::convert::Infallible;
use core::ptr::{read_volatile, write_volatile};

use embedded_io::{ErrorType, Read, Write};
use snodo_embedded_example::args::{Args, USAGE};
use snodo_embedded_example::board::Fault;
use snodo_embedded_example::device::{self, Stopped};
use snodo_embedded_example::sim::{Platform, Simulated};

/// The NS16550 UART of QEMU's `virt` machine.
const UART: usize = 0x1000_0000;
const LSR: usize = 5;
const LSR_DATA_READY: u8 = 1 << 0;
const LSR_THR_EMPTY: u8 = 1 << 5;
/// The CLINT's machine timer, counting at 10 MHz on `virt`.
const MTIME: usize = 0x0200_BFF8;
const MTIME_HZ: u64 = 10_000_000;

fn uart_read(offset: usize) -> u8 {
    // SAFETY: a register of the UART at its fixed address.
    unsafe { read_volatile((UART + offset) as *const u8) }
}

fn uart_write(offset: usize, value: u8) {
    // SAFETY: a register of the UART at its fixed address; only this file writes it.
    unsafe { write_volatile((UART + offset) as *mut u8, value) }
}

/// The UART as the device's link (QEMU's model needs no set-up: 8N1, FIFO on demand).
struct Uart;

impl ErrorType for Uart {
    type Error = Infallible;
}

impl Read for Uart {
    fn read(&mut self, out: &mut [u8]) -> Result<usize, Infallible> {
        let mut n = 0;
        while n < out.len() {
            if uart_read(LSR) & LSR_DATA_READY != 0 {
                out[n] = uart_read(0);
                n += 1;
            } else if n > 0 {
                break;
            }
        }
        Ok(n)
    }
}

impl Write for Uart {
    fn write(&mut self, bytes: &[u8]) -> Result<usize, Infallible> {
        for &byte in bytes {
            while uart_read(LSR) & LSR_THR_EMPTY == 0 {}
            uart_write(0, byte);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// The clock and entropy under the simulated bench.
struct Virt;

impl Platform for Virt {
    fn uptime_secs(&self) -> u64 {
        // Two 32-bit halves on RV32: read high, low, high again until they agree.
        loop {
            // SAFETY: the CLINT's mtime registers at their fixed address; reads only.
            let (high, low, again) = unsafe {
                (
                    read_volatile((MTIME + 4) as *const u32),
                    read_volatile(MTIME as *const u32),
                    read_volatile((MTIME + 4) as *const u32),
                )
            };
            if high == again {
                return ((u64::from(high) << 32) | u64::from(low)) / MTIME_HZ;
            }
        }
    }

    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        semihosting::experimental::random::fill_bytes(buf).map_err(|_| Fault::NoEntropy)
    }
}

#[riscv_rt::entry]
fn main() -> ! {
    let args = semihosting::experimental::env::args::<160>().ok();
    let parsed = args.as_ref().and_then(|args| {
        let mut words = [&[][..]; 8];
        let mut count = 0;
        // The first word is the program's path.
        for word in args.into_iter().skip(1) {
            let slot = words.get_mut(count)?;
            *slot = word.ok()?.as_bytes();
            count += 1;
        }
        Args::parse(words[..count].iter().copied())
    });
    let Some(args) = parsed.filter(|args| !args.cost && !args.measure_stack) else {
        semihosting::println!(
            "usage: snodo-riscv-virt {} (no --cost or --measure-stack here)",
            USAGE
        );
        semihosting::process::exit(2);
    };
    let stopped = device::run(Simulated::new(Virt), &mut Uart, args.options);
    match stopped {
        Stopped::Entropy(_) => {
            semihosting::println!("snodo-riscv-virt: no entropy for the boot secret")
        }
        Stopped::Definition => semihosting::println!("snodo-riscv-virt: a definition is unusable"),
        Stopped::EndOfInput | Stopped::Link(_) => {
            semihosting::println!("snodo-riscv-virt: the link ended")
        }
    }
    semihosting::process::exit(1)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    semihosting::println!("snodo-riscv-virt: panic");
    semihosting::process::exit(101)
}
