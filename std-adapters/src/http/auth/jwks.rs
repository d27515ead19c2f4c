//! JWT bearer tokens checked against the authorization server's JSON Web Key Set.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use tokio::time::Instant;

use super::fetch::{FetchError, Roots, get};
use super::token_cache::TokenCache;
use super::verifier::{Rejected, TokenVerifier, Verified, VerifyFuture};

/// Most keys kept from a JWKS; the rest are ignored.
const MAX_KEYS: usize = 32;
/// Longest subject accepted as a principal.
const MAX_SUBJECT_LEN: usize = 1024;
/// Most scopes read from a token.
const MAX_SCOPES: usize = 256;

/// Checks bearer tokens that are JWTs signed with RS256 or ES256 by a key of a JWKS: the
/// signature, `iss` (the issuer), `aud` (this server's canonical URI), `exp` and `nbf` (with
/// a leeway, default 30 s) and a `sub`, which becomes the principal. Scopes come from
/// `scope` (space-separated) or `scp` (an array or a string).
///
/// The JWKS is fetched from its URL on first use and cached; a token naming a key id the
/// cache lacks fetches it again, at most once per
/// [`with_min_refresh_interval`](Self::with_min_refresh_interval) (default 30 s), each fetch
/// bounded by [`with_fetch_timeout`](Self::with_fetch_timeout) (default 5 s) and a 64 KiB
/// document. `https` URLs need feature `tls` too.
///
/// A token that verified is remembered (by its SHA-256) until it expires or for 60 s,
/// whichever is first, so a client sending the same token with every request pays for the
/// signature check once a minute; at most 4096 are remembered
/// ([`with_token_cache`](Self::with_token_cache)). Cheap to clone; clones share the caches.
#[derive(Clone)]
pub struct JwksVerifier {
    url: Option<http::Uri>,
    issuer: String,
    audience: String,
    leeway: Duration,
    fetch_timeout: Duration,
    min_refresh_interval: Duration,
    #[cfg(feature = "tls")]
    roots: Option<Arc<tokio_rustls::rustls::RootCertStore>>,
    cache: Arc<Cache>,
    verified: Arc<TokenCache>,
}

/// The keys fetched last, shared by clones.
struct Cache {
    keys: RwLock<Arc<Vec<Key>>>,
    /// When the last fetch started and whether it failed; held while fetching, so
    /// concurrent requests wait for one fetch rather than each making their own.
    last_fetch: tokio::sync::Mutex<Option<(Instant, bool)>>,
}

struct Key {
    id: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
}

/// A JWKS verifier that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JwksError {
    /// The JWKS URL is not an absolute `http` (or, with feature `tls`, `https`) URL.
    Url(String),
    /// A key set given inline is not a JWKS with at least one RS256 or ES256 key.
    NoKeys,
}

impl fmt::Display for JwksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JwksError::Url(url) => write!(f, "{url:?} is not a JWKS URL this build can fetch"),
            JwksError::NoKeys => f.write_str("the key set has no RS256 or ES256 signing key"),
        }
    }
}

impl std::error::Error for JwksError {}

impl fmt::Debug for JwksVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwksVerifier")
            .field("url", &self.url)
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

impl JwksVerifier {
    /// Tokens issued by `issuer` for `audience` (the server's canonical URI), signed by a
    /// key of the JWKS at `jwks_url`.
    pub fn new(jwks_url: &str, issuer: &str, audience: &str) -> Result<Self, JwksError> {
        let url: http::Uri = jwks_url
            .parse()
            .map_err(|_| JwksError::Url(jwks_url.to_owned()))?;
        let fetchable = url.scheme_str() == Some("http")
            || (cfg!(feature = "tls") && url.scheme_str() == Some("https"));
        if !fetchable || url.host().is_none() {
            return Err(JwksError::Url(jwks_url.to_owned()));
        }
        Ok(Self::with_source(Some(url), Vec::new(), issuer, audience))
    }

    /// Tokens issued by `issuer` for `audience`, signed by a key of `jwks` (a JWKS document
    /// given inline and never refreshed).
    pub fn from_jwks(jwks: &[u8], issuer: &str, audience: &str) -> Result<Self, JwksError> {
        let keys = parse_jwks(jwks);
        if keys.is_empty() {
            return Err(JwksError::NoKeys);
        }
        Ok(Self::with_source(None, keys, issuer, audience))
    }

    fn with_source(url: Option<http::Uri>, keys: Vec<Key>, issuer: &str, audience: &str) -> Self {
        JwksVerifier {
            url,
            issuer: issuer.to_owned(),
            audience: audience.to_owned(),
            leeway: Duration::from_secs(30),
            fetch_timeout: Duration::from_secs(5),
            min_refresh_interval: Duration::from_secs(30),
            #[cfg(feature = "tls")]
            roots: None,
            cache: Arc::new(Cache {
                keys: RwLock::new(Arc::new(keys)),
                last_fetch: tokio::sync::Mutex::new(None),
            }),
            verified: Arc::new(TokenCache::new(
                DEFAULT_CACHED_TOKENS,
                DEFAULT_CACHED_TOKEN_TTL,
            )),
        }
    }

    /// Remembers at most `capacity` verified tokens, each for at most `ttl` (and never past
    /// its expiry). `capacity` 0 checks every token's signature every time. Default 4096
    /// and 60 s.
    #[must_use]
    pub fn with_token_cache(self, capacity: usize, ttl: Duration) -> Self {
        JwksVerifier {
            verified: Arc::new(TokenCache::new(capacity, ttl)),
            ..self
        }
    }

    /// How far `exp` and `nbf` may be off (clock skew). Default 30 s.
    #[must_use]
    pub fn with_leeway(self, leeway: Duration) -> Self {
        JwksVerifier { leeway, ..self }
    }

    /// Longest a JWKS fetch may take. Default 5 s.
    #[must_use]
    pub fn with_fetch_timeout(self, timeout: Duration) -> Self {
        JwksVerifier {
            fetch_timeout: timeout,
            ..self
        }
    }

    /// Shortest time between two JWKS fetches. Default 30 s.
    #[must_use]
    pub fn with_min_refresh_interval(self, interval: Duration) -> Self {
        JwksVerifier {
            min_refresh_interval: interval,
            ..self
        }
    }

    /// The roots an `https` JWKS server's certificate must chain to (default: the Mozilla
    /// roots of `webpki-roots`).
    #[cfg(feature = "tls")]
    #[must_use]
    pub fn with_tls_roots(self, roots: tokio_rustls::rustls::RootCertStore) -> Self {
        JwksVerifier {
            roots: Some(Arc::new(roots)),
            ..self
        }
    }

    async fn check(&self, token: &str) -> Result<Verified, Rejected> {
        if let Some(verified) = self.verified.get(token, crate::unix_seconds()) {
            return Ok(verified);
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| Rejected::Invalid)?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(Rejected::Invalid);
        }
        let id = header.kid.as_deref();
        let mut keys = self.cache.current();
        if !keys.iter().any(|k| k.fits(id, header.alg)) {
            keys = self.refresh(id, header.alg).await?;
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway.as_secs();
        let claims = keys
            .iter()
            .filter(|k| k.fits(id, header.alg))
            .find_map(|k| jsonwebtoken::decode::<Value>(token, &k.key, &validation).ok())
            .ok_or(Rejected::Invalid)?
            .claims;
        let caller = verified(&claims).ok_or(Rejected::Invalid)?;
        if let Some(exp) = claims.get("exp").and_then(Value::as_u64) {
            let valid_until = exp.saturating_add(self.leeway.as_secs());
            self.verified.put(token, &caller, valid_until);
        }
        Ok(caller)
    }

    /// Fetches the JWKS again unless one was fetched lately, and returns the keys (as they
    /// are now when no fetch was allowed).
    async fn refresh(&self, id: Option<&str>, alg: Algorithm) -> Result<Arc<Vec<Key>>, Rejected> {
        let Some(url) = &self.url else {
            return Err(Rejected::Invalid);
        };
        let mut last = self.cache.last_fetch.lock().await;
        let keys = self.cache.current();
        if keys.iter().any(|k| k.fits(id, alg)) {
            // Another request fetched it while this one waited.
            return Ok(keys);
        }
        if let Some((at, failed)) = *last {
            if at.elapsed() < self.min_refresh_interval {
                return Err(if failed {
                    Rejected::Unavailable
                } else {
                    Rejected::Invalid
                });
            }
        }
        let started = Instant::now();
        let fetched = tokio::time::timeout(self.fetch_timeout, self.fetch(url))
            .await
            .unwrap_or(Err(FetchError::Timeout));
        match fetched {
            Ok(document) => {
                let keys = Arc::new(parse_jwks(&document));
                tracing::info!(keys = keys.len(), %url, "JWKS fetched");
                *self
                    .cache
                    .keys
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::clone(&keys);
                *last = Some((started, false));
                Ok(keys)
            }
            Err(e) => {
                tracing::warn!(%url, "JWKS fetch failed: {e}");
                *last = Some((started, true));
                Err(Rejected::Unavailable)
            }
        }
    }

    async fn fetch(&self, url: &http::Uri) -> Result<bytes::Bytes, FetchError> {
        #[cfg(feature = "tls")]
        let roots: Roots = self.roots.clone();
        #[cfg(not(feature = "tls"))]
        let roots: Roots = None;
        get(url, MAX_JWKS_LEN, roots).await
    }
}

/// Verified tokens remembered by default.
const DEFAULT_CACHED_TOKENS: usize = 4096;
/// Longest a verified token is remembered by default.
const DEFAULT_CACHED_TOKEN_TTL: Duration = Duration::from_secs(60);

/// Largest JWKS document read.
const MAX_JWKS_LEN: usize = 64 * 1024;

impl Cache {
    fn current(&self) -> Arc<Vec<Key>> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Key {
    /// Whether this key may check a token with key id `id` (any key of the algorithm when
    /// the token names none) and algorithm `alg`.
    fn fits(&self, id: Option<&str>, alg: Algorithm) -> bool {
        self.algorithm == alg && (id.is_none() || self.id.as_deref() == id)
    }
}

impl TokenVerifier for JwksVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

/// The RS256 and ES256 signing keys of a JWKS document; anything else is skipped.
fn parse_jwks(document: &[u8]) -> Vec<Key> {
    let Ok(Value::Object(mut set)) = serde_json::from_slice::<Value>(document) else {
        return Vec::new();
    };
    let Some(Value::Array(keys)) = set.remove("keys") else {
        return Vec::new();
    };
    keys.into_iter()
        .filter_map(|k| serde_json::from_value::<Jwk>(k).ok())
        .filter_map(|jwk| {
            let algorithm = match (&jwk.algorithm, jwk.common.key_algorithm) {
                (AlgorithmParameters::RSA(_), None | Some(KeyAlgorithm::RS256)) => Algorithm::RS256,
                (AlgorithmParameters::EllipticCurve(ec), None | Some(KeyAlgorithm::ES256))
                    if ec.curve == EllipticCurve::P256 =>
                {
                    Algorithm::ES256
                }
                _ => return None,
            };
            if !matches!(
                jwk.common.public_key_use,
                None | Some(PublicKeyUse::Signature)
            ) {
                return None;
            }
            Some(Key {
                id: jwk.common.key_id.clone(),
                algorithm,
                key: DecodingKey::from_jwk(&jwk).ok()?,
            })
        })
        .take(MAX_KEYS)
        .collect()
}

/// The caller a token's validated claims describe: its subject and scopes.
fn verified(claims: &Value) -> Option<Verified> {
    let subject = claims.get("sub")?.as_str()?;
    if subject.is_empty() || subject.len() > MAX_SUBJECT_LEN {
        return None;
    }
    let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => {
            s.split_ascii_whitespace().map(str::to_owned).collect()
        }
        (None, Some(Value::Array(list))) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    Some(Verified {
        subject: subject.to_owned(),
        scopes: scopes.into_iter().take(MAX_SCOPES).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let v = verified(&serde_json::json!({"sub": "a", "scope": "x y"})).unwrap();
        assert_eq!(
            (v.subject.as_str(), v.scopes),
            ("a", vec!["x".to_owned(), "y".to_owned()])
        );
        let v = verified(&serde_json::json!({"sub": "a", "scp": ["x"]})).unwrap();
        assert_eq!(v.scopes, ["x"]);
        assert!(verified(&serde_json::json!({"sub": ""})).is_none());
        assert!(verified(&serde_json::json!({"sub": 7})).is_none());
    }

    #[test]
    fn a_jwks_keeps_only_signing_keys_it_can_use() {
        assert!(parse_jwks(b"not json").is_empty());
        assert!(parse_jwks(br#"{"keys":[{"kty":"oct","k":"AAAA"},{"kty":"weird"}]}"#).is_empty());
        assert_eq!(
            JwksVerifier::from_jwks(br#"{"keys":[]}"#, "i", "a").unwrap_err(),
            JwksError::NoKeys
        );
        assert!(JwksVerifier::new("ftp://x/jwks", "i", "a").is_err());
        assert!(JwksVerifier::new("/jwks", "i", "a").is_err());
    }
}
