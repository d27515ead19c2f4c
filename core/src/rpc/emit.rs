//! The JSON-RPC 2.0 envelope as it is written: every response, request and notification
//! the crate writes opens through one of these, so the envelope is spelled in one place and
//! each opening is one copy of fixed bytes plus the id.
//!
//! Each function writes up to the member whose value the caller then writes, and the caller
//! closes the message with `}`:
//!
//! ```
//! use snodo_core::json::Writer;
//! use snodo_core::rpc::{Id, emit};
//!
//! let mut out = [0u8; 64];
//! let mut w = Writer::new(&mut out);
//! emit::result(&mut w, Id::Num(7));
//! w.raw(b"{}}");
//! let len = w.finish().unwrap();
//! assert_eq!(&out[..len], br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
//! ```

use super::Id;
use crate::json::{Value, Writer};

/// How every response and request begins, up to its id: what a reader of our own replies
/// may look for.
pub const RESPONSE_PREFIX: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";

/// How every notification begins, up to its method.
const NOTIFICATION_PREFIX: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":";

/// What can stand as a message's id: a parsed [`Id`], an integer of our own, an id copied as
/// it arrived, or `null` (`None`, for an error to a message whose id could not be read).
pub trait WireId {
    /// Writes the id as JSON.
    fn emit(&self, w: &mut Writer<'_>);
}

impl WireId for Id<'_> {
    fn emit(&self, w: &mut Writer<'_>) {
        self.write(w);
    }
}

impl WireId for i64 {
    fn emit(&self, w: &mut Writer<'_>) {
        w.i64(*self);
    }
}

impl WireId for Value<'_> {
    fn emit(&self, w: &mut Writer<'_>) {
        w.value(*self);
    }
}

impl<T: WireId> WireId for Option<T> {
    fn emit(&self, w: &mut Writer<'_>) {
        match self {
            Some(id) => id.emit(w),
            None => {
                w.null();
            }
        }
    }
}

/// Opens a response to `id` with its result: `{"jsonrpc":"2.0","id":…,"result":`.
pub fn result(w: &mut Writer<'_>, id: impl WireId) {
    w.raw(RESPONSE_PREFIX);
    id.emit(w);
    w.raw(b",\"result\":");
}

/// Opens an error response to `id`: `{"jsonrpc":"2.0","id":…,"error":`.
pub fn error(w: &mut Writer<'_>, id: impl WireId) {
    w.raw(RESPONSE_PREFIX);
    id.emit(w);
    w.raw(b",\"error\":");
}

/// Opens a request of ours: `{"jsonrpc":"2.0","id":…,"method":` (the caller writes the
/// method, then its `"params"`).
pub fn request(w: &mut Writer<'_>, id: impl WireId) {
    w.raw(RESPONSE_PREFIX);
    id.emit(w);
    w.raw(b",\"method\":");
}

/// Opens a notification: `{"jsonrpc":"2.0","method":` (the caller writes the method, then
/// any `"params"`).
pub fn notification(w: &mut Writer<'_>) {
    w.raw(NOTIFICATION_PREFIX);
}

/// A whole message as a constant, for the fixed replies written where no writer runs (a
/// frame too large to read, say): `envelope!(null_error: -32600, "Message too large")`,
/// `envelope!(notification: "notifications/io.snodo/boot")`, or a request whose id and
/// params are JSON text: `envelope!(request: r#""probe""#, "server/discover", "{}")`.
#[macro_export]
#[doc(hidden)]
macro_rules! envelope {
    (null_error: $code:literal, $message:literal) => {
        concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":",
            $code,
            ",\"message\":\"",
            $message,
            "\"}}"
        )
        .as_bytes()
    };
    (request: $id:literal, $method:literal, $params:literal) => {
        concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":",
            $id,
            ",\"method\":\"",
            $method,
            "\",\"params\":",
            $params,
            "}"
        )
        .as_bytes()
    };
    (notification: $method:literal) => {
        concat!("{\"jsonrpc\":\"2.0\",\"method\":\"", $method, "\"}").as_bytes()
    };
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::vec::Vec;

    use super::*;

    fn written(write: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
        let mut out = [0u8; 128];
        let mut w = Writer::new(&mut out);
        write(&mut w);
        let len = w.finish().unwrap();
        out[..len].to_vec()
    }

    #[test]
    fn each_opening_is_the_envelope_up_to_its_member() {
        assert_eq!(
            written(|w| error(w, None::<Id<'_>>)),
            br#"{"jsonrpc":"2.0","id":null,"error":"#
        );
        assert_eq!(
            written(|w| request(w, 3_i64)),
            br#"{"jsonrpc":"2.0","id":3,"method":"#
        );
        assert_eq!(written(notification), br#"{"jsonrpc":"2.0","method":"#);
        let id = crate::json::parse(br#""a\u0062""#, &crate::json::Limits::default()).unwrap();
        assert_eq!(
            written(|w| result(w, id)),
            br#"{"jsonrpc":"2.0","id":"a\u0062","result":"#
        );
    }

    #[test]
    fn the_constant_messages_are_the_envelope_too() {
        assert_eq!(
            envelope!(null_error: -32600, "Message too large"),
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Message too large"}}"#
        );
        assert_eq!(
            envelope!(notification: "notifications/x"),
            br#"{"jsonrpc":"2.0","method":"notifications/x"}"#
        );
        assert_eq!(
            envelope!(request: r#""p""#, "server/discover", "{}"),
            br#"{"jsonrpc":"2.0","id":"p","method":"server/discover","params":{}}"#
        );
        assert!(envelope!(null_error: -1, "m").starts_with(RESPONSE_PREFIX));
    }
}
