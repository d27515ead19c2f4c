//! The simulated bench both the host process and the emulated boards measure: three sensors
//! with fixed readings, an empty fourth channel and two relays kept in memory.
//!
//! Fixed values keep runs reproducible, so a test can expect the same answer from the Linux
//! process and from firmware under QEMU. A real board reads its ADC and drives GPIO instead.

use core::cell::Cell;

use crate::app;
use crate::board::{Board, Fault, Reading};

/// Sensors and relays with no hardware behind them.
#[derive(Debug, Default)]
pub struct Bench {
    relays: Cell<[bool; app::RELAY_CHANNELS as usize]>,
}

impl Bench {
    /// A bench with every relay off.
    pub const fn new() -> Self {
        Bench {
            relays: Cell::new([false; app::RELAY_CHANNELS as usize]),
        }
    }

    /// Channel 0 temperature 23.125 Cel, 1 humidity 41.5 %, 2 supply 3.3 V, 3 fitted but
    /// silent; anything else is no channel.
    pub fn read_sensor(&self, channel: u8) -> Result<Reading, Fault> {
        let (quantity, milli, unit) = match channel {
            0 => ("temperature", 23_125, "Cel"),
            1 => ("relative_humidity", 41_500, "%"),
            2 => ("supply_voltage", 3_300, "V"),
            3 => return Err(Fault::NotResponding),
            _ => return Err(Fault::NoSuchChannel),
        };
        Ok(Reading {
            quantity,
            milli,
            unit,
        })
    }

    /// Switches relay `channel`; returns its previous state.
    pub fn set_relay(&self, channel: u8, on: bool) -> Result<bool, Fault> {
        let mut relays = self.relays.get();
        let slot = relays
            .get_mut(usize::from(channel))
            .ok_or(Fault::NoSuchChannel)?;
        let was = core::mem::replace(slot, on);
        self.relays.set(relays);
        Ok(was)
    }

    /// The state of relay `channel`, if there is one.
    pub fn relay(&self, channel: u8) -> Option<bool> {
        self.relays.get().get(usize::from(channel)).copied()
    }
}

/// What a simulated bench still needs from the machine it runs on.
pub trait Platform {
    /// Seconds since boot ([`Board::uptime_secs`]).
    fn uptime_secs(&self) -> u64;
    /// Entropy for the boot secret ([`Board::fill_entropy`]).
    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault>;
    /// Between rounds ([`Board::between_rounds`]); nothing by default.
    fn between_rounds(&self) {}
}

/// A [`Board`] made of a platform's clock and entropy and the simulated [`Bench`]: the host
/// process and every emulated board.
#[derive(Debug, Default)]
pub struct Simulated<P> {
    /// The clock, entropy and between-rounds hook.
    pub platform: P,
    /// The sensors and relays.
    pub bench: Bench,
}

impl<P> Simulated<P> {
    /// The bench on `platform`, every relay off.
    pub const fn new(platform: P) -> Self {
        Simulated {
            platform,
            bench: Bench::new(),
        }
    }
}

impl<P: Platform> Board for Simulated<P> {
    fn uptime_secs(&self) -> u64 {
        self.platform.uptime_secs()
    }

    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        self.platform.fill_entropy(buf)
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
        self.platform.between_rounds()
    }
}
