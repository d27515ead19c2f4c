//! Per-target scopes, checked once a request's body is parsed: the tool, resource or prompt
//! a request targets is read from the endpoint's one parse of it, never from its headers
//! (which 2025-11-25 requests do not carry). Without feature `auth` nothing is scoped.

use http::Response;
use http::request::Parts;
use snodo_core::rpc::Request;

use super::body::McpBody;

/// The scopes the gate verified for a request ([`auth`](super::auth)).
#[cfg(feature = "auth")]
pub(crate) use super::auth::Grant;
/// Without feature `auth` no request carries a grant.
#[cfg(not(feature = "auth"))]
pub(crate) type Grant = std::convert::Infallible;

/// The subject the gate (or an [`AuthLayer`](super::auth::AuthLayer) in front) verified.
pub(crate) fn subject(parts: &Parts) -> Option<String> {
    #[cfg(feature = "auth")]
    if let Some(verified) = parts.extensions.get::<super::auth::Verified>() {
        return Some(verified.subject.clone());
    }
    let _ = parts;
    None
}

/// The grant the gate left in `parts`, if any.
pub(crate) fn take(parts: &mut Parts) -> Option<Grant> {
    #[cfg(feature = "auth")]
    return parts.extensions.remove::<Grant>();
    #[cfg(not(feature = "auth"))]
    {
        let _ = parts;
        None
    }
}

/// `Ok` when there is no grant or it reaches `request`'s target; otherwise the refusal
/// (`403 insufficient_scope`) to answer with, before anything runs.
pub(crate) fn admit(
    grant: Option<&Grant>,
    request: &Request<'_>,
) -> Result<(), Box<Response<McpBody>>> {
    match grant {
        #[cfg(feature = "auth")]
        Some(grant) => grant.admit(request),
        #[cfg(not(feature = "auth"))]
        Some(never) => match *never {},
        None => {
            let _ = request;
            Ok(())
        }
    }
}
