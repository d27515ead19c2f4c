//! The tool device on an emulated Cortex-M4: QEMU's `mps2-an386` (an MPS2 board with the
//! AN386 FPGA image), UART0 as the serial link.
//!
//! ```sh
//! qemu-system-arm -machine mps2-an386 -nographic -serial pty \
//!     -semihosting-config enable=on,target=native \
//!     -kernel snodo-an386 -append "--framing cobs --announce"
//! ```
//!
//! The options (`snodo_embedded_example::args`) come from the emulator's command line
//! through semihosting; a real board would fix them at build time. See docs/firmware.md.
#![no_std]
#![no_main]

mod board;
mod clock;
#[cfg(feature = "cost")]
mod cost;
mod report;
mod semihost;
mod stack;
mod uart;

use cortex_m_rt::{ExceptionFrame, entry, exception};
#[cfg(feature = "defmt")]
use defmt_semihosting as _;
use snodo_embedded_example::args::{Args, USAGE};
use snodo_embedded_example::device::{self, Stopped};

use crate::report::report;

/// The link's baud rate (QEMU ignores it; a real UART would not).
const BAUD: u32 = 115_200;

#[entry]
fn main() -> ! {
    let Some(core) = cortex_m::Peripherals::take() else {
        semihost::exit(false);
    };
    clock::start(core.SYST);
    let mut line = [0u8; 160];
    let Some(args) = semihost::command_line(&mut line).and_then(|line| {
        // The first word is the program's path.
        let rest = line
            .iter()
            .position(|b| *b == b' ')
            .map_or(&[][..], |at| &line[at..]);
        Args::parse_line(rest)
    }) else {
        report!("usage: snodo-an386 {}", USAGE);
        semihost::exit(false);
    };
    if args.cost {
        #[cfg(feature = "cost")]
        semihost::exit(cost::run());
        #[cfg(not(feature = "cost"))]
        {
            report!("snodo-an386: built without the `cost` feature");
            semihost::exit(false);
        }
    }
    if args.measure_stack {
        stack::paint();
    }
    let mut uart = uart::Uart::enable(clock::CORE_HZ, BAUD);
    let board = board::new(args.measure_stack);
    let stopped = device::run(board, &mut uart, args.options);
    // The UART never ends or fails, so only boot can stop the device.
    match stopped {
        Stopped::Entropy(_) => report!("snodo-an386: no entropy for the boot secret"),
        Stopped::Definition => report!("snodo-an386: a definition is unusable"),
        Stopped::EndOfInput | Stopped::Link(_) => report!("snodo-an386: the link ended"),
    }
    semihost::exit(false)
}

#[exception]
fn SysTick() {
    clock::on_tick();
}

/// Every device interrupt; only UART0's receiver is enabled.
#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == uart::RX_IRQ {
        uart::on_rx_interrupt();
    }
}

/// A fault ends the emulation as a failure, saying where, instead of hanging.
#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    report!("snodo-an386: hard fault at pc {:#x}", frame.pc());
    semihost::exit(false)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    report!("snodo-an386: panic");
    semihost::exit(false)
}
