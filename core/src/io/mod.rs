//! Serving over a serial link: framing over [`embedded_io::{Read, Write}`](embedded_io) and a
//! serve loop with fixed buffers (feature `embedded-io`).
//!
//! ```ignore
//! let mut serial = DeviceSerial::new(Framing::Cobs);
//! serial.announce_boot(&mut uart)?;            // optional: lets a bridge see restarts
//! serial.serve(&server, &mut uart, || clock.uptime_secs())?;
//! ```
//!
//! # Framings
//!
//! - [`Framing::Line`]: newline-delimited JSON, the MCP stdio framing, right for reliable
//!   links (USB-CDC, a pipe, a pseudo-terminal). `\r\n` is tolerated and a UTF-8 byte order
//!   mark at the start of the stream ignored. There is no integrity check: a corrupted line is
//!   at best a JSON parse error (-32700, id null).
//! - [`Framing::Cobs`]: for raw UARTs, where bytes get lost or flipped. Each message is
//!   followed by its CRC-16/CCITT-FALSE (big-endian, see [`crc16`]), the two are COBS-encoded
//!   ([`cobs`]) so that no zero byte remains, and a single `0x00` ends the frame. A frame
//!   whose encoding or checksum is wrong is dropped and answered with [`CORRUPT`] (-32700,
//!   id null: nothing in it, the id included, can be trusted); empty frames are ignored, so a
//!   sender may send a lone `0x00` to end whatever half-frame the receiver holds.
//!
//! In both, reads may stop anywhere: bytes are gathered in the input buffer until a
//! delimiter, and what follows it stays there for the next frame. A frame longer than the
//! input buffer is skipped up to its delimiter without being stored and answered with
//! [`TOO_LARGE`] (-32600, id null, as the host stdio adapter answers an overlong line); in
//! every case the link resynchronises at the next delimiter.
//!
//! # The round
//!
//! [`Serial::serve_one`] takes one frame, runs one round through
//! [`Server::handle`](crate::server::Server::handle) with an anonymous principal (a serial link is a physical
//! channel; whoever holds it is the caller) and `now` from the caller's clock, writes any
//! progress notifications as frames of their own as they are produced, then the reply, and
//! flushes. `subscriptions/listen` is acknowledged and closed at once: a link served one
//! request at a time cannot hold a stream open.
//!
//! # Capacities
//!
//! | what | size |
//! | --- | --- |
//! | input buffer for messages of `m` bytes | [`input_capacity`]`(m)` = `m` + 2 (CRC) + ⌈(`m`+2)/254⌉ + 1 (COBS) + 1 (delimiter); 2 060 bytes for 2 KiB |
//! | output buffer | [`output_capacity`]`(m)` = `m`: the reply is encoded straight from it, block by block |
//! | [`DeviceSerial`] | both for [`DEVICE_MAX_MESSAGE`] (2 048): 4 108 bytes plus a few words |
//!
//! The loop itself adds no buffer: COBS is encoded from the output buffer to the link one
//! block at a time, and decoded in place in the input buffer.

mod checksum;
pub mod cobs;
mod reader;
mod serve;

pub use checksum::{CHECKSUM_LEN, crc16};
pub use reader::{Frame, FrameReader};
pub use serve::{
    BOOT_METHOD, BOOT_NOTIFICATION, CORRUPT, NO_ROOM, REPLY_TOO_LARGE, Serial, Served, TOO_LARGE,
    write_frame,
};

/// How messages are delimited on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Framing {
    /// Newline-delimited JSON (the MCP stdio framing).
    Line,
    /// COBS frames of the message and its CRC-16, each ended by `0x00`.
    Cobs,
}

impl Framing {
    /// `"line"` or `"cobs"`.
    pub const fn name(self) -> &'static str {
        match self {
            Framing::Line => "line",
            Framing::Cobs => "cobs",
        }
    }

    /// The framing named `"line"` or `"cobs"`.
    pub fn from_name(name: &str) -> Option<Framing> {
        match name {
            "line" => Some(Framing::Line),
            "cobs" => Some(Framing::Cobs),
            _ => None,
        }
    }
}

/// Input buffer size that holds one frame of a message of `max_message` bytes in either
/// framing (COBS being the larger: message, CRC, encoding overhead, delimiter).
pub const fn input_capacity(max_message: usize) -> usize {
    cobs::max_encoded_len(max_message + CHECKSUM_LEN) + 1
}

/// Output buffer size for replies of up to `max_message` bytes.
pub const fn output_capacity(max_message: usize) -> usize {
    max_message
}

/// The largest message of a device with [`Limits::DEVICE`](crate::json::Limits::DEVICE).
pub const DEVICE_MAX_MESSAGE: usize = 2048;

/// A [`Serial`] sized for [`DEVICE_MAX_MESSAGE`] in both directions.
pub type DeviceSerial =
    Serial<{ input_capacity(DEVICE_MAX_MESSAGE) }, { output_capacity(DEVICE_MAX_MESSAGE) }>;

#[cfg(test)]
mod tests;
