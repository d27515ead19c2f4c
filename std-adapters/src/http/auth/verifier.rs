//! What checks a bearer token, and what a checked token tells.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Who a verified token speaks for, and what it allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The subject (`sub`): becomes the round's principal, so it binds sealed state.
    pub subject: String,
    /// The scopes granted (the token's `scope`, or `scp`), with any scope they imply already
    /// added by the verifier.
    pub scopes: Vec<String>,
}

impl Verified {
    /// Whether every one of `needed` is granted.
    pub fn has_all<'a>(&self, mut needed: impl Iterator<Item = &'a str>) -> bool {
        needed.all(|n| self.scopes.iter().any(|s| s == n))
    }
}

/// Why a token was not accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// Malformed, wrongly signed, expired, not yet valid, for another audience or issuer:
    /// `401` with `error="invalid_token"`.
    Invalid,
    /// The keys to check it with could not be had (the JWKS is unreachable): `503` with
    /// `Retry-After: 5`, since the token may well be good.
    Unavailable,
    /// It cannot be checked for this long (it names a key the verifier does not have, and
    /// the key set may not be fetched again sooner): `503` with `Retry-After`.
    RetryAfter(Duration),
}

/// The future a [`TokenVerifier`] returns.
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<Verified, Rejected>> + Send + 'a>>;

/// Checks a bearer token. [`JwksVerifier`](super::JwksVerifier) checks JWTs against a JWKS;
/// an application with opaque tokens (checked by introspection, say) implements its own.
///
/// A verifier must only accept tokens issued for this server (its audience, RFC 8707) and
/// must not send the token anywhere but to whoever issued it.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Checks `token` (the text after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}
