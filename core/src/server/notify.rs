//! Request-scoped notifications (progress, log messages) and where they go.
//!
//! The core formats a notification and hands its bytes to a [`Notifier`] the adapter
//! supplies; the adapter decides how it travels (a line on stdio, an SSE event on HTTP, a
//! frame on a serial link).

/// Receives complete notification messages produced while a request runs.
pub trait Notifier {
    /// One JSON-RPC notification, ready to send. Called before the request's reply.
    fn notify(&mut self, message: &[u8]);
}

/// A notifier that drops everything (for callers that do not stream).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl Notifier for Discard {
    fn notify(&mut self, _message: &[u8]) {}
}
