//! The emulated bench: SysTick's uptime, entropy from the host, the shared simulated sensors
//! and relays, and (when asked) the stack meter between rounds.

use core::cell::RefCell;

use snodo_embedded_example::board::{Board, Fault, Reading};
use snodo_embedded_example::sim::Bench;

use crate::stack::Meter;
use crate::{clock, semihost};

/// The board `main` serves.
pub struct An386 {
    bench: Bench,
    meter: Option<RefCell<Meter>>,
}

impl An386 {
    /// The board, measuring its stack between rounds if `measure_stack`.
    pub fn new(measure_stack: bool) -> An386 {
        An386 {
            bench: Bench::new(),
            meter: measure_stack.then(|| RefCell::new(Meter::new())),
        }
    }
}

impl Board for An386 {
    fn uptime_secs(&self) -> u64 {
        clock::uptime_secs()
    }

    /// The emulator's stand-in for a TRNG: the host's `/dev/urandom` through semihosting.
    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        semihost::fill_entropy(buf).ok_or(Fault::NoEntropy)
    }

    fn read_sensor(&self, channel: u8) -> Result<Reading, Fault> {
        self.bench.read_sensor(channel)
    }

    fn set_relay(&self, channel: u8, on: bool) -> Result<bool, Fault> {
        self.bench.set_relay(channel, on)
    }

    fn relay(&self, channel: u8) -> Option<bool> {
        self.bench.relay(channel)
    }

    fn between_rounds(&self) {
        if let Some(meter) = &self.meter {
            meter.borrow_mut().look();
        }
    }
}
