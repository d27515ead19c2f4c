//! Messages written outside a round's output buffer (a refusal of a whole line or body, the
//! reply to a request whose reply did not fit), in a buffer of their own grown until they fit.

use snodo_core::json::Writer;
use snodo_core::server::{Registry, Server};

/// The message `write` writes.
pub(crate) fn written(write: impl Fn(&mut Writer<'_>)) -> Vec<u8> {
    let mut buf = vec![0; 256];
    loop {
        let mut w = Writer::new(&mut buf);
        write(&mut w);
        match w.finish() {
            Ok(len) => {
                buf.truncate(len);
                return buf;
            }
            Err(too_small) => buf.resize(too_small.required, 0),
        }
    }
}

/// What the host adapters answer a request whose reply exceeds their output buffer.
const TOO_LARGE: &str = "The response exceeds the output buffer";

/// The -32603 reply to the request in `input` whose reply did not fit the output buffer.
pub(crate) fn too_large<A: Registry>(server: &Server<'_, A>, input: &[u8]) -> Vec<u8> {
    written(|w| server.write_too_large(input, TOO_LARGE, w))
}
