//! The emulated bench: SysTick's uptime, entropy from the host, and (when asked) the stack
//! meter between rounds, under the simulated sensors and relays the host build shares.

use core::cell::RefCell;

use snodo_embedded_example::board::Fault;
use snodo_embedded_example::sim::{Platform, Simulated};

use crate::stack::Meter;
use crate::{clock, semihost};

/// The platform under the board `main` serves.
pub struct An386 {
    meter: Option<RefCell<Meter>>,
}

/// The board `main` serves.
pub type Board = Simulated<An386>;

/// The board, measuring its stack between rounds if `measure_stack`.
pub fn new(measure_stack: bool) -> Board {
    Simulated::new(An386 {
        meter: measure_stack.then(|| RefCell::new(Meter::new())),
    })
}

impl Platform for An386 {
    fn uptime_secs(&self) -> u64 {
        clock::uptime_secs()
    }

    /// The emulator's stand-in for a TRNG: the host's `/dev/urandom` through semihosting.
    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        semihost::fill_entropy(buf).ok_or(Fault::NoEntropy)
    }

    fn between_rounds(&self) {
        if let Some(meter) = &self.meter {
            meter.borrow_mut().look();
        }
    }
}
