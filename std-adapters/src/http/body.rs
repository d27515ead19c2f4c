//! Response bodies: nothing, one JSON message, or a Server-Sent Events stream that runs the
//! request's work as the client reads it.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes, BytesMut};
use http_body::{Frame, SizeHint};
use tokio::sync::mpsc;
use tokio::time::Interval;

/// What a request's work produces, in order.
#[derive(Debug)]
pub(crate) enum Out {
    /// The whole reply, and the HTTP status it has when it is the first thing sent.
    Reply(Bytes, http::StatusCode),
    /// A notification before the reply (or on a listen stream).
    Event(Bytes),
    /// An event already framed for SSE (a legacy stream's, with its id).
    Framed(Bytes),
    /// An SSE comment that keeps an idle stream open.
    KeepAlive,
    /// Nothing to answer (a notification, or a client's response): 202.
    Accepted,
    /// A refusal decided once the body was parsed (a target the caller's token does not
    /// reach), answered as it is; always the only output.
    Refused(Box<http::Response<McpBody>>),
    /// The reply to a legacy `initialize`, which opened `session`.
    Opened {
        /// The `InitializeResult`.
        reply: Bytes,
        /// The id the response names in `Mcp-Session-Id`.
        session: snodo_core::legacy::SessionId,
    },
}

/// A request's work: parse, admit, run the handler, write the reply, feeding [`Out`]s into a
/// channel. It runs while whoever holds it polls it: first the service until the first
/// output, then the response body for the rest. Dropping it (the client went away) drops
/// the handler's future.
pub(crate) type Work = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A request's work and the outputs it produced so far.
pub(crate) struct Exchange {
    work: Option<Work>,
    outputs: mpsc::Receiver<Out>,
}

impl Exchange {
    pub(crate) fn new(work: Work, outputs: mpsc::Receiver<Out>) -> Self {
        Exchange {
            work: Some(work),
            outputs,
        }
    }

    /// Runs the work and returns its next output; `None` once it has finished and every
    /// output was taken.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Out>> {
        if let Some(work) = self.work.as_mut() {
            if work.as_mut().poll(cx).is_ready() {
                self.work = None;
            }
        }
        self.outputs.poll_recv(cx)
    }

    /// The next output.
    pub(crate) async fn next(&mut self) -> Option<Out> {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }
}

/// The body of every response of [`McpService`](super::McpService).
pub struct McpBody {
    kind: Kind,
}

enum Kind {
    Empty,
    Full(Option<Bytes>),
    Stream {
        first: Option<Bytes>,
        exchange: Box<Exchange>,
        ended: bool,
    },
}

impl fmt::Debug for McpBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            Kind::Empty => "empty",
            Kind::Full(_) => "full",
            Kind::Stream { .. } => "event stream",
        };
        f.debug_struct("McpBody").field("kind", &kind).finish()
    }
}

impl McpBody {
    /// No body.
    pub(crate) fn empty() -> Self {
        McpBody { kind: Kind::Empty }
    }

    /// One message.
    pub(crate) fn full(bytes: Bytes) -> Self {
        McpBody {
            kind: Kind::Full(Some(bytes)),
        }
    }

    /// An event stream that starts with `first` (already framed as an event) and goes on
    /// with what `exchange` produces.
    pub(crate) fn stream(first: Option<Bytes>, exchange: Exchange) -> Self {
        McpBody {
            kind: Kind::Stream {
                first,
                exchange: Box::new(exchange),
                ended: false,
            },
        }
    }
}

impl http_body::Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        match &mut this.kind {
            Kind::Empty => Poll::Ready(None),
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream {
                first,
                exchange,
                ended,
            } => {
                if let Some(first) = first.take() {
                    return Poll::Ready(Some(Ok(Frame::data(first))));
                }
                loop {
                    if *ended {
                        return Poll::Ready(None);
                    }
                    return match exchange.poll_next(cx) {
                        Poll::Ready(Some(Out::Event(message))) => {
                            Poll::Ready(Some(Ok(Frame::data(sse_event(&message)))))
                        }
                        Poll::Ready(Some(
                            Out::Reply(message, _) | Out::Opened { reply: message, .. },
                        )) => {
                            // The reply is the last message of a request's stream.
                            *ended = true;
                            Poll::Ready(Some(Ok(Frame::data(sse_event(&message)))))
                        }
                        Poll::Ready(Some(Out::Framed(frame))) => {
                            Poll::Ready(Some(Ok(Frame::data(frame))))
                        }
                        Poll::Ready(Some(Out::KeepAlive)) => {
                            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n")))))
                        }
                        Poll::Ready(Some(Out::Accepted)) => continue,
                        // Never after the response began: nothing more to say.
                        Poll::Ready(Some(Out::Refused(_))) => {
                            *ended = true;
                            Poll::Ready(None)
                        }
                        Poll::Ready(None) => {
                            *ended = true;
                            Poll::Ready(None)
                        }
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Empty => true,
            Kind::Full(bytes) => bytes.is_none(),
            Kind::Stream { first, ended, .. } => first.is_none() && *ended,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Empty => SizeHint::with_exact(0),
            Kind::Full(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64)),
            Kind::Stream { .. } => SizeHint::default(),
        }
    }
}

/// A response of `status` with `body`.
pub(crate) fn response(status: http::StatusCode, body: McpBody) -> http::Response<McpBody> {
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    response
}

/// A response without a body.
pub(crate) fn empty(status: http::StatusCode) -> http::Response<McpBody> {
    response(status, McpBody::empty())
}

/// A response of one JSON message.
pub(crate) fn json(status: http::StatusCode, message: Bytes) -> http::Response<McpBody> {
    let mut response = response(status, McpBody::full(message));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// A response that streams SSE events, `first` (if any) at once.
pub(crate) fn event_stream(first: Option<Bytes>, exchange: Exchange) -> http::Response<McpBody> {
    let mut response = response(http::StatusCode::OK, McpBody::stream(first, exchange));
    let headers = response.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    headers.insert("x-accel-buffering", http::HeaderValue::from_static("no"));
    response
}

/// The next keep-alive, or never.
pub(crate) async fn tick(interval: &mut Option<Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// One JSON-RPC message as an SSE event: `event: message`, one `data:` line. The core never
/// writes a raw line break, but an application may add verbatim JSON text; in valid JSON a
/// raw `\r` or `\n` can only be whitespace between tokens, so a space is an exact substitute.
pub(crate) fn sse_event(message: &[u8]) -> Bytes {
    const HEAD: &[u8] = b"event: message\ndata: ";
    let mut frame = BytesMut::with_capacity(HEAD.len() + message.len() + 2);
    frame.put_slice(HEAD);
    let start = frame.len();
    frame.put_slice(message);
    for b in &mut frame[start..] {
        if matches!(*b, b'\r' | b'\n') {
            *b = b' ';
        }
    }
    frame.put_slice(b"\n\n");
    frame.freeze()
}
