//! The bridge's Streamable HTTP side: the listener's own admission and header rules applied
//! at the bridge, then the message relayed to the device.
//!
//! A POST goes through the same steps as on [`McpService`](crate::http::McpService): path,
//! `Host`, `Origin`, method, `Content-Type`, `Accept` and body limits (the shared admission),
//! then the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers against the body (-32020).
//! `Mcp-Param-*` headers are checked only for their form: the bridge does not know the
//! device's tool schemas. The device's reply is sent as JSON with the status its error code
//! maps to; when the device reports progress first, the response is an event stream, as on
//! the listener. A failure of the device is a JSON-RPC -32603 error with the request's id,
//! under 503 (disconnected, busy), 504 (no answer in time) or 502 (garbage).
//!
//! A legacy POST (`initialize`, or a message naming its `Mcp-Session-Id`), and a session's
//! `GET` or `DELETE`, take the HTTP server's legacy path ([`crate::http::legacy`]) with the
//! device as its backend ([`DeviceBackend`]): the sessions, their streams and the bridged
//! input requests are the server's own.
//!
//! With [`BridgeService::with_auth`] (feature `auth`) the endpoint is the OAuth resource
//! server of [`crate::http::auth`]: the token and the endpoint's scopes are checked after
//! the admission, the scopes of each request's tool, resource or prompt on its parsed body
//! (in both eras) before it is relayed or taken by its session, and legacy sessions are
//! bound to the token's subject. The device is not told the subject.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use snodo_core::json::Limits;
use snodo_core::rpc::{self, Incoming as Message};
use tokio::sync::mpsc;

use snodo_core::legacy::{EraSupport, HttpRoute};
use tokio::sync::watch;

use super::device::{Answer, Device, DeviceError};
use super::replies::{error_reply, failure_reply};
use super::rounds::DeviceBackend;
use crate::buffers::{BufferPool, KEEP_IDLE};
use crate::http::admission;
use crate::http::admission::Admitted;
use crate::http::body::{Exchange, McpBody, Out, Work, sse_event};
use crate::http::body::{empty, event_stream, json};
use crate::http::grant;
use crate::http::headers;
use crate::http::legacy;
use crate::http::listener::sealed::Sealed;
use crate::http::service::{read_body, refused, status_of};
use crate::http::{Endpoint, HttpConfig, HttpListener};
use crate::in_flight::InFlight;
use crate::legacy::backend::Backend;
use crate::legacy::sessions::Sessions;

/// The endpoint: HTTP in front, the device behind.
#[derive(Clone, Debug)]
pub struct BridgeService {
    device: Device,
    config: Arc<HttpConfig>,
    legacy: Arc<LegacySide>,
    #[cfg(feature = "auth")]
    auth: Option<crate::http::auth::Authorization>,
}

/// What the legacy (2025-11-25) sessions of the endpoint share.
#[derive(Debug)]
struct LegacySide {
    backend: DeviceBackend,
    sessions: Sessions,
    in_flight: Arc<InFlight>,
    /// Set when the listener shuts down: every session's `GET` stream ends.
    closing: watch::Sender<bool>,
}

impl BridgeService {
    /// An endpoint for `device` with the listener's configuration `config`.
    pub fn new(device: Device, config: HttpConfig) -> Self {
        let legacy = LegacySide {
            backend: DeviceBackend::new(device.clone()),
            sessions: Sessions::new(
                config.legacy_sessions,
                config.bridge.max_waiting,
                Arc::new(BufferPool::new(config.max_response_len, KEEP_IDLE)),
            ),
            in_flight: Arc::default(),
            closing: watch::Sender::new(false),
        };
        BridgeService {
            device,
            config: Arc::new(config),
            legacy: Arc::new(legacy),
            #[cfg(feature = "auth")]
            auth: None,
        }
    }

    /// Makes the endpoint an OAuth resource server, as
    /// [`McpService::with_auth`](crate::http::McpService::with_auth) does: its metadata
    /// served, every request's bearer token checked after the HTTP admission rules, the
    /// scopes of each request's tool, resource or prompt checked once its body is parsed
    /// (in both eras), and the token's subject the principal of legacy sessions.
    #[cfg(feature = "auth")]
    #[must_use]
    pub fn with_auth(self, auth: crate::http::auth::Authorization) -> Self {
        BridgeService {
            auth: Some(auth),
            ..self
        }
    }

    /// Answers one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let config = &*self.config;
        #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
        let (mut parts, body) = request.into_parts();
        #[cfg(feature = "auth")]
        if let Some(metadata) = self.auth.as_ref().and_then(|auth| auth.metadata(&parts)) {
            return metadata;
        }
        let admitted = match admission::admit(&parts, config) {
            Ok(admitted) => admitted,
            Err(refusal) => {
                tracing::debug!(?refusal, "refused");
                return refused(refusal);
            }
        };
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            if let Err(refusal) = auth.admit(&mut parts).await {
                return refusal;
            }
        }
        let principal = grant::subject(&parts);
        let grant = grant::take(&mut parts);
        if admitted == Admitted::SessionMethod {
            return self.session_method(&parts, principal.as_deref());
        }
        let body = match read_body(body, config.max_body_len, config.body_read_timeout).await {
            Ok(body) => body,
            Err(refusal) => return refused(refusal),
        };
        let parsed = rpc::parse(&body, &Limits::HOST);
        if let Ok(message) = &parsed {
            match legacy::classify(message, &parts.headers, EraSupport::Both) {
                Ok(HttpRoute::Modern) => {}
                Ok(route) => {
                    if let Message::Request(request) = message {
                        if let Err(refusal) = grant::admit(grant.as_ref(), request) {
                            return *refusal;
                        }
                    }
                    let side = &*self.legacy;
                    let reading = legacy::Reading {
                        sessions: &side.sessions,
                        in_flight: &side.in_flight,
                        served: side.backend.served(),
                    };
                    let principal = principal.as_deref();
                    let prepared =
                        legacy::prepare(&reading, route, message, &body, &parts.headers, principal);
                    return self.legacy_post(prepared, body, principal).await;
                }
                Err(mismatch) => {
                    return match legacy::refuse_era(mismatch, message, EraSupport::Both) {
                        Out::Reply(reply, status) => json(status, reply),
                        _ => empty(StatusCode::BAD_REQUEST),
                    };
                }
            }
        }
        match parsed {
            Ok(Message::Request(request)) => {
                if let Err(mismatch) = headers::check_against(&parts.headers, &request, None) {
                    tracing::debug!(?mismatch, "headers disagree with the body");
                    let mut buf = vec![0; 1024];
                    let mut w = snodo_core::json::Writer::new(&mut buf);
                    mismatch.write(&mut w, Some(request.id));
                    let n = w.finish().unwrap_or(0);
                    buf.truncate(n);
                    return json(StatusCode::BAD_REQUEST, Bytes::from(buf));
                }
                if let Err(refusal) = grant::admit(grant.as_ref(), &request) {
                    return *refusal;
                }
            }
            // A client's response: the device never asks anything, so there is nothing to
            // deliver it to.
            Ok(Message::Response(_)) => return empty(StatusCode::ACCEPTED),
            Ok(Message::Notification(_)) | Err(_) => {}
        }
        let answers = self.device.send(body.to_vec());
        let (outputs, received) = mpsc::channel(config.notification_queue.max(1));
        let work: Work = Box::pin(relay(body, answers, outputs));
        respond(Exchange::new(work, received), |_| {
            empty(StatusCode::ACCEPTED)
        })
        .await
    }

    /// A POST of a legacy session (or its `initialize`): the session rules of the HTTP
    /// server ([`legacy::post`]) with the device as the backend.
    async fn legacy_post(
        &self,
        prepared: legacy::Prepared,
        body: Bytes,
        principal: Option<&str>,
    ) -> Response<McpBody> {
        let (outputs, received) = mpsc::channel(self.config.notification_queue.max(1));
        let side = Arc::clone(&self.legacy);
        let config = Arc::clone(&self.config);
        let principal = principal.map(str::to_owned);
        let work: Work = Box::pin(async move {
            let endpoint = legacy::Endpoint {
                backend: side.backend.clone(),
                sessions: &side.sessions,
                in_flight: &side.in_flight,
                bridge: config.bridge,
            };
            let principal = principal.as_deref();
            if let Ok(answer) = legacy::post(endpoint, prepared, &body, principal, &outputs).await {
                let _ = outputs.send(answer).await;
            }
        });
        // Cancelled before anything was said: an event stream with no events.
        respond(Exchange::new(work, received), |exchange| {
            event_stream(None, exchange)
        })
        .await
    }

    /// A legacy session's `GET` (its event stream, or a resumed POST stream) or `DELETE`.
    fn session_method(
        &self,
        parts: &http::request::Parts,
        principal: Option<&str>,
    ) -> Response<McpBody> {
        let side = &*self.legacy;
        let streams = legacy::StreamSettings {
            served: side.backend.served(),
            // The bridge relays no change events of the device outside a request.
            events: None,
            closing: side.closing.subscribe(),
            keep_alive: self.config.keep_alive,
            queue: self.config.notification_queue.max(1),
        };
        legacy::session_method(&side.sessions, parts, principal, streams)
    }
}

/// The response an exchange's first output decides; `silent` makes it when there is none.
async fn respond(
    mut exchange: Exchange,
    silent: impl FnOnce(Exchange) -> Response<McpBody>,
) -> Response<McpBody> {
    match exchange.next().await {
        Some(Out::Reply(message, status)) => json(status, message),
        Some(Out::Opened { reply, session }) => legacy::opened(reply, &session),
        Some(Out::Refused(response)) => *response,
        Some(Out::Event(message)) => event_stream(Some(sse_event(&message)), exchange),
        Some(Out::Framed(frame)) => event_stream(Some(frame), exchange),
        Some(Out::KeepAlive) => event_stream(Some(Bytes::from_static(b":\n\n")), exchange),
        Some(Out::Accepted) => empty(StatusCode::ACCEPTED),
        None => silent(exchange),
    }
}

/// Turns the device's answers into the outputs of an exchange.
async fn relay(body: Bytes, mut answers: mpsc::Receiver<Answer>, outputs: mpsc::Sender<Out>) {
    while let Some(answer) = answers.recv().await {
        let out = match answer {
            Answer::Notification(m) => Out::Event(Bytes::from(m)),
            Answer::Reply(m) => {
                let reply = Bytes::from(m);
                let status = status_of(&reply);
                Out::Reply(reply, status)
            }
            Answer::Sent => Out::Accepted,
            Answer::Failed(e) => {
                tracing::error!("{e}");
                match failure_reply(&body, &e) {
                    Some(reply) => Out::Reply(Bytes::from(reply), failure_status(&e)),
                    None => Out::Accepted,
                }
            }
        };
        let last = !matches!(out, Out::Event(_));
        if outputs.send(out).await.is_err() || last {
            return;
        }
    }
    let reply = error_reply(&body, rpc::ErrorCode::INTERNAL_ERROR, "the bridge stopped");
    let _ = outputs
        .send(Out::Reply(
            Bytes::from(reply),
            StatusCode::INTERNAL_SERVER_ERROR,
        ))
        .await;
}

fn failure_status(error: &DeviceError) -> StatusCode {
    match error {
        DeviceError::Disconnected(_) | DeviceError::Busy => StatusCode::SERVICE_UNAVAILABLE,
        DeviceError::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
        DeviceError::Garbage(_) => StatusCode::BAD_GATEWAY,
        DeviceError::TooLarge { .. } => StatusCode::BAD_REQUEST,
    }
}

impl Sealed for BridgeService {}

impl Endpoint for BridgeService {
    fn config(&self) -> &HttpConfig {
        &self.config
    }

    fn answer(&self, request: Request<Incoming>) -> impl Future<Output = Response<McpBody>> + Send {
        self.handle(request)
    }

    /// Ends the legacy sessions' `GET` streams.
    fn close_streams(&self) {
        self.legacy.closing.send_replace(true);
    }
}

/// Binds `config.addr` and serves the bridge until the process ends; `bound` is told the
/// address (with the port the system picked for port 0) before the first connection. The
/// listener is the server's own ([`HttpListener`]): for TLS or a graceful shutdown, bind
/// `HttpListener::bind_service(BridgeService::new(device, config))` and use its handles.
pub async fn serve_http(
    device: Device,
    config: HttpConfig,
    bound: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    let listener = HttpListener::bind_service(BridgeService::new(device, config)).await?;
    bound(listener.local_addr()?);
    listener.serve().await
}
