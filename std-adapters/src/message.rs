//! Messages written outside a round's output buffer (a refusal of a whole line or body, the
//! reply to a request whose reply did not fit), in a buffer of their own grown until they fit.

use snodo_core::json::{BufferTooSmall, Writer};
use snodo_core::server::{Registry, Server};

/// The message `write` writes.
pub(crate) fn written(write: impl Fn(&mut Writer<'_>)) -> Vec<u8> {
    // Every size is within `usize::MAX`: this is never the empty default.
    written_within(usize::MAX, write).unwrap_or_default()
}

/// The message `write` writes, if it takes at most `most` bytes.
pub(crate) fn written_within(
    most: usize,
    write: impl Fn(&mut Writer<'_>),
) -> Result<Vec<u8>, BufferTooSmall> {
    let mut buf = vec![0; 256.min(most)];
    loop {
        let mut w = Writer::new(&mut buf);
        write(&mut w);
        match w.finish() {
            Ok(len) => {
                buf.truncate(len);
                return Ok(buf);
            }
            Err(too_small) if too_small.required <= most => buf.resize(too_small.required, 0),
            Err(too_small) => return Err(too_small),
        }
    }
}

/// What the host adapters answer a request whose reply exceeds their output buffer.
const TOO_LARGE: &str = "The response exceeds the output buffer";

/// The -32603 reply to the request in `input` whose reply did not fit the output buffer.
pub(crate) fn too_large<A: Registry>(server: &Server<'_, A>, input: &[u8]) -> Vec<u8> {
    written(|w| server.write_too_large(input, TOO_LARGE, w))
}
