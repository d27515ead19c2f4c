//! Tokens already verified, so a client that sends the same access token with every
//! request pays for its signature once.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::time::Instant;

use super::verifier::Verified;

/// At most `capacity` verified tokens, by the SHA-256 of their text, each kept until the
/// earlier of its expiry (plus the leeway the check allowed) and `ttl` after it was
/// verified, or until the key that verified it leaves the key set
/// ([`keep_keys`](Self::keep_keys)). When full, expired entries go first, then every entry
/// (the next requests verify again): bounded, never wrong.
pub(crate) struct TokenCache {
    capacity: usize,
    ttl: Duration,
    entries: Mutex<HashMap<[u8; 32], Entry>>,
}

struct Entry {
    verified: Verified,
    /// The token's `exp` plus the leeway, in Unix seconds.
    valid_until_unix: u64,
    /// When the entry stops being used, whatever the token says.
    stale_at: Instant,
    /// The fingerprint of the key that verified it.
    print: KeyPrint,
}

/// What names a signing key in the cache: the SHA-256 of its id, algorithm and public
/// parameters, so a key id reused for another key is another key.
pub(crate) type KeyPrint = [u8; 32];

impl TokenCache {
    pub(crate) fn new(capacity: usize, ttl: Duration) -> Self {
        TokenCache {
            capacity,
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn key(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    /// The caller `token` was verified for, if it was lately and is still valid at `now`
    /// (Unix seconds).
    pub(crate) fn get(&self, token: &str, now: u64) -> Option<Verified> {
        if self.capacity == 0 {
            return None;
        }
        let key = Self::key(token);
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.get(&key)?;
        (now <= entry.valid_until_unix && Instant::now() < entry.stale_at)
            .then(|| entry.verified.clone())
    }

    /// Remembers that `token` verified as `verified` with the key printed `print`, valid until
    /// `valid_until_unix`.
    pub(crate) fn put(
        &self,
        token: &str,
        verified: &Verified,
        valid_until_unix: u64,
        print: KeyPrint,
    ) {
        if self.capacity == 0 {
            return;
        }
        let key = Self::key(token);
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.capacity {
            let unix_now = crate::unix_seconds();
            entries.retain(|_, e| now < e.stale_at && unix_now <= e.valid_until_unix);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(
            key,
            Entry {
                verified: verified.clone(),
                valid_until_unix,
                stale_at: now + self.ttl,
                print,
            },
        );
    }

    /// Forgets every token verified by a key `kept` refuses (the key set changed).
    pub(crate) fn keep_keys(&self, kept: impl Fn(&KeyPrint) -> bool) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|_, e| kept(&e.print));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(name: &str) -> Verified {
        Verified {
            subject: name.to_owned(),
            scopes: vec![],
        }
    }

    #[test]
    fn entries_end_with_the_token_and_the_cache_stays_bounded() {
        let cache = TokenCache::new(2, Duration::from_secs(60));
        cache.put("a", &caller("a"), 100, [1; 32]);
        assert_eq!(cache.get("a", 100), Some(caller("a")));
        assert_eq!(cache.get("a", 101), None, "past the token's validity");
        assert_eq!(cache.get("b", 50), None);
        cache.put("b", &caller("b"), u64::MAX, [1; 32]);
        cache.put("c", &caller("c"), u64::MAX, [1; 32]);
        let kept = ["a", "b", "c"]
            .iter()
            .filter(|t| cache.get(t, 0).is_some())
            .count();
        assert!(kept <= 2, "{kept} entries in a cache of 2");
        assert_eq!(cache.get("c", 0), Some(caller("c")));
        let off = TokenCache::new(0, Duration::from_secs(60));
        off.put("a", &caller("a"), u64::MAX, [1; 32]);
        assert_eq!(off.get("a", 0), None);
    }

    #[test]
    fn entries_go_stale_after_the_ttl() {
        let cache = TokenCache::new(8, Duration::ZERO);
        cache.put("a", &caller("a"), u64::MAX, [1; 32]);
        assert_eq!(cache.get("a", 0), None);
    }

    #[test]
    fn entries_leave_with_the_key_that_verified_them() {
        let cache = TokenCache::new(8, Duration::from_secs(60));
        cache.put("a", &caller("a"), u64::MAX, [1; 32]);
        cache.put("b", &caller("b"), u64::MAX, [2; 32]);
        cache.keep_keys(|key| *key == [2; 32]);
        assert_eq!(cache.get("a", 0), None);
        assert_eq!(cache.get("b", 0), Some(caller("b")));
    }
}
