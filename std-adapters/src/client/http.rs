//! The client side of Streamable HTTP: one POST per request with the request headers the
//! core computes, and a response read as one JSON message or as an event stream.

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

use super::sse::EventStream;
use super::{ClientError, Notify};

/// A Streamable HTTP endpoint.
pub(crate) struct HttpTransport {
    uri: Uri,
    client: HyperClient<HttpConnector, Full<Bytes>>,
    extra_headers: Vec<(HeaderName, HeaderValue)>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

impl HttpTransport {
    /// An endpoint at `url` (`http://` only: this client has no TLS).
    pub(crate) fn new(
        url: &str,
        extra_headers: Vec<(HeaderName, HeaderValue)>,
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
        })
    }

    /// POSTs `request` (id `id`) and reads the response to it. `input_schema` is the called
    /// tool's input schema, for its `Mcp-Param-*` headers.
    pub(crate) async fn round_trip(
        &self,
        id: i64,
        request: &[u8],
        input_schema: Option<&[u8]>,
        limits: &Limits,
        notify: Option<&Notify>,
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>, ClientError> {
        let post = self.post(request, input_schema, limits)?;
        let exchange = async {
            let response =
                self.client.request(post).await.map_err(|e| {
                    ClientError::Transport(format!("POST {} failed: {e}", self.uri))
                })?;
            read_response(response, id, limits, notify).await
        };
        match timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .map_err(|_| ClientError::Timeout)?,
            None => exchange.await,
        }
    }

    fn post(
        &self,
        request: &[u8],
        input_schema: Option<&[u8]>,
        limits: &Limits,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(self.uri.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        for (name, value) in &self.extra_headers {
            builder = builder.header(name, value);
        }
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

/// Reads the JSON-RPC response to request `id`: the whole body of an `application/json`
/// response, or the matching message of an event stream (notifications before it go to
/// `notify`). An error status with a JSON-RPC body is that body.
async fn read_response(
    response: http::Response<hyper::body::Incoming>,
    id: i64,
    limits: &Limits,
    notify: Option<&Notify>,
) -> Result<Vec<u8>, ClientError> {
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
                if let Some(response) = pick(event, id, limits, notify) {
                    return Ok(response);
                }
            }
        }
        if let Some(response) = events.finish().and_then(|e| pick(e, id, limits, notify)) {
            return Ok(response);
        }
        return Err(ClientError::MalformedResponse(
            "the event stream ended without the response".to_owned(),
        ));
    }
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ClientError::Transport(format!("the body broke: {e}")))?;
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
