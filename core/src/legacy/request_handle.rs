//! A legacy request as a small `Copy` handle: offsets into the bytes it was parsed from. A
//! transport that reads a message once (to route it, step the session) and runs the request
//! later, on other borrows of the same bytes (a task of its own), keeps the handle beside
//! them and borrows the request again ([`RequestHandle::view`]) without parsing it again.

use crate::rpc::Request;
use crate::server::span::{IdSpan, Span, fingerprint};

/// A [`Request`] by offsets into its message ([`RequestHandle::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestHandle {
    /// Of the whole message: a view in other bytes is refused.
    fingerprint: u64,
    len: usize,
    id: IdSpan,
    /// The method name, between its quotes.
    method: Span,
    params: Option<Span>,
}

impl RequestHandle {
    /// `request` as a handle into `message`, the bytes it was parsed from (`None` when it
    /// does not lie in them).
    pub fn of(message: &[u8], request: &Request<'_>) -> Option<Self> {
        let params = match request.params {
            Some(params) => Some(Span::of(message, params.as_value().raw())?),
            None => None,
        };
        Some(RequestHandle {
            fingerprint: fingerprint(message),
            len: message.len(),
            id: IdSpan::of(message, request.id)?,
            method: Span::of(message, request.method.raw())?,
            params,
        })
    }

    /// The request again, borrowed from `message` without a scan: `None` unless `message`
    /// holds the bytes the handle was taken from.
    pub fn view<'m>(&self, message: &'m [u8]) -> Option<Request<'m>> {
        if message.len() != self.len || fingerprint(message) != self.fingerprint {
            return None;
        }
        let params = match self.params {
            Some(span) => Some(span.view(message)?.as_object()?),
            None => None,
        };
        Some(Request {
            id: self.id.view(message)?,
            method: self.method.view_str(message)?,
            params,
        })
    }
}
