//! The one-call convenience: drive a whole operation over a blocking transport with a
//! synchronous handler (firmware, tests, simple tools).

use super::{ClientConfig, ClientError, Exchange, InputHandler, Operation, Reply};
use crate::json::{Object, parse};

/// Moves one request to the server and its response back (a serial link, an HTTP POST, a
/// pipe to a child process). Over Streamable HTTP, compute the request headers with
/// [`request_headers`](super::headers::request_headers).
pub trait Transport {
    /// What can go wrong on the way.
    type Error;

    /// Sends `request` (one JSON-RPC request, without a trailing newline) and receives the
    /// response to it into `response`, returning its length. Notifications that arrive
    /// before the response (progress, logs) are the transport's to deliver or drop.
    fn round_trip(&mut self, request: &[u8], response: &mut [u8]) -> Result<usize, Self::Error>;
}

/// Why [`run`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RunError<E> {
    /// The exchange failed, or the server answered with an error
    /// ([`ClientError::Server`]; its message and data are still in the response buffer).
    Client(ClientError),
    /// The transport failed.
    Transport(E),
}

impl<E> From<ClientError> for RunError<E> {
    fn from(e: ClientError) -> Self {
        RunError::Client(e)
    }
}

/// Ids for requests: a counter the caller keeps across operations, so every request of a
/// client gets a fresh one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ids {
    next: i64,
}

impl Ids {
    /// Starting at 1.
    pub const fn new() -> Self {
        Ids { next: 1 }
    }

    /// The next id (wrapping past `i64::MAX` to 1).
    pub fn next_id(&mut self) -> i64 {
        let id = self.next.max(1);
        self.next = id.checked_add(1).unwrap_or(1);
        id
    }
}

/// Drives `operation` to its final result: writes each request into `out`, moves it with
/// `transport`, answers `input_required` through `handler`, retries with fresh ids from
/// `ids`, and returns the final result, which lives in `response`.
pub fn run<'r, T: Transport, H: InputHandler + ?Sized>(
    config: &ClientConfig<'_>,
    operation: Operation<'_>,
    handler: &mut H,
    transport: &mut T,
    ids: &mut Ids,
    out: &mut [u8],
    response: &'r mut [u8],
) -> Result<Object<'r>, RunError<T::Error>> {
    let mut exchange = Exchange::new(config, operation, handler.installed());
    let mut len = exchange.write_request(ids.next_id(), out)?;
    let final_len = loop {
        let request = out.get(..len).unwrap_or_default();
        let n = transport
            .round_trip(request, response)
            .map_err(RunError::Transport)?;
        let received = response.get(..n).ok_or(ClientError::MalformedResponse {
            reason: "the transport reported more bytes than the buffer holds",
        })?;
        match exchange.read_response(received)? {
            Reply::Complete(_) => break n,
            // This runner does not poll tasks (its handler never declares the extension).
            Reply::Task(_) => return Err(ClientError::UnknownResultType.into()),
            Reply::Error(e) => return Err(ClientError::Server { code: e.code }.into()),
            Reply::VersionRetry => len = exchange.write_request(ids.next_id(), out)?,
            Reply::InputRequired(input) => {
                len = exchange.write_retry_with(ids.next_id(), &input, out, handler)?;
            }
        }
    };
    // Read again outside the loop, so the result may borrow `response` for 'r.
    let response: &'r [u8] = response;
    let result = parse(
        response.get(..final_len).unwrap_or_default(),
        &config.limits,
    )
    .ok()
    .and_then(|m| m.get("result"))
    .and_then(|r| r.as_object())
    .ok_or(ClientError::MalformedResponse {
        reason: "the final response changed",
    })?;
    Ok(result)
}
