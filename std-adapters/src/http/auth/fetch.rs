//! One bounded `GET` for a small document (the JWKS): a fresh connection, `http` or (with
//! feature `tls`) `https`, the body cut off at a limit, and how long the server lets it be
//! cached. Fetches are rare, so nothing is pooled.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use http::HeaderMap;
use http::header::{ACCEPT, CACHE_CONTROL, HOST};
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// The roots an `https` server's certificate must chain to (`None`: the built-in ones).
#[cfg(feature = "tls")]
pub(crate) type Roots = Option<std::sync::Arc<tokio_rustls::rustls::RootCertStore>>;
/// Without feature `tls` there is no `https`.
#[cfg(not(feature = "tls"))]
pub(crate) type Roots = Option<std::convert::Infallible>;

/// Why a fetch failed.
#[derive(Debug)]
pub(crate) enum FetchError {
    Connect(std::io::Error),
    Http(String),
    Status(http::StatusCode),
    TooLarge,
    Timeout,
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Connect(e) => write!(f, "cannot connect: {e}"),
            FetchError::Http(e) => write!(f, "HTTP: {e}"),
            FetchError::Status(s) => write!(f, "status {s}"),
            FetchError::TooLarge => f.write_str("document too large"),
            FetchError::Timeout => f.write_str("timed out"),
        }
    }
}

/// A document fetched.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) body: Bytes,
    /// How long the response may be used, from its `Cache-Control` (`max-age`; zero for
    /// `no-cache` or `no-store`), if it says.
    pub(crate) max_age: Option<Duration>,
}

/// `GET url`, expecting `200` and at most `limit` bytes. The caller bounds the time.
pub(crate) async fn get(
    url: &http::Uri,
    limit: usize,
    roots: Roots,
) -> Result<Fetched, FetchError> {
    let host = url.host().ok_or(FetchError::Http("no host".into()))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let https = url.scheme_str() == Some("https");
    let port = url.port_u16().unwrap_or(if https { 443 } else { 80 });
    let stream = TcpStream::connect((host, port))
        .await
        .map_err(FetchError::Connect)?;
    if https {
        #[cfg(feature = "tls")]
        {
            let tls = crate::http::tls::connect(stream, host, roots)
                .await
                .map_err(FetchError::Connect)?;
            return get_over(tls, url, limit).await;
        }
    }
    let _ = roots;
    get_over(stream, url, limit).await
}

async fn get_over<IO>(io: IO, url: &http::Uri, limit: usize) -> Result<Fetched, FetchError>
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let http_error = |e: hyper::Error| FetchError::Http(e.to_string());
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(http_error)?;
    let connection = tokio::spawn(connection);
    let path = url.path_and_query().map_or("/", |p| p.as_str());
    let authority = url.authority().map_or("", |a| a.as_str());
    let request = http::Request::get(path)
        .header(HOST, authority)
        .header(ACCEPT, "application/json")
        .body(Empty::<Bytes>::new())
        .map_err(|e| FetchError::Http(e.to_string()))?;
    let result = async {
        let response = sender.send_request(request).await.map_err(http_error)?;
        if response.status() != http::StatusCode::OK {
            return Err(FetchError::Status(response.status()));
        }
        let max_age = max_age(response.headers());
        match Limited::new(response.into_body(), limit).collect().await {
            Ok(body) => Ok(Fetched {
                body: body.to_bytes(),
                max_age,
            }),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(FetchError::TooLarge),
            Err(e) => Err(FetchError::Http(e.to_string())),
        }
    }
    .await;
    connection.abort();
    result
}

/// The freshness lifetime `Cache-Control` gives a response (RFC 9111 section 5.2.2): zero
/// when it must not be reused without a check (`no-cache`, `no-store`), else its `max-age`;
/// `None` when it says neither (or says it unreadably).
fn max_age(headers: &HeaderMap) -> Option<Duration> {
    let mut age = None;
    let directives = headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','));
    for directive in directives {
        let (name, value) = directive.split_once('=').unwrap_or((directive, ""));
        let name = name.trim();
        if name.eq_ignore_ascii_case("no-cache") || name.eq_ignore_ascii_case("no-store") {
            return Some(Duration::ZERO);
        }
        if name.eq_ignore_ascii_case("max-age") && age.is_none() {
            let seconds = value.trim().trim_matches('"');
            age = seconds.parse::<u64>().ok().map(Duration::from_secs);
        }
    }
    age
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age_of(values: &[&str]) -> Option<Duration> {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(CACHE_CONTROL, v.parse().unwrap());
        }
        max_age(&headers)
    }

    #[test]
    fn cache_control_gives_the_max_age() {
        let secs = |s| Some(Duration::from_secs(s));
        assert_eq!(age_of(&[]), None);
        assert_eq!(age_of(&["public, max-age=600"]), secs(600));
        assert_eq!(age_of(&["Max-Age = \"90\""]), secs(90));
        assert_eq!(age_of(&["public", "max-age=60, must-revalidate"]), secs(60));
        assert_eq!(age_of(&["max-age=600, no-cache"]), secs(0));
        assert_eq!(age_of(&["no-store"]), secs(0));
        assert_eq!(age_of(&["max-age=soon"]), None);
        assert_eq!(age_of(&["max-age=-5"]), None);
        assert_eq!(age_of(&["max-age=99999999999999999999999"]), None);
    }
}
