//! Board support: what the application needs from the hardware.
//!
//! The application never touches a peripheral directly; a board (a real one, or the host
//! simulation in [`crate::host`]) implements [`Board`]. Methods take `&self` because the MCP
//! handlers do: boards keep mutable hardware state behind `Cell`s or peripheral registers.
//!
//! The serial link itself is not part of the board trait: the serve loop takes it as a
//! separate [`crate::framing::Link`], so the same board can be served over a UART, USB-CDC or
//! (on a host) stdin/stdout.

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
pub enum Fault {
    /// The board has no sensor or output on that channel.
    NoSuchChannel,
    /// The channel exists but nothing is fitted or it does not answer.
    NotResponding,
}

impl Fault {
    /// A message for the model.
    pub const fn message(self) -> &'static str {
        match self {
            Fault::NoSuchChannel => "this board has no such channel",
            Fault::NotResponding => "the sensor on this channel does not respond",
        }
    }
}

/// The hardware a device application runs on.
pub trait Board {
    /// Seconds since boot (the round's `now`: a device without a calendar counts from boot).
    fn uptime_secs(&self) -> u64;

    /// Takes one reading from sensor `channel`.
    fn read_sensor(&self, channel: u8) -> Result<Reading, Fault>;

    /// Switches relay `channel` on or off; returns its previous state.
    fn set_relay(&self, channel: u8, on: bool) -> Result<bool, Fault>;
}
