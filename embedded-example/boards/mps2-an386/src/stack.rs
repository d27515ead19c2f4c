//! Peak stack by painting: the free RAM between the end of the statics and the stack pointer
//! is filled with a pattern at boot; before the first round and after each one, the lowest
//! byte that no longer holds it shows how deep the stack has ever gone (interrupt frames
//! included: they run on the same stack). The region below the current frame is not painted
//! again, so the figure is the peak since boot.

use core::ptr::{addr_of, read_volatile, write_volatile};

use crate::report::report;

const PAINT: u32 = 0xA5A5_A5A5;
/// Bytes below the painting function's frame left alone: its own callees and an interrupt's
/// frame that may arrive while it paints.
const MARGIN: usize = 256;

unsafe extern "C" {
    /// The end of the statics (`cortex-m-rt`'s linker script): the lowest address the stack
    /// may reach.
    static __sheap: u32;
    /// The initial stack pointer: the top of RAM.
    static _stack_start: u32;
}

fn floor() -> usize {
    addr_of!(__sheap) as usize
}

fn top() -> usize {
    addr_of!(_stack_start) as usize
}

/// Paints the free stack below the caller's frame.
#[inline(never)]
pub fn paint() {
    let marker = 0u32;
    let here = core::hint::black_box(&marker as *const u32 as usize);
    let mut at = floor();
    while at + MARGIN < here {
        // SAFETY: word-aligned RAM between the statics and this frame, which nothing uses.
        unsafe { write_volatile(at as *mut u32, PAINT) };
        at += 4;
    }
}

/// The deepest the stack has been since [`paint`], in bytes from its top.
pub fn peak() -> usize {
    let mut at = floor();
    // SAFETY: word-aligned RAM below the stack top; reading it has no effect.
    while at < top() && unsafe { read_volatile(at as *const u32) } == PAINT {
        at += 4;
    }
    top() - at
}

/// Bytes the stack may use: from the top of RAM down to the statics.
pub fn size() -> usize {
    top() - floor()
}

/// Reports the peak when it grew: the first look is boot's (keying the secret, checking the
/// definitions), later ones are the rounds'.
pub struct Meter {
    boot: Option<usize>,
    rounds: usize,
}

impl Meter {
    /// A meter that has looked at nothing yet.
    pub const fn new() -> Meter {
        Meter {
            boot: None,
            rounds: 0,
        }
    }

    /// Looks at the stack and reports when the peak grew.
    pub fn look(&mut self) {
        let peak = peak();
        match self.boot {
            None => {
                self.boot = Some(peak);
                report!("stack: boot {} bytes of {}", peak as u32, size() as u32);
            }
            Some(_) if peak > self.rounds => {
                self.rounds = peak;
                report!("stack: rounds {} bytes of {}", peak as u32, size() as u32);
            }
            Some(_) => {}
        }
    }
}
