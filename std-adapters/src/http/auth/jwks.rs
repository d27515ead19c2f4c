//! JWT bearer tokens checked against the authorization server's JSON Web Key Set.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use tokio::time::Instant;

use sha2::{Digest, Sha256};

use super::fetch::{FetchError, Fetched, Roots, get};
use super::token_cache::{KeyPrint, TokenCache};
use super::verifier::{Rejected, TokenVerifier, Verified, VerifyFuture};

/// Most keys kept from a JWKS; the rest are ignored.
const MAX_KEYS: usize = 32;
/// Longest subject accepted as a principal.
const MAX_SUBJECT_LEN: usize = 1024;
/// Most scopes read from a token.
const MAX_SCOPES: usize = 256;

/// Checks bearer tokens that are JWTs signed with RS256 or ES256 by a key of a JWKS: the
/// signature, `iss` (the issuer, a string), `aud` (this server's canonical URI; a string or
/// an array of strings), `exp` and `nbf` (with a leeway, default 30 s) and a `sub` (a
/// string), which becomes the principal. Scopes come from `scope` (space-separated) or
/// `scp` (an array or a string).
///
/// The JWKS is fetched from its URL on first use and kept for its maximum age: the
/// response's `Cache-Control` `max-age`, clamped to
/// [`with_key_set_max_age`](Self::with_key_set_max_age) (default 30 s to 5 min; 5 min when
/// the response does not say). An older set verifies nothing: the next token fetches it
/// again (if that fetch fails, tokens are answered `503` until one succeeds), and a key
/// that left it verifies no more tokens, those remembered included. A token
/// naming a key id the set lacks fetches it again too. Fetches start at most once per
/// [`with_min_refresh_interval`](Self::with_min_refresh_interval) (default 30 s; a token
/// that would need one sooner is answered `503` with `Retry-After`), each bounded by
/// [`with_fetch_timeout`](Self::with_fetch_timeout) (default 5 s) and a 64 KiB document.
/// `https` URLs need feature `tls` too.
///
/// A token that verified is remembered (by its SHA-256) until it expires, for 60 s, or
/// until its key leaves the key set, whichever is first, so a client sending the same token
/// with every request pays for the signature check once a minute; at most 4096 are
/// remembered ([`with_token_cache`](Self::with_token_cache)). Cheap to clone; clones share
/// the caches.
#[derive(Clone)]
pub struct JwksVerifier {
    url: Option<http::Uri>,
    issuer: String,
    audience: String,
    leeway: Duration,
    fetch_timeout: Duration,
    min_refresh_interval: Duration,
    /// The range a fetched key set's maximum age is clamped to.
    max_age: (Duration, Duration),
    #[cfg(feature = "tls")]
    roots: Option<Arc<tokio_rustls::rustls::RootCertStore>>,
    cache: Arc<Cache>,
    verified: Arc<TokenCache>,
}

/// The keys fetched last, shared by clones.
struct Cache {
    keys: RwLock<Arc<KeySet>>,
    /// When the last fetch started; held while fetching, so concurrent requests wait for
    /// one fetch rather than each making their own.
    last_fetch: tokio::sync::Mutex<Option<Instant>>,
}

/// The keys of one JWKS document, and until when they verify.
struct KeySet {
    keys: Vec<Key>,
    /// When the set stops verifying anything (`None`: never; given inline, or with an age
    /// beyond what an instant holds).
    expires: Option<Instant>,
}

struct Key {
    id: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
    print: KeyPrint,
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
        // No keys yet, and already past their age: the first token fetches them.
        let unfetched = KeySet {
            keys: Vec::new(),
            expires: Some(Instant::now()),
        };
        Ok(Self::with_source(Some(url), unfetched, issuer, audience))
    }

    /// Tokens issued by `issuer` for `audience`, signed by a key of `jwks` (a JWKS document
    /// given inline and never refreshed).
    pub fn from_jwks(jwks: &[u8], issuer: &str, audience: &str) -> Result<Self, JwksError> {
        let keys = parse_jwks(jwks);
        if keys.is_empty() {
            return Err(JwksError::NoKeys);
        }
        let keys = KeySet {
            keys,
            expires: None,
        };
        Ok(Self::with_source(None, keys, issuer, audience))
    }

    fn with_source(url: Option<http::Uri>, keys: KeySet, issuer: &str, audience: &str) -> Self {
        JwksVerifier {
            url,
            issuer: issuer.to_owned(),
            audience: audience.to_owned(),
            leeway: Duration::from_secs(30),
            fetch_timeout: Duration::from_secs(5),
            min_refresh_interval: Duration::from_secs(30),
            max_age: DEFAULT_MAX_AGE,
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

    /// Shortest time between the starts of two JWKS fetches (the cool-down). Default 30 s.
    /// A key set is kept at least this long, since it could not be fetched again sooner.
    #[must_use]
    pub fn with_min_refresh_interval(self, interval: Duration) -> Self {
        JwksVerifier {
            min_refresh_interval: interval,
            ..self
        }
    }

    /// How long a fetched key set is used: the JWKS response's `Cache-Control` `max-age`
    /// (zero for `no-cache` or `no-store`) clamped to `shortest..=longest`, or `longest`
    /// when the response gives none. `longest` bounds how long a key removed from the JWKS
    /// keeps admitting tokens. Default 30 s to 5 min.
    #[must_use]
    pub fn with_key_set_max_age(self, shortest: Duration, longest: Duration) -> Self {
        JwksVerifier {
            max_age: (shortest.min(longest), longest.max(shortest)),
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
        // First the keys' age: a remembered token is good only while its key still is.
        let mut keys = self.cache.current();
        if !keys.fresh(Instant::now()) {
            keys = self.refresh(|_| true).await?;
        }
        if let Some(verified) = self.verified.get(token, crate::unix_seconds()) {
            return Ok(verified);
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| Rejected::Invalid)?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(Rejected::Invalid);
        }
        let id = header.kid.as_deref();
        if !keys.fits(id, header.alg) {
            // A key id the set has, for another algorithm: no fetch brings a fitting key.
            if id.is_some_and(|id| keys.keys.iter().any(|k| k.id.as_deref() == Some(id))) {
                return Err(Rejected::Invalid);
            }
            keys = self.refresh(|set| set.fits(id, header.alg)).await?;
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway.as_secs();
        let (key, claims) = keys
            .keys
            .iter()
            .filter(|k| k.fits(id, header.alg))
            .find_map(|k| {
                let decoded = jsonwebtoken::decode::<Value>(token, &k.key, &validation).ok()?;
                Some((k, decoded.claims))
            })
            .ok_or(Rejected::Invalid)?;
        if !typed_claims(&claims) {
            return Err(Rejected::Invalid);
        }
        let caller = verified(&claims).ok_or(Rejected::Invalid)?;
        if let Some(exp) = claims.get("exp").and_then(Value::as_u64) {
            let valid_until = exp.saturating_add(self.leeway.as_secs());
            self.verified.put(token, &caller, valid_until, key.print);
        }
        Ok(caller)
    }

    /// The key set once `wanted` holds of it and it is fresh: as it is when it does already
    /// (another request fetched it while this one waited), else fetched again, unless a
    /// fetch started less than the cool-down ago (then [`Rejected::RetryAfter`] the rest of
    /// it). A set given inline is never fetched.
    async fn refresh(&self, wanted: impl Fn(&KeySet) -> bool) -> Result<Arc<KeySet>, Rejected> {
        let Some(url) = &self.url else {
            return Err(Rejected::Invalid);
        };
        let mut last = self.cache.last_fetch.lock().await;
        let keys = self.cache.current();
        let started = Instant::now();
        if keys.fresh(started) && wanted(&keys) {
            return Ok(keys);
        }
        if let Some(at) = *last {
            let since = started.saturating_duration_since(at);
            if since < self.min_refresh_interval {
                return Err(Rejected::RetryAfter(self.min_refresh_interval - since));
            }
        }
        *last = Some(started);
        let fetched = tokio::time::timeout(self.fetch_timeout, self.fetch(url))
            .await
            .unwrap_or(Err(FetchError::Timeout));
        match fetched {
            Ok(Fetched { body, max_age }) => {
                let age = self.age(max_age);
                let keys = Arc::new(KeySet {
                    keys: parse_jwks(&body),
                    // An age past what an instant can hold: kept for good.
                    expires: started.checked_add(age),
                });
                tracing::info!(keys = keys.keys.len(), ?age, %url, "JWKS fetched");
                // Tokens a key that left the set verified are checked again, and fail.
                self.verified
                    .keep_keys(|print| keys.keys.iter().any(|k| k.print == *print));
                *self
                    .cache
                    .keys
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::clone(&keys);
                Ok(keys)
            }
            Err(e) => {
                tracing::warn!(%url, "JWKS fetch failed: {e}");
                Err(Rejected::RetryAfter(self.min_refresh_interval))
            }
        }
    }

    /// How long a key set fetched with `max_age` is used.
    fn age(&self, max_age: Option<Duration>) -> Duration {
        let (shortest, longest) = self.max_age;
        max_age
            .unwrap_or(longest)
            .clamp(shortest, longest)
            .max(self.min_refresh_interval)
    }

    async fn fetch(&self, url: &http::Uri) -> Result<Fetched, FetchError> {
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

/// The range a key set's maximum age is clamped to by default.
const DEFAULT_MAX_AGE: (Duration, Duration) = (Duration::from_secs(30), Duration::from_secs(300));

impl Cache {
    fn current(&self) -> Arc<KeySet> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }
}

impl KeySet {
    /// Whether the set still verifies tokens at `now`.
    fn fresh(&self, now: Instant) -> bool {
        self.expires.is_none_or(|expires| now < expires)
    }

    /// Whether a key of the set may check a token with key id `id` and algorithm `alg`.
    fn fits(&self, id: Option<&str>, alg: Algorithm) -> bool {
        self.keys.iter().any(|k| k.fits(id, alg))
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
                key: DecodingKey::from_jwk(&jwk).ok()?,
                print: print(&jwk, algorithm),
                id: jwk.common.key_id,
                algorithm,
            })
        })
        .take(MAX_KEYS)
        .collect()
}

/// The fingerprint of `jwk` used with `algorithm`: its id, algorithm and public parameters.
fn print(jwk: &Jwk, algorithm: Algorithm) -> KeyPrint {
    let named = (
        jwk.common.key_id.as_deref(),
        format!("{algorithm:?}"),
        &jwk.algorithm,
    );
    Sha256::digest(serde_json::to_vec(&named).unwrap_or_default()).into()
}

/// Whether the registered claims have the types RFC 7519 gives them: `iss` and `sub`
/// strings, `aud` a string or an array of strings, `exp`, `nbf` and `iat` numbers.
/// (`jsonwebtoken` takes an array for `iss` too, and compares only what it can read.)
fn typed_claims(claims: &Value) -> bool {
    let is = |name, check: fn(&Value) -> bool| claims.get(name).is_none_or(check);
    let strings = |aud: &Value| match aud {
        Value::String(_) => true,
        Value::Array(list) => list.iter().all(Value::is_string),
        _ => false,
    };
    is("iss", Value::is_string)
        && is("sub", Value::is_string)
        && is("aud", strings)
        && ["exp", "nbf", "iat"]
            .iter()
            .all(|n| is(n, Value::is_number))
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
    fn registered_claims_must_have_their_types() {
        let good = serde_json::json!({"iss": "i", "sub": "s", "aud": "a", "exp": 1, "nbf": 0.5});
        assert!(typed_claims(&good));
        assert!(typed_claims(&serde_json::json!({"aud": ["a", "b"]})));
        for bad in [
            serde_json::json!({"iss": ["i"]}),
            serde_json::json!({"iss": 7}),
            serde_json::json!({"sub": ["s"]}),
            serde_json::json!({"sub": {"id": "s"}}),
            serde_json::json!({"aud": ["a", 5]}),
            serde_json::json!({"aud": {"a": true}}),
            serde_json::json!({"aud": null}),
            serde_json::json!({"exp": "1"}),
            serde_json::json!({"iat": [1]}),
        ] {
            assert!(!typed_claims(&bad), "{bad}");
        }
    }

    #[test]
    fn a_key_set_lives_for_its_clamped_max_age_and_no_less_than_the_cool_down() {
        let v = JwksVerifier::new("http://x.test/jwks", "i", "a").unwrap();
        let secs = Duration::from_secs;
        assert_eq!(v.age(None), secs(300));
        assert_eq!(v.age(Some(secs(60))), secs(60));
        assert_eq!(v.age(Some(secs(86_400))), secs(300));
        assert_eq!(v.age(Some(Duration::ZERO)), secs(30));
        let v = v
            .with_min_refresh_interval(secs(10))
            .with_key_set_max_age(secs(120), secs(1));
        assert_eq!(v.age(Some(secs(60))), secs(60), "the range is put in order");
        assert_eq!(
            v.age(Some(Duration::ZERO)),
            secs(10),
            "never under the cool-down"
        );
    }

    #[test]
    fn a_key_is_known_by_its_material_not_only_its_id() {
        let rsa = br#"{"keys":[{"kty":"RSA","kid":"k","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw","e":"AQAB"}]}"#;
        let other = String::from_utf8_lossy(rsa).replace("sXch", "tXch");
        let [a] = parse_jwks(rsa).try_into().ok().unwrap();
        let [b] = parse_jwks(other.as_bytes()).try_into().ok().unwrap();
        assert_eq!(a.id, b.id);
        assert_ne!(a.print, b.print);
        assert_eq!(a.print, parse_jwks(rsa)[0].print);
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
