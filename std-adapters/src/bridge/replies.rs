//! The JSON-RPC errors the bridge writes itself, for requests the device could not answer,
//! on every side of the bridge.

use snodo_core::json::{Limits, Writer};
use snodo_core::rpc::{self, ErrorCode, Incoming};

use super::device::DeviceError;

/// The JSON-RPC error for a request the device could not answer (`None` for a
/// notification, which gets no answer even when it could not be delivered).
pub(crate) fn failure_reply(message: &[u8], error: &DeviceError) -> Option<Vec<u8>> {
    let code = match error {
        DeviceError::TooLarge { .. } => ErrorCode::INVALID_REQUEST,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    match rpc::parse(message, &Limits::HOST) {
        Ok(Incoming::Notification(_) | Incoming::Response(_)) => None,
        _ => Some(error_reply(message, code, &error.to_string())),
    }
}

/// An error reply with the id of `message` (null when it has none that can be read).
pub(crate) fn error_reply(message: &[u8], code: ErrorCode, text: &str) -> Vec<u8> {
    let id = match rpc::parse(message, &Limits::HOST) {
        Ok(Incoming::Request(request)) => Some(request.id),
        Ok(_) => None,
        Err(rejected) => rejected.id,
    };
    let mut buf = vec![0; 512 + text.len() * 6];
    let mut w = Writer::new(&mut buf);
    rpc::write_error(&mut w, id, code, text, None);
    match w.finish() {
        Ok(n) => {
            buf.truncate(n);
            buf
        }
        Err(_) => snodo_core::envelope!(null_error: -32603, "Internal error").to_vec(),
    }
}
