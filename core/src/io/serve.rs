//! The serve loop: one frame in, one round through the core, one frame out.

use embedded_io::{Read, Write};

use super::reader::{Frame, FrameReader};
use super::{Framing, checksum, cobs};
use crate::json::Writer;
use crate::server::{Handled, Handler, Notifier, Round, Server};

/// The reply to a frame longer than the input buffer: it cannot be parsed, so its id is
/// unknown (the same answer the host stdio adapter gives an overlong line).
pub const TOO_LARGE: &[u8] = crate::envelope!(null_error: -32600, "Message too large");

/// The reply to a COBS frame whose encoding or checksum is wrong: nothing in it can be
/// trusted, the id included.
pub const CORRUPT: &[u8] = crate::envelope!(
    null_error: -32700,
    "Parse error: corrupt frame (bad COBS or CRC-16)"
);

/// The message of the -32603 error (with the request's id) for a reply larger than the output
/// buffer.
pub const REPLY_TOO_LARGE: &str = "Reply too large for the device's output buffer";

/// The -32603 a call that would become a task gets from a link that keeps no tasks.
#[cfg(feature = "tasks")]
pub const NO_TASKS: &str = "This server keeps no tasks: the call cannot run as one";

/// The reply when not even an error fits the output buffer (not expected at sane sizes).
pub const NO_ROOM: &[u8] = crate::envelope!(null_error: -32603, "Reply too large");

/// The notification a device may send once at boot ([`Serial::announce_boot`]), so that a
/// bridge can tell that it restarted: sealed state from before the restart no longer opens,
/// and a request in flight may have been lost.
pub const BOOT_NOTIFICATION: &[u8] = crate::envelope!(notification: "notifications/io.snodo/boot");

/// The JSON-RPC method of [`BOOT_NOTIFICATION`].
pub const BOOT_METHOD: &str = "notifications/io.snodo/boot";

/// What one turn of [`Serial::serve_one`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Served {
    /// A message was answered (with a reply, or an error reply).
    Replied,
    /// A message needed no reply (a notification, a cancellation, a blank line).
    Silent,
    /// A frame too long for the input buffer was skipped and answered -32600.
    TooLarge,
    /// A corrupt COBS frame was dropped and answered -32700.
    Corrupt,
    /// The link reached the end of input.
    End,
}

/// Writes `message` as one frame: the line and `\n`, or COBS of the message and its CRC-16
/// followed by `0x00`.
pub fn write_frame<W: Write>(
    link: &mut W,
    framing: Framing,
    message: &[u8],
) -> Result<(), W::Error> {
    match framing {
        Framing::Line => {
            link.write_all(message)?;
            link.write_all(b"\n")
        }
        Framing::Cobs => {
            let crc = checksum::crc16(message).to_be_bytes();
            cobs::encode_to(
                link,
                cobs::Parts {
                    head: message,
                    tail: &crc,
                },
            )?;
            link.write_all(&[0])
        }
    }
}

/// A serial link's buffers and framing: an input buffer of `IN` bytes that frames are read
/// and decoded in, and an output buffer of `OUT` bytes that replies (and the progress
/// notifications sent before them) are written in. Nothing else is kept between rounds.
///
/// Size them with [`input_capacity`](super::input_capacity) and
/// [`output_capacity`](super::output_capacity) for the largest message, or use
/// [`DeviceSerial`](super::DeviceSerial) for 2 KiB messages. The struct is plain data, so it
/// can live on the stack of the serve loop or in a `static`.
#[derive(Debug)]
pub struct Serial<const IN: usize, const OUT: usize> {
    reader: FrameReader<IN>,
    out: [u8; OUT],
}

impl<const IN: usize, const OUT: usize> Serial<IN, OUT> {
    /// Empty buffers for `framing`.
    pub const fn new(framing: Framing) -> Self {
        Serial {
            reader: FrameReader::new(framing),
            out: [0; OUT],
        }
    }

    /// The framing.
    pub const fn framing(&self) -> Framing {
        self.reader.framing()
    }

    /// Sends [`BOOT_NOTIFICATION`]: call it once after boot, before serving, on links that
    /// reach a bridge (an MCP client on the other end ignores it, but it is not a message the
    /// protocol defines, so leave it off where a client is attached directly).
    pub fn announce_boot<T: Write>(&mut self, link: &mut T) -> Result<(), T::Error> {
        if self.framing() == Framing::Cobs {
            // An empty frame first: whatever half-frame the peer holds from before is ended.
            link.write_all(&[0])?;
        }
        write_frame(link, self.framing(), BOOT_NOTIFICATION)?;
        link.flush()
    }

    /// Serves `server` on `link` until the end of input. `now` gives each round its time (on
    /// a device: seconds since boot). Returns the link's first error.
    pub fn serve<A, T>(
        &mut self,
        server: &Server<'_, A>,
        link: &mut T,
        mut now: impl FnMut() -> u64,
    ) -> Result<(), T::Error>
    where
        A: Handler,
        T: Read + Write + Send,
        T::Error: Send,
    {
        loop {
            if self.serve_one(server, link, &mut now)? == Served::End {
                return Ok(());
            }
        }
    }

    /// Reads one frame (waiting for it), answers it and flushes the link.
    pub fn serve_one<A, T>(
        &mut self,
        server: &Server<'_, A>,
        link: &mut T,
        now: &mut impl FnMut() -> u64,
    ) -> Result<Served, T::Error>
    where
        A: Handler,
        T: Read + Write + Send,
        T::Error: Send,
    {
        let framing = self.reader.framing();
        let message = match self.reader.next(link)? {
            Frame::End => return Ok(Served::End),
            Frame::TooLong => {
                crate::log::debug!("io: frame too large, skipped");
                write_frame(link, framing, TOO_LARGE)?;
                link.flush()?;
                return Ok(Served::TooLarge);
            }
            Frame::Corrupt => {
                crate::log::debug!("io: corrupt frame dropped");
                write_frame(link, framing, CORRUPT)?;
                link.flush()?;
                return Ok(Served::Corrupt);
            }
            Frame::Message(m) if m.iter().all(u8::is_ascii_whitespace) => {
                return Ok(Served::Silent);
            }
            Frame::Message(m) => m,
        };
        let mut notifications = LinkNotifier {
            link: &mut *link,
            framing,
            failed: None,
        };
        let handled = server.handle(
            message,
            Round::anonymous(now()),
            &mut self.out,
            Some(&mut notifications),
        );
        if let Some(e) = notifications.failed {
            return Err(e);
        }
        let served = match handled {
            Ok(Handled::Reply(n)) => {
                write_frame(link, framing, self.out.get(..n).unwrap_or(NO_ROOM))?;
                Served::Replied
            }
            Ok(Handled::Silent | Handled::Cancelled(_)) => Served::Silent,
            Ok(Handled::Listen(subscription)) => {
                // A link served one request at a time cannot hold a stream open, and the
                // catalogue of firmware is fixed: the stream is acknowledged and closed at once.
                for unheld in subscription.unheld() {
                    write_message(link, framing, &mut self.out, |w| unheld.write(w))?;
                }
                Served::Replied
            }
            // A link served one request at a time keeps no tasks: none exists to look up,
            // and a call that would become one is answered that it cannot.
            #[cfg(feature = "tasks")]
            Ok(Handled::Task { id, .. }) => {
                write_message(link, framing, &mut self.out, |w| {
                    crate::tasks::write_unknown_task(w, Some(id));
                })?;
                Served::Replied
            }
            #[cfg(feature = "tasks")]
            Ok(Handled::BecameTask) => {
                write_message(link, framing, &mut self.out, |w| {
                    server.write_too_large(message, NO_TASKS, w);
                })?;
                Served::Replied
            }
            Err(_) => {
                crate::log::debug!("io: reply does not fit the output buffer");
                write_message(link, framing, &mut self.out, |w| {
                    server.write_too_large(message, REPLY_TOO_LARGE, w);
                })?;
                Served::Replied
            }
        };
        link.flush()?;
        Ok(served)
    }
}

/// Writes one message into `out` and sends it as a frame ([`NO_ROOM`] when it does not fit).
fn write_message<T: Write>(
    link: &mut T,
    framing: Framing,
    out: &mut [u8],
    write: impl FnOnce(&mut Writer<'_>),
) -> Result<(), T::Error> {
    let mut w = Writer::new(out);
    write(&mut w);
    let message = match w.finish() {
        Ok(n) => out.get(..n).unwrap_or(NO_ROOM),
        Err(_) => NO_ROOM,
    };
    write_frame(link, framing, message)
}

/// Writes notifications straight to the link, one frame each; remembers the first failure.
struct LinkNotifier<'l, T: Write> {
    link: &'l mut T,
    framing: Framing,
    failed: Option<T::Error>,
}

impl<T: Write> Notifier for LinkNotifier<'_, T> {
    fn notify(&mut self, message: &[u8]) {
        if self.failed.is_none() {
            if let Err(e) = write_frame(self.link, self.framing, message) {
                self.failed = Some(e);
            }
        }
    }
}
