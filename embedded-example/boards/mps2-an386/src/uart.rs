//! The CMSDK APB UART (UART0 of the MPS2 boards, at `0x4000_4000`) as the device's serial link.
//!
//! Reception is interrupt-driven into a fixed ring ([`RX_RING`] bytes), so bytes that arrive
//! while a round runs wait there; when the ring is full the handler leaves the last byte in
//! the UART's data register, whose "receive full" flag holds off the sender (QEMU then stops
//! reading the host side: back-pressure, never a lost byte). A real UART at a fixed baud rate
//! has no such flow control: size the ring (or a DMA buffer) for a burst at that rate.
//! Transmission is polled: one byte at a time whenever the transmit register is free.

use core::cell::RefCell;
use core::convert::Infallible;
use core::ptr::{read_volatile, write_volatile};

use cortex_m::interrupt::{self, CriticalSection, Mutex};
use cortex_m::peripheral::NVIC;
use embedded_io::{ErrorType, Read, Write};

const BASE: usize = 0x4000_4000;
const DATA: usize = 0x00;
const STATE: usize = 0x04;
const CTRL: usize = 0x08;
const INTSTATUS: usize = 0x0C;
const BAUDDIV: usize = 0x10;

const STATE_TX_FULL: u32 = 1 << 0;
const STATE_RX_FULL: u32 = 1 << 1;
const CTRL_TX_EN: u32 = 1 << 0;
const CTRL_RX_EN: u32 = 1 << 1;
const CTRL_RX_INT_EN: u32 = 1 << 3;
const INT_RX: u32 = 1 << 1;

/// The interrupt line of UART0's receiver on the MPS2 boards.
pub const RX_IRQ: i16 = 0;
/// Bytes the receive ring holds.
pub const RX_RING: usize = 512;

fn read(offset: usize) -> u32 {
    // SAFETY: a register of the UART at its fixed address; reads have no effect beyond it.
    unsafe { read_volatile((BASE + offset) as *const u32) }
}

fn write(offset: usize, value: u32) {
    // SAFETY: a register of the UART at its fixed address; only this module writes them.
    unsafe { write_volatile((BASE + offset) as *mut u32, value) }
}

/// A ring of received bytes, shared between the interrupt handler and [`Uart::read`].
struct Ring {
    bytes: [u8; RX_RING],
    start: usize,
    len: usize,
}

impl Ring {
    const fn new() -> Self {
        Ring {
            bytes: [0; RX_RING],
            start: 0,
            len: 0,
        }
    }

    /// Moves bytes from the UART into the ring while both have them and room.
    fn drain_uart(&mut self) {
        while self.len < RX_RING && read(STATE) & STATE_RX_FULL != 0 {
            let at = (self.start + self.len) % RX_RING;
            // Only the low 8 bits of DATA hold the byte.
            self.bytes[at] = (read(DATA) & 0xFF) as u8;
            self.len += 1;
        }
    }

    fn take(&mut self, out: &mut [u8]) -> usize {
        let n = self.len.min(out.len());
        for slot in &mut out[..n] {
            *slot = self.bytes[self.start];
            self.start = (self.start + 1) % RX_RING;
        }
        self.len -= n;
        n
    }
}

static RX: Mutex<RefCell<Ring>> = Mutex::new(RefCell::new(Ring::new()));

/// Moves what UART0 received into the ring; called by the receive interrupt.
pub fn on_rx_interrupt() {
    interrupt::free(|cs| {
        RX.borrow(cs).borrow_mut().drain_uart();
        // Cleared once drained; if the ring was full, a byte may still wait in DATA, and
        // `read` takes it when the ring has room again.
        write(INTSTATUS, INT_RX);
    });
}

/// UART0, enabled at `baud` from a `clock_hz` peripheral clock.
#[derive(Debug)]
pub struct Uart {
    _owned: (),
}

impl Uart {
    /// Enables UART0 and its receive interrupt. Call once.
    pub fn enable(clock_hz: u32, baud: u32) -> Uart {
        // The divider must be at least 16.
        write(BAUDDIV, (clock_hz / baud).max(16));
        write(CTRL, CTRL_TX_EN | CTRL_RX_EN | CTRL_RX_INT_EN);
        // SAFETY: the handler only touches the ring inside a critical section.
        unsafe { NVIC::unmask(RxInterrupt) };
        Uart { _owned: () }
    }

    fn take(cs: &CriticalSection, out: &mut [u8]) -> usize {
        let mut ring = RX.borrow(cs).borrow_mut();
        ring.drain_uart();
        ring.take(out)
    }
}

/// UART0's receive interrupt, for `NVIC::unmask`.
#[derive(Clone, Copy, Debug)]
struct RxInterrupt;

// SAFETY: the number is UART0's receive line on the MPS2 boards' NVIC.
unsafe impl cortex_m::interrupt::InterruptNumber for RxInterrupt {
    fn number(self) -> u16 {
        RX_IRQ as u16
    }
}

impl ErrorType for Uart {
    type Error = Infallible;
}

impl Read for Uart {
    /// Blocks (sleeping in `wfi`) until at least one byte has arrived.
    fn read(&mut self, out: &mut [u8]) -> Result<usize, Infallible> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            // The check and the sleep happen with interrupts masked, so a byte that arrives
            // between them still wakes the `wfi` (a pending interrupt ends it); it is then
            // handled once the critical section ends.
            let n = interrupt::free(|cs| {
                let n = Uart::take(cs, out);
                if n == 0 {
                    cortex_m::asm::wfi();
                }
                n
            });
            if n > 0 {
                return Ok(n);
            }
        }
    }
}

impl Write for Uart {
    fn write(&mut self, bytes: &[u8]) -> Result<usize, Infallible> {
        for &byte in bytes {
            while read(STATE) & STATE_TX_FULL != 0 {}
            write(DATA, u32::from(byte));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        while read(STATE) & STATE_TX_FULL != 0 {}
        Ok(())
    }
}
