//! The decision for one request: its metadata, a challenge, or a verified caller.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{
    ACCESS_CONTROL_ALLOW_ORIGIN, ALLOW, AUTHORIZATION, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE,
};
use http::request::Parts;
use http::{Method, Response, StatusCode};
use snodo_core::rpc::Request;

use super::challenge::{ChallengeError, challenge};
use super::metadata::ResourceServer;
use super::verifier::{Rejected, TokenVerifier, Verified};
use crate::http::body::{McpBody, empty, json};

/// Longest bearer token accepted; a longer one is refused unread.
const MAX_TOKEN_LEN: usize = 8 * 1024;

/// The resource server: its metadata, its scopes and the verifier of its tokens. Cheap to
/// clone. See the [module docs](super).
#[derive(Clone)]
pub struct Authorization {
    inner: Arc<Inner>,
}

struct Inner {
    resource: ResourceServer,
    metadata_url: String,
    verifier: Box<dyn TokenVerifier>,
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.inner.resource)
            .finish_non_exhaustive()
    }
}

/// What a verified caller may reach: its scopes (with those they imply) under the endpoint's
/// policy. The gate puts it in the request's extensions; the endpoint checks each request's
/// target with it once the body is parsed, before anything runs.
#[derive(Clone, Debug)]
pub(crate) struct Grant {
    auth: Authorization,
    caller: Verified,
}

impl Grant {
    /// `Ok` when the caller holds every scope `request`'s tool, resource or prompt needs (as
    /// read from the parsed request: [`ScopePolicy`](super::ScopePolicy)); otherwise the
    /// `403 insufficient_scope` naming every scope the request needs.
    pub(crate) fn admit(&self, request: &Request<'_>) -> Result<(), Box<Response<McpBody>>> {
        let target = self.auth.inner.resource.policy.for_request(request);
        if target.is_empty() {
            return Ok(());
        }
        self.auth.check_scopes(&self.caller, target)
    }
}

impl Authorization {
    /// `resource`'s tokens checked by `verifier`.
    pub fn new(resource: ResourceServer, verifier: impl TokenVerifier) -> Self {
        let metadata_url = resource.metadata_url();
        Authorization {
            inner: Arc::new(Inner {
                resource,
                metadata_url,
                verifier: Box::new(verifier),
            }),
        }
    }

    /// The resource server.
    pub fn resource(&self) -> &ResourceServer {
        &self.inner.resource
    }

    /// The metadata document's response when `parts` asks for it (`None`: not its path).
    pub(crate) fn metadata(&self, parts: &Parts) -> Option<Response<McpBody>> {
        if !self.inner.resource.is_metadata_path(parts.uri.path()) {
            return None;
        }
        let mut response = if parts.method == Method::GET {
            json(StatusCode::OK, self.inner.resource.document())
        } else {
            let mut refused = empty(StatusCode::METHOD_NOT_ALLOWED);
            refused
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET"));
            refused
        };
        // Public metadata, fetched by browser-based clients from other origins.
        response
            .headers_mut()
            .insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
        Some(response)
    }

    /// Checks the bearer token of a request to the endpoint and the scopes every request
    /// needs. When both pass, the [`Verified`] caller and its [`Grant`] go into the request's
    /// extensions and the `Authorization` header is removed, so nothing after this sees the
    /// token; otherwise the refusal to answer with. The scopes of the request's target are
    /// checked once its body is parsed ([`Grant::admit`]).
    pub(crate) async fn admit(&self, parts: &mut Parts) -> Result<(), Response<McpBody>> {
        let verified = self.decide(parts).await?;
        parts.headers.remove(AUTHORIZATION);
        parts.extensions.insert(Grant {
            auth: self.clone(),
            caller: verified.clone(),
        });
        parts.extensions.insert(verified);
        Ok(())
    }

    async fn decide(&self, parts: &Parts) -> Result<Verified, Response<McpBody>> {
        let inner = &*self.inner;
        let resource = &inner.resource;
        let token = match bearer(parts) {
            Bearer::Missing => {
                tracing::debug!("no bearer token");
                let scopes: Vec<&str> = resource.required().iter().map(String::as_str).collect();
                return Err(self.refuse(StatusCode::UNAUTHORIZED, ChallengeError::None, &scopes));
            }
            Bearer::Malformed => {
                tracing::debug!("malformed bearer token");
                return Err(self.refuse(
                    StatusCode::UNAUTHORIZED,
                    ChallengeError::InvalidToken,
                    &[],
                ));
            }
            Bearer::Token(token) => token,
        };
        let mut verified = match inner.verifier.verify(token).await {
            Ok(verified) => verified,
            Err(Rejected::Invalid) => {
                tracing::debug!("bearer token refused");
                return Err(self.refuse(
                    StatusCode::UNAUTHORIZED,
                    ChallengeError::InvalidToken,
                    &[],
                ));
            }
            Err(Rejected::Unavailable) => {
                tracing::warn!("bearer token not checked: keys unavailable");
                return Err(unavailable(UNAVAILABLE_RETRY));
            }
            Err(Rejected::RetryAfter(wait)) => {
                tracing::debug!(
                    ?wait,
                    "bearer token not checked yet: its key may come later"
                );
                return Err(unavailable(wait));
            }
        };
        resource.policy.expand(&mut verified.scopes);
        self.check_scopes(&verified, &[])
            .map_err(|refusal| *refusal)?;
        Ok(verified)
    }

    /// `403 insufficient_scope` unless `caller` holds every scope the endpoint requires and
    /// every one of `target`'s.
    fn check_scopes(
        &self,
        caller: &Verified,
        target: &[String],
    ) -> Result<(), Box<Response<McpBody>>> {
        let required = self.inner.resource.required();
        let needed = || required.iter().chain(target).map(String::as_str);
        if caller.has_all(needed()) {
            return Ok(());
        }
        tracing::debug!("insufficient scope");
        let mut scopes: Vec<&str> = Vec::new();
        for scope in needed() {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        Err(Box::new(self.refuse(
            StatusCode::FORBIDDEN,
            ChallengeError::InsufficientScope,
            &scopes,
        )))
    }

    fn refuse(
        &self,
        status: StatusCode,
        error: ChallengeError,
        scopes: &[&str],
    ) -> Response<McpBody> {
        let message = match error {
            ChallengeError::None => "Unauthorized: a bearer token is required",
            ChallengeError::InvalidToken => "Unauthorized: the bearer token is not valid",
            ChallengeError::InsufficientScope => "Forbidden: the token lacks a required scope",
        };
        let mut response = refusal_body(status, message);
        response.headers_mut().insert(
            WWW_AUTHENTICATE,
            challenge(&self.inner.metadata_url, error, scopes),
        );
        response
    }
}

/// How long a client is asked to wait when the keys could not be had.
const UNAVAILABLE_RETRY: Duration = Duration::from_secs(5);

/// `503` with `Retry-After`: the token could not be checked (yet).
fn unavailable(wait: Duration) -> Response<McpBody> {
    let mut response = refusal_body(
        StatusCode::SERVICE_UNAVAILABLE,
        "The keys to check the token with are unavailable",
    );
    // Whole seconds, rounded up: a client retrying sooner would be refused again.
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}

/// A JSON-RPC error without an id, like the endpoint's other HTTP-level refusals.
fn refusal_body(status: StatusCode, message: &str) -> Response<McpBody> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32600, "message": message},
    });
    json(status, Bytes::from(body.to_string()))
}

/// What the `Authorization` headers hold.
enum Bearer<'a> {
    Missing,
    Malformed,
    Token(&'a str),
}

/// The bearer token: one `Authorization: Bearer <b64token>` header (RFC 6750 section 2.1).
fn bearer(parts: &Parts) -> Bearer<'_> {
    let mut values = parts.headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Bearer::Missing;
    };
    if values.next().is_some() {
        return Bearer::Malformed;
    }
    let value = value.as_bytes();
    let Some((scheme, token)) = value.split_at_checked(7) else {
        return Bearer::Missing;
    };
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return Bearer::Missing;
    }
    let token = super::super::headers::trim(token);
    let body_len = token.iter().rposition(|&b| b != b'=').map_or(0, |i| i + 1);
    let well_formed = !token.is_empty()
        && token.len() <= MAX_TOKEN_LEN
        && token[..body_len]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    match std::str::from_utf8(token) {
        Ok(token) if well_formed && body_len > 0 => Bearer::Token(token),
        _ => Bearer::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(headers: &[(&str, &str)]) -> Parts {
        let mut request = http::Request::post("/mcp");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn bearer_tokens_are_read_from_one_authorization_header() {
        assert!(matches!(bearer(&parts(&[])), Bearer::Missing));
        assert!(matches!(
            bearer(&parts(&[("authorization", "Basic YQ==")])),
            Bearer::Missing
        ));
        assert!(matches!(
            bearer(&parts(&[("authorization", "bearer abc.DEF-_~+/==")])),
            Bearer::Token("abc.DEF-_~+/==")
        ));
        for bad in [
            "Bearer ",
            "Bearer a b",
            "Bearer ===",
            "Bearer a=b",
            "Bearer a\"b",
        ] {
            assert!(
                matches!(bearer(&parts(&[("authorization", bad)])), Bearer::Malformed),
                "{bad}"
            );
        }
        let twice = parts(&[("authorization", "Bearer a"), ("authorization", "Bearer b")]);
        assert!(matches!(bearer(&twice), Bearer::Malformed));
        let long = format!("Bearer {}", "a".repeat(MAX_TOKEN_LEN + 1));
        assert!(matches!(
            bearer(&parts(&[("authorization", &long)])),
            Bearer::Malformed
        ));
    }
}
