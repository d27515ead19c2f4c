//! The serve loop: one line in, one round through the core, one line out.
//!
//! Everything lives in fixed buffers on the stack: the line buffer
//! ([`MAX_MESSAGE`] + 2 bytes) and the output buffer ([`MAX_MESSAGE`] + 1 bytes, the reply and
//! its newline), about 4 KiB in all. Progress notifications are formatted by the core in the
//! unused tail of the output buffer and written to the link before the reply.

use snodo_core::json::Writer;
use snodo_core::server::{Handled, Handler, Notifier, Round, Server};

use crate::framing::{Frame, LineReader, Link};

/// The largest message the device reads or writes, in bytes (the core's `Limits::DEVICE`).
pub const MAX_MESSAGE: usize = 2048;

/// The reply to a line longer than [`MAX_MESSAGE`]: it cannot be parsed, so its id is unknown.
const TOO_LONG: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Message too large\"}}\n";

/// The reply when not even an error fits the output buffer (never expected at these sizes).
const NO_ROOM: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Reply too large\"}}\n";

/// Serves `server` on `link` until the end of input. `now` gives each round its time.
pub fn serve<A, L>(
    server: &Server<'_, A>,
    link: &mut L,
    mut now: impl FnMut() -> u64,
) -> Result<(), L::Error>
where
    A: Handler,
    L: Link + Send,
    L::Error: Send,
{
    let mut lines = LineReader::<{ MAX_MESSAGE + 2 }>::new();
    let mut out = [0u8; MAX_MESSAGE + 1];
    loop {
        let line = match lines.next(link)? {
            Frame::End => return Ok(()),
            Frame::TooLong => {
                link.write_all(TOO_LONG)?;
                continue;
            }
            Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Frame::Line(line) => line,
        };
        let mut notifications = LinkNotifier {
            link: &mut *link,
            failed: None,
        };
        let handled = server.handle(
            line,
            Round::anonymous(now()),
            &mut out[..MAX_MESSAGE],
            Some(&mut notifications),
        );
        if let Some(e) = notifications.failed {
            return Err(e);
        }
        match handled {
            Ok(Handled::Reply(n)) => {
                out[n] = b'\n';
                link.write_all(&out[..=n])?;
            }
            Ok(Handled::Silent | Handled::Cancelled(_)) => {}
            Ok(Handled::Listen(subscription)) => {
                // The device's catalogue never changes, and a link served one request at a
                // time cannot hold a stream open: acknowledge, then close the stream at once.
                for closing in [false, true] {
                    let mut w = Writer::new(&mut out[..MAX_MESSAGE]);
                    if closing {
                        subscription.write_closed(&mut w);
                    } else {
                        subscription.write_acknowledged(&mut w);
                    }
                    match w.finish() {
                        Ok(n) => {
                            out[n] = b'\n';
                            link.write_all(&out[..=n])?;
                        }
                        Err(_) => link.write_all(NO_ROOM)?,
                    }
                }
            }
            Err(_) => link.write_all(NO_ROOM)?,
        }
    }
}

/// Writes notifications straight to the link, one line each; remembers the first failure.
struct LinkNotifier<'l, L: Link> {
    link: &'l mut L,
    failed: Option<L::Error>,
}

impl<L: Link> Notifier for LinkNotifier<'_, L> {
    fn notify(&mut self, message: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        let written = self
            .link
            .write_all(message)
            .and_then(|()| self.link.write_all(b"\n"));
        if let Err(e) = written {
            self.failed = Some(e);
        }
    }
}
