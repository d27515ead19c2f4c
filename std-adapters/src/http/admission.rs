//! What is refused before the body is read: the path, the HTTP method, `Host`, `Origin`,
//! `Content-Type`, `Accept` and a declared length over the limit.

use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use http::request::Parts;
use http::{Method, StatusCode};

use super::config::{AllowList, HttpConfig};
use super::headers::{HEADER_SESSION_ID, trim};
use snodo_core::legacy::{Era, EraSupport};

/// Why a request is refused at the HTTP level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not the MCP endpoint's path.
    NotFound,
    /// Not `POST`.
    MethodNotAllowed,
    /// A `Host` outside the allow-list.
    ForeignHost,
    /// An `Origin` outside the allow-list.
    ForeignOrigin,
    /// Not `Content-Type: application/json`.
    UnsupportedMediaType,
    /// `Accept` does not allow both `application/json` and `text/event-stream`.
    NotAcceptable,
    /// The body is larger than the limit.
    TooLarge,
    /// The body did not arrive in time.
    Timeout,
    /// The body could not be read.
    BadBody,
}

impl Refusal {
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Refusal::NotFound => StatusCode::NOT_FOUND,
            Refusal::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Refusal::ForeignHost | Refusal::ForeignOrigin => StatusCode::FORBIDDEN,
            Refusal::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Refusal::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Refusal::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::Timeout => StatusCode::REQUEST_TIMEOUT,
            Refusal::BadBody => StatusCode::BAD_REQUEST,
        }
    }

    pub(crate) fn message(self) -> &'static str {
        match self {
            Refusal::NotFound => "Not found",
            Refusal::MethodNotAllowed => "Method not allowed: the MCP endpoint accepts POST only",
            Refusal::ForeignHost => "Forbidden: the Host header is not allowed",
            Refusal::ForeignOrigin => "Forbidden: the Origin header is not allowed",
            Refusal::UnsupportedMediaType => "Unsupported media type: use application/json",
            Refusal::NotAcceptable => {
                "Not acceptable: Accept must allow application/json and text/event-stream"
            }
            Refusal::TooLarge => "Payload too large",
            Refusal::Timeout => "The request body did not arrive in time",
            Refusal::BadBody => "The request body could not be read",
        }
    }
}

/// What an admitted request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admitted {
    /// A `POST` with a JSON body to read.
    Post,
    /// A legacy (2025-11-25) session's `GET` (its event stream) or `DELETE` (its end): the
    /// only other methods, and only when the request names its session (and the server
    /// serves that era: [`Admitted::served`]).
    SessionMethod,
}

impl Admitted {
    /// The admission on a server serving `eras` (asked only for a session's method): a
    /// session's method where no session can be is refused as any other method but `POST`
    /// (405).
    pub(crate) fn served(self, eras: impl FnOnce() -> EraSupport) -> Result<Admitted, Refusal> {
        match self {
            Admitted::SessionMethod if !eras().serves(Era::Legacy) => {
                Err(Refusal::MethodNotAllowed)
            }
            admitted => Ok(admitted),
        }
    }
}

/// Checks a request's line and headers, in order: path, `Host`, `Origin`, method,
/// `Content-Type`, `Accept`, `Content-Length`.
pub(crate) fn admit(parts: &Parts, config: &HttpConfig) -> Result<Admitted, Refusal> {
    if let Some(path) = &config.path {
        if parts.uri.path() != path {
            return Err(Refusal::NotFound);
        }
    }
    let host = parts
        .headers
        .get(HOST)
        .map(|h| h.as_bytes())
        .or_else(|| parts.uri.authority().map(|a| a.as_str().as_bytes()));
    if let Some(host) = host {
        if !host_allowed(host, &config.hosts) {
            return Err(Refusal::ForeignHost);
        }
    }
    for origin in parts.headers.get_all(ORIGIN) {
        if !origin_allowed(origin.as_bytes(), &config.origins) {
            return Err(Refusal::ForeignOrigin);
        }
    }
    if parts.method != Method::POST {
        return if is_session_method(parts) {
            Ok(Admitted::SessionMethod)
        } else {
            Err(Refusal::MethodNotAllowed)
        };
    }
    let json = parts.headers.get(CONTENT_TYPE).is_some_and(|ct| {
        let essence = ct
            .as_bytes()
            .split(|&b| b == b';')
            .next()
            .unwrap_or_default();
        trim(essence).eq_ignore_ascii_case(b"application/json")
    });
    if !json {
        return Err(Refusal::UnsupportedMediaType);
    }
    if !accepts_json_and_sse(parts) {
        return Err(Refusal::NotAcceptable);
    }
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|len| len > config.max_body_len as u64) {
        return Err(Refusal::TooLarge);
    }
    Ok(Admitted::Post)
}

/// Whether a request other than `POST` is a legacy session's `GET` or `DELETE`.
fn is_session_method(parts: &Parts) -> bool {
    (parts.method == Method::GET || parts.method == Method::DELETE)
        && parts.headers.contains_key(HEADER_SESSION_ID)
}

/// Splits `authority` (`host[:port]`, the host possibly a bracketed IPv6 address) into the
/// host and the port text.
fn split_authority(authority: &[u8]) -> (&[u8], Option<&[u8]>) {
    let port_colon = if authority.first() == Some(&b'[') {
        authority
            .iter()
            .position(|&b| b == b']')
            .and_then(|close| (authority.get(close + 1) == Some(&b':')).then_some(close + 1))
    } else {
        authority.iter().rposition(|&b| b == b':')
    };
    match port_colon {
        Some(at) => (&authority[..at], authority.get(at + 1..)),
        None => (authority, None),
    }
}

/// Whether `entry` (`host` for any port, or `host:port`) allows `authority`.
fn authority_matches(entry: &[u8], authority: &[u8]) -> bool {
    let (host, port) = split_authority(authority);
    let (entry_host, entry_port) = split_authority(entry);
    entry_host.eq_ignore_ascii_case(host) && (entry_port.is_none() || entry_port == port)
}

fn host_allowed(host: &[u8], allowed: &AllowList) -> bool {
    match allowed {
        AllowList::Any => true,
        AllowList::Only(entries) => {
            let host = trim(host);
            entries
                .iter()
                .any(|e| authority_matches(e.as_bytes(), host))
        }
    }
}

fn origin_allowed(origin: &[u8], allowed: &AllowList) -> bool {
    let entries = match allowed {
        AllowList::Any => return true,
        AllowList::Only(entries) => entries,
    };
    let Some((scheme, authority)) = split_origin(trim(origin)) else {
        // `null` and other opaque origins are never on the list.
        return false;
    };
    entries.iter().any(|entry| {
        split_origin(entry.as_bytes()).is_some_and(|(entry_scheme, entry_authority)| {
            entry_scheme.eq_ignore_ascii_case(scheme)
                && authority_matches(entry_authority, authority)
        })
    })
}

/// `scheme://authority` split in two; `None` for anything else (an origin has no path).
fn split_origin(origin: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = origin.windows(3).position(|w| w == b"://")?;
    let (scheme, rest) = (&origin[..at], &origin[at + 3..]);
    let authority = rest.strip_suffix(b"/").unwrap_or(rest);
    (!scheme.is_empty() && !authority.is_empty() && !authority.contains(&b'/'))
        .then_some((scheme, authority))
}

/// Whether the `Accept` headers allow both `application/json` and `text/event-stream`
/// (wildcards count; a range with `q=0` excludes). A request without `Accept` does not.
fn accepts_json_and_sse(parts: &Parts) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in parts.headers.get_all(ACCEPT) {
        for range in value.as_bytes().split(|&b| b == b',') {
            let mut pieces = range.split(|&b| b == b';');
            let media = trim(pieces.next().unwrap_or_default());
            let refused = pieces.any(|param| {
                let param = trim(param);
                param.len() >= 2
                    && param[..2].eq_ignore_ascii_case(b"q=")
                    && std::str::from_utf8(&param[2..])
                        .ok()
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            let is = |m: &[u8]| media.eq_ignore_ascii_case(m);
            json |= is(b"*/*") || is(b"application/*") || is(b"application/json");
            sse |= is(b"*/*") || is(b"text/*") || is(b"text/event-stream");
        }
    }
    json && sse
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(build: http::request::Builder) -> Parts {
        build.body(()).unwrap().into_parts().0
    }

    fn post() -> http::request::Builder {
        http::Request::post("/mcp")
            .header(HOST, "127.0.0.1:8080")
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
    }

    #[test]
    fn a_conformant_post_passes() {
        assert_eq!(
            admit(&parts(post()), &HttpConfig::new()),
            Ok(Admitted::Post)
        );
    }

    #[test]
    fn hosts_and_origins() {
        let config = HttpConfig::new();
        for host in ["localhost", "LOCALHOST:1", "[::1]:9", "127.0.0.1"] {
            let p = parts(post().header(HOST, host));
            assert!(
                host_allowed(p.headers[HOST].as_bytes(), &config.hosts),
                "{host}"
            );
        }
        for host in [
            "evil.example",
            "127.0.0.1.evil",
            "[::2]:80",
            "localhost.:80",
        ] {
            assert!(!host_allowed(host.as_bytes(), &config.hosts), "{host}");
        }
        for origin in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:1/",
        ] {
            assert!(
                origin_allowed(origin.as_bytes(), &config.origins),
                "{origin}"
            );
        }
        for origin in [
            "null",
            "http://evil.example",
            "file://localhost",
            "localhost",
        ] {
            assert!(
                !origin_allowed(origin.as_bytes(), &config.origins),
                "{origin}"
            );
        }
        let exact = AllowList::only(["https://app.example:8443", "app.example:8443"]);
        assert!(origin_allowed(b"https://APP.example:8443", &exact));
        assert!(!origin_allowed(b"https://app.example", &exact));
        assert!(host_allowed(b"app.example:8443", &exact));
        assert!(!host_allowed(b"app.example:80", &exact));
    }

    #[test]
    fn media_types() {
        let config = HttpConfig::new();
        let mut charset = parts(post());
        charset.headers.insert(
            CONTENT_TYPE,
            "Application/JSON; charset=utf-8".parse().unwrap(),
        );
        assert_eq!(admit(&charset, &config), Ok(Admitted::Post));
        let mut text = parts(post());
        text.headers
            .insert(CONTENT_TYPE, "text/plain".parse().unwrap());
        assert_eq!(admit(&text, &config), Err(Refusal::UnsupportedMediaType));
        for (accept, ok) in [
            ("*/*", true),
            ("application/*, text/*", true),
            ("application/json;q=0.9, text/event-stream", true),
            ("application/json", false),
            ("text/event-stream", false),
            ("application/json, text/event-stream;q=0", false),
        ] {
            let mut p = parts(post());
            p.headers.insert(ACCEPT, accept.parse().unwrap());
            let expected = if ok {
                Ok(Admitted::Post)
            } else {
                Err(Refusal::NotAcceptable)
            };
            assert_eq!(admit(&p, &config), expected, "{accept}");
        }
    }

    #[test]
    fn a_session_get_or_delete_is_admitted_only_where_legacy_sessions_are_served() {
        let session = |method: Method| {
            parts(
                http::Request::builder()
                    .method(method)
                    .uri("/mcp")
                    .header(HOST, "127.0.0.1:8080")
                    .header(HEADER_SESSION_ID, "abc"),
            )
        };
        let both = HttpConfig::new();
        assert_eq!(
            admit(&session(Method::GET), &both),
            Ok(Admitted::SessionMethod)
        );
        assert_eq!(
            admit(&session(Method::DELETE), &both),
            Ok(Admitted::SessionMethod)
        );
        assert_eq!(
            admit(&session(Method::PUT), &both),
            Err(Refusal::MethodNotAllowed)
        );
        let mut without_session = session(Method::GET);
        without_session.headers.remove(HEADER_SESSION_ID);
        assert_eq!(
            admit(&without_session, &both),
            Err(Refusal::MethodNotAllowed)
        );
        for method in [Method::GET, Method::DELETE] {
            let admitted = admit(&session(method), &both).unwrap();
            assert_eq!(admitted.served(|| EraSupport::Both), Ok(admitted));
            assert_eq!(
                admitted.served(|| EraSupport::ModernOnly),
                Err(Refusal::MethodNotAllowed)
            );
        }
    }
}
