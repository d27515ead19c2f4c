//! The client side of Streamable HTTP: one POST per request with the request headers the
//! core computes, and a response read as one JSON message or as an event stream.
//!
//! A session of the `initialize` era (2025-11-25 Streamable HTTP) keeps the `Mcp-Session-Id`
//! the server minted on its `InitializeResult` and sends it, with `MCP-Protocol-Version` of
//! the negotiated version, on every later POST instead of the 2026-07-28 headers; the
//! server's requests on a response stream are answered with POSTs of their own, and
//! [`HttpTransport::end_session`] `DELETE`s the session.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderName, HeaderValue, Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use snodo_core::client::headers::{HeaderError, request_headers};
use snodo_core::json::{Limits, parse};

use super::handlers::Handlers;
use super::server_requests;
use super::sse::EventStream;
use super::{ClientError, Notify};

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// The detail of the 404 a POST of an ended or expired legacy session gets.
pub(crate) const SESSION_GONE: &str = "the legacy session ended or expired";

/// A Streamable HTTP endpoint.
pub(crate) struct HttpTransport {
    uri: Uri,
    client: HyperClient<HttpConnector, Full<Bytes>>,
    extra_headers: Vec<(HeaderName, HeaderValue)>,
    /// Set once an `initialize` handshake succeeded.
    legacy: Mutex<Option<LegacySession>>,
    /// The task reading the legacy session's own event stream (`GET`), if one is open.
    listener: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Bounds on what is read.
    limits: Limits,
    /// Where the server's notifications go.
    notify: Option<Notify>,
    /// What answers the server's requests on a legacy session.
    handlers: Handlers,
}

/// What every request of a legacy session carries.
#[derive(Clone, Debug)]
struct LegacySession {
    /// `Mcp-Session-Id`, when the server minted one.
    id: Option<HeaderValue>,
    /// The negotiated version, for `MCP-Protocol-Version`.
    version: HeaderValue,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

impl HttpTransport {
    /// An endpoint at `url` (`http://` only: this client has no TLS), read within `limits`;
    /// notifications go to `notify`, and on a legacy session `handlers` answer the server's
    /// requests.
    pub(crate) fn new(
        url: &str,
        extra_headers: Vec<(HeaderName, HeaderValue)>,
        limits: Limits,
        notify: Option<Notify>,
        handlers: Handlers,
    ) -> Result<Self, ClientError> {
        let uri: Uri = url
            .parse()
            .map_err(|e| ClientError::Transport(format!("`{url}` is not a URL: {e}")))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => {
                return Err(ClientError::Transport(format!(
                    "the {other} scheme is not supported (plain http only; put a TLS proxy in front)"
                )));
            }
            None => {
                return Err(ClientError::Transport(format!(
                    "`{url}` is not an absolute http URL"
                )));
            }
        }
        let client = HyperClient::builder(TokioExecutor::new()).build_http();
        Ok(HttpTransport {
            uri,
            client,
            extra_headers,
            legacy: Mutex::new(None),
            listener: Mutex::new(None),
            limits,
            notify,
            handlers,
        })
    }

    fn legacy_session(&self) -> Option<LegacySession> {
        lock(&self.legacy).clone()
    }

    /// The legacy session's id, if there is one.
    pub(crate) fn session_id(&self) -> Option<HeaderValue> {
        lock(&self.legacy).as_ref().and_then(|s| s.id.clone())
    }

    /// Opens the legacy session's own event stream (`GET`), on which a server sends the
    /// requests and notifications that belong to no POST, and reads it in a task until the
    /// stream ends or the session does. A server that offers none answers `405`.
    pub(crate) async fn listen(self: &Arc<Self>) {
        let Some(session) = self.legacy_session() else {
            return;
        };
        let Ok(request) = self
            .session_request(Method::GET, &session)
            .header(ACCEPT, "text/event-stream")
            .body(Full::new(Bytes::new()))
        else {
            return;
        };
        let response = match self.client.request(request).await {
            Ok(response) if response.status().is_success() => response,
            Ok(response) => {
                tracing::debug!(status = %response.status(), "no event stream for the session");
                return;
            }
            Err(e) => {
                tracing::debug!(error = %e, "the session's event stream could not be opened");
                return;
            }
        };
        let transport = Arc::clone(self);
        let task = tokio::spawn(async move {
            let mut body = response.into_body();
            let mut events = EventStream::default();
            while let Some(Ok(frame)) = body.frame().await {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                for event in events.feed(&data) {
                    // No response is awaited here (id 0 is never used for a request).
                    let _ = transport.take(event, 0, true).await;
                }
                if events.buffered() > transport.limits.max_size {
                    tracing::warn!(
                        "an event on the session's stream exceeds the size limit; closed"
                    );
                    return;
                }
            }
        });
        if let Some(previous) = lock(&self.listener).replace(task) {
            previous.abort();
        }
    }

    /// A request to the endpoint with the session's id and version headers.
    fn session_request(&self, method: Method, session: &LegacySession) -> http::request::Builder {
        let mut builder = Request::builder().method(method).uri(self.uri.clone());
        if let Some(id) = &session.id {
            builder = builder.header(SESSION_ID, id);
        }
        builder = builder.header(PROTOCOL_VERSION, &session.version);
        for (name, value) in &self.extra_headers {
            builder = builder.header(name, value);
        }
        builder
    }

    /// POSTs the `initialize` request (id `id`) and reads its response; the session id the
    /// server mints comes back with it.
    pub(crate) async fn initialize(
        &self,
        id: i64,
        request: &[u8],
        timeout: Option<Duration>,
    ) -> Result<(Vec<u8>, Option<HeaderValue>), ClientError> {
        let post = self.legacy_post(request, None)?;
        let exchange = async {
            let response = self.send(post).await?;
            let session = response.headers().get(SESSION_ID).cloned();
            let body = self.read_response(response, id, false).await?;
            Ok((body, session))
        };
        within(timeout, exchange).await
    }

    /// From now on every request belongs to the legacy session `id` (if the server minted
    /// one) of `version`.
    pub(crate) fn set_legacy(&self, id: Option<HeaderValue>, version: &'static str) {
        let session = LegacySession {
            id,
            version: HeaderValue::from_static(version),
        };
        *lock(&self.legacy) = Some(session);
    }

    /// POSTs a notification or a response of the legacy session; the server accepts it
    /// with `202`.
    pub(crate) async fn post_message(
        &self,
        message: &[u8],
        timeout: Option<Duration>,
    ) -> Result<(), ClientError> {
        let post = self.legacy_post(message, self.legacy_session().as_ref())?;
        within(timeout, async {
            let response = self.send(post).await?;
            let status = response.status();
            if status.is_success() {
                return Ok(());
            }
            Err(ClientError::Http {
                status: status.as_u16(),
                detail: "the server did not accept the message".to_owned(),
            })
        })
        .await
    }

    /// Ends the legacy session, if there is one with an id: `DELETE` with the session id
    /// (a server may answer `405`: it does not let clients end sessions).
    pub(crate) async fn end_session(&self, timeout: Duration) {
        if let Some(listener) = lock(&self.listener).take() {
            listener.abort();
        }
        let Some(session) = self.legacy_session().filter(|s| s.id.is_some()) else {
            return;
        };
        let Ok(request) = self
            .session_request(Method::DELETE, &session)
            .body(Full::new(Bytes::new()))
        else {
            return;
        };
        match tokio::time::timeout(timeout, self.client.request(request)).await {
            Ok(Ok(response)) => {
                tracing::debug!(status = %response.status(), "legacy session ended");
            }
            Ok(Err(e)) => tracing::debug!(error = %e, "DELETE of the legacy session failed"),
            Err(_) => tracing::debug!("DELETE of the legacy session timed out"),
        }
    }

    async fn send(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<http::Response<hyper::body::Incoming>, ClientError> {
        self.client
            .request(request)
            .await
            .map_err(|e| ClientError::Transport(format!("POST {} failed: {e}", self.uri)))
    }

    /// A POST of the legacy era: no 2026-07-28 headers; the session's id and version once
    /// there is a session.
    fn legacy_post(
        &self,
        body: &[u8],
        session: Option<&LegacySession>,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let builder = match session {
            Some(session) => self.session_request(Method::POST, session),
            None => self.with_extra_headers(Request::builder().method(Method::POST)),
        };
        builder
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(Full::new(Bytes::copy_from_slice(body)))
            .map_err(ClientError::transport)
    }

    fn with_extra_headers(&self, mut builder: http::request::Builder) -> http::request::Builder {
        builder = builder.uri(self.uri.clone());
        for (name, value) in &self.extra_headers {
            builder = builder.header(name, value);
        }
        builder
    }

    /// POSTs `request` (id `id`) and reads the response to it. `input_schema` is the called
    /// tool's input schema, for its `Mcp-Param-*` headers. On a legacy session the
    /// server's requests on the response stream are answered by `handlers`.
    pub(crate) async fn round_trip(
        &self,
        id: i64,
        request: &[u8],
        input_schema: Option<&[u8]>,
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>, ClientError> {
        let session = self.legacy_session();
        let post = match &session {
            Some(session) => self.legacy_post(request, Some(session))?,
            None => self.post(request, input_schema)?,
        };
        let exchange = async {
            let response = self.send(post).await?;
            if session.is_some() && response.status() == http::StatusCode::NOT_FOUND {
                // The session ended or expired: the caller opens a new one.
                return Err(ClientError::Http {
                    status: 404,
                    detail: SESSION_GONE.to_owned(),
                });
            }
            self.read_response(response, id, session.is_some()).await
        };
        within(timeout, exchange).await
    }

    fn post(
        &self,
        request: &[u8],
        input_schema: Option<&[u8]>,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let limits = &self.limits;
        let mut builder = self
            .with_extra_headers(Request::builder().method(Method::POST))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        let body = parse(request, &super::OWN_LIMITS)
            .map_err(|_| ClientError::transport("the request written is not JSON"))?;
        let schema = match input_schema {
            Some(raw) => Some(
                parse(raw, limits)
                    .map_err(|_| ClientError::transport("the cached input schema is not JSON"))?,
            ),
            None => None,
        };
        let mut headers = Vec::new();
        request_headers(body, schema, |name, value| {
            headers.push((name.to_string(), value.to_string()));
        })
        .map_err(|e| match e {
            HeaderError::NotARequest => ClientError::transport("the request written has no method"),
            HeaderError::InvalidAnnotations(reason) => ClientError::InvalidTool {
                name: String::new(),
                reason,
            },
        })?;
        for (name, value) in headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ClientError::Transport(format!("`{name}` is not a header name")))?;
            let value = HeaderValue::from_str(&value)
                .map_err(|_| ClientError::transport("a header value is not visible ASCII"))?;
            builder = builder.header(name, value);
        }
        builder
            .body(Full::new(Bytes::copy_from_slice(request)))
            .map_err(ClientError::transport)
    }
}

impl HttpTransport {
    /// Reads the JSON-RPC response to request `id`: the whole body of an
    /// `application/json` response, or the matching message of an event stream
    /// (notifications before it go to the callback; on a legacy session, `answer`, the
    /// server's requests are answered). An error status with a JSON-RPC body is that body.
    async fn read_response(
        &self,
        response: http::Response<hyper::body::Incoming>,
        id: i64,
        answer: bool,
    ) -> Result<Vec<u8>, ClientError> {
        let limits = &self.limits;
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut body = response.into_body();
        if content_type.starts_with("text/event-stream") {
            let mut events = EventStream::default();
            let mut seen = 0usize;
            loop {
                let frame = match body.frame().await {
                    Some(Ok(frame)) => frame,
                    Some(Err(e)) => {
                        return Err(ClientError::Transport(format!(
                            "the event stream broke: {e}"
                        )));
                    }
                    None => break,
                };
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                seen = seen.saturating_add(data.len());
                if seen > limits.max_size.saturating_mul(4) {
                    return Err(ClientError::MalformedResponse(
                        "the event stream grew past the size limit without a response".to_owned(),
                    ));
                }
                for event in events.feed(&data) {
                    if let Some(response) = self.take(event, id, answer).await {
                        return Ok(response);
                    }
                }
            }
            if let Some(event) = events.finish() {
                if let Some(response) = self.take(event, id, answer).await {
                    return Ok(response);
                }
            }
            return Err(ClientError::MalformedResponse(
                "the event stream ended without the response".to_owned(),
            ));
        }
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame =
                frame.map_err(|e| ClientError::Transport(format!("the body broke: {e}")))?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > limits.max_size {
                    return Err(ClientError::MalformedResponse(
                        "the response is larger than the size limit".to_owned(),
                    ));
                }
                bytes.extend_from_slice(&data);
            }
        }
        let is_json_rpc = content_type.starts_with("application/json")
            && parse(&bytes, limits)
                .is_ok_and(|v| v.get("result").is_some() || v.get("error").is_some());
        if is_json_rpc {
            return Ok(bytes);
        }
        let detail = if bytes.is_empty() {
            "no JSON-RPC response in the body".to_owned()
        } else {
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned()
        };
        Err(ClientError::Http {
            status: status.as_u16(),
            detail,
        })
    }

    /// The event's data if it is the response to `id`. A notification goes to the callback;
    /// on a legacy session (`answer`) a request from the server is answered with a POST of
    /// its own before the stream is read further.
    async fn take(&self, event: Vec<u8>, id: i64, answer: bool) -> Option<Vec<u8>> {
        let (limits, notify) = (&self.limits, self.notify.as_ref());
        let is_request = answer
            && parse(&event, limits)
                .is_ok_and(|m| m.get("method").is_some() && m.get("id").is_some());
        if !is_request {
            return pick(event, id, limits, notify);
        }
        if let Some(reply) = server_requests::answer(&self.handlers, &event, limits).await {
            if let Err(e) = self.post_message(&reply, None).await {
                tracing::warn!(error = %e, "the answer to the server's request was not accepted");
            }
        }
        None
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        if let Some(listener) = lock(&self.listener).take() {
            listener.abort();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `exchange` within `timeout`, if there is one.
async fn within<T>(
    timeout: Option<Duration>,
    exchange: impl std::future::Future<Output = Result<T, ClientError>>,
) -> Result<T, ClientError> {
    match timeout {
        Some(limit) => tokio::time::timeout(limit, exchange)
            .await
            .map_err(|_| ClientError::Timeout)?,
        None => exchange.await,
    }
}

/// The event's data if it is the response to `id`; a notification goes to `notify`.
fn pick(event: Vec<u8>, id: i64, limits: &Limits, notify: Option<&Notify>) -> Option<Vec<u8>> {
    let message = parse(&event, limits).ok()?;
    if message.get("method").is_some() {
        if message.get("id").is_none() {
            if let Some(notify) = notify {
                notify(super::handlers::json_of(&event));
            }
        } else {
            tracing::warn!(
                "the server sent a request on a response stream, which 2026-07-28 forbids"
            );
        }
        return None;
    }
    let matches = match message.get("id") {
        Some(v) if v.is_null() => message.get("error").is_some(),
        Some(v) => v.as_i64() == Some(id),
        None => false,
    };
    matches.then_some(event)
}
