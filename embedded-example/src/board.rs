//! Board support: what the firmware needs from the hardware.
//!
//! The application never touches a peripheral directly; a board (a real one, or the
//! simulated one a host build uses) implements [`Board`]. Methods take `&self` because the MCP
//! handlers do: boards keep mutable hardware state behind `Cell`s or peripheral registers.
//!
//! The serial link is not part of this trait: the device module's `run` takes it separately as
//! any `embedded_io::Read + Write` (a UART driver, a USB-CDC class, or stdin/stdout on a
//! host), so the same board can be served over either.

/// A measurement in thousandths of its unit (fixed point: no float formatting in firmware).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// What is measured, e.g. `"temperature"`.
    pub quantity: &'static str,
    /// The value in milli-units (23125 with unit `"Cel"` is 23.125 °C).
    pub milli: i32,
    /// The UCUM unit code, e.g. `"Cel"`, `"%"`, `"V"`.
    pub unit: &'static str,
}

/// Why the hardware could not do what was asked. These reach the model as tool error results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Fault {
    /// The board has no sensor or output on that channel.
    NoSuchChannel,
    /// The channel exists but nothing is fitted or it does not answer.
    NotResponding,
    /// The entropy source failed (no boot secret can be drawn).
    NoEntropy,
}

impl Fault {
    /// A message for the model.
    pub const fn message(self) -> &'static str {
        match self {
            Fault::NoSuchChannel => "this board has no such channel",
            Fault::NotResponding => "the sensor on this channel does not respond",
            Fault::NoEntropy => "the entropy source failed",
        }
    }
}

/// The hardware a device application runs on.
pub trait Board {
    /// Seconds since boot: the rounds' `now`. The device has no calendar clock; this is sound
    /// for sealed state because the secret that seals it is drawn afresh at every boot
    /// ([`Board::fill_entropy`]), so a token from an earlier boot — whose times were counted
    /// from another zero — never opens, and within one boot the count only goes up.
    fn uptime_secs(&self) -> u64;

    /// Fills `buf` from a cryptographically secure source (a hardware RNG, or a TRNG-seeded
    /// DRBG). Called once at boot for the state secret.
    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault>;

    /// Takes one uncalibrated reading from sensor `channel`.
    fn read_sensor(&self, channel: u8) -> Result<Reading, Fault>;

    /// Switches relay `channel` on or off; returns its previous state.
    fn set_relay(&self, channel: u8, on: bool) -> Result<bool, Fault>;

    /// The state of relay `channel`, if there is one.
    fn relay(&self, channel: u8) -> Option<bool>;

    /// Called once before the first round and after every round, between frames: feed a
    /// watchdog, enter a low-power wait, or (on the host) measure the stack. Does nothing by
    /// default.
    fn between_rounds(&self) {}
}

/// A borrowed board is a board, so a caller can keep its own and look at it after serving.
impl<B: Board + ?Sized> Board for &B {
    fn uptime_secs(&self) -> u64 {
        (**self).uptime_secs()
    }

    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        (**self).fill_entropy(buf)
    }

    fn read_sensor(&self, channel: u8) -> Result<Reading, Fault> {
        (**self).read_sensor(channel)
    }

    fn set_relay(&self, channel: u8, on: bool) -> Result<bool, Fault> {
        (**self).set_relay(channel, on)
    }

    fn relay(&self, channel: u8) -> Option<bool> {
        (**self).relay(channel)
    }

    fn between_rounds(&self) {
        (**self).between_rounds()
    }
}
