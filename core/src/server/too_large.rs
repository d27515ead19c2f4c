//! The answer when a reply does not fit the output buffer: -32603 with the request's id.

use super::{Registry, Server};
use crate::json::Writer;
use crate::rpc::{self, ErrorCode, Incoming};

impl<A: Registry> Server<'_, A> {
    /// Writes the -32603 error `message` for the request in `input`, whose reply did not fit
    /// the output buffer. The id is found by parsing `input` again: a rare path, not worth a
    /// copy of the id on every round.
    pub fn write_too_large(&self, input: &[u8], message: &str, w: &mut Writer<'_>) {
        let id = match rpc::parse(input, &self.config.limits) {
            Ok(Incoming::Request(request)) => Some(request.id),
            Ok(_) => None,
            Err(rejected) => rejected.id,
        };
        w.rewind(0);
        rpc::write_error(w, id, ErrorCode::INTERNAL_ERROR, message, None);
    }
}
