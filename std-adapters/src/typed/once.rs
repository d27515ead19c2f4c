//! One-time effects: a leg's effect runs at most once per sealed token.
//!
//! A handler re-runs from the top on every leg, and the final leg's `requestState` stays valid
//! until it expires: a client (or anyone who saw the request) can send it again and run the
//! leg again. [`Cx::once`](super::Cx::once) records the token as consumed in a
//! [`ReplayGuard`] and says whether this is its first use, so the leg that books, pays or
//! sends does so once. The record is kept until the token could no longer open anyway.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Whether this is the first use of the request's sealed token.
///
/// ```
/// use snodo_std::typed::{Cx, NoArgs, Once, Stop};
///
/// async fn book(_: NoArgs, cx: Cx<'_>) -> Result<&'static str, Stop> {
///     // (after the flow has asked and been answered)
///     match cx.once()? {
///         Once::First => Ok("booked"),
///         Once::Replayed => Ok("this booking was already made"),
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Once {
    /// The token was not used before (or the request carries none): run the effect.
    First,
    /// The token was used before: the effect ran; answer as the application chooses.
    Replayed,
}

/// A record of consumed tokens, shared by every handler of a server. The default is
/// [`MemoryReplayGuard`]; a cluster backs it with its database so that a replay to another
/// node is seen too.
pub trait ReplayGuard: Send + Sync + 'static {
    /// Marks the token whose SHA-256 digest is `id` consumed until `until` (Unix seconds),
    /// at time `now`: `Ok(true)` on its first use, `Ok(false)` on a replay, `Err` when the
    /// record is full (then the effect must not run).
    fn consume(&self, id: [u8; 32], until: u64, now: u64) -> Result<bool, GuardFull>;
}

/// The guard cannot record another token until some expire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardFull;

impl std::fmt::Display for GuardFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the record of one-time tokens is full")
    }
}

impl std::error::Error for GuardFull {}

/// The bounded in-memory [`ReplayGuard`]: at most `capacity` tokens, each forgotten once it
/// has expired. When every slot holds a live token, further effects are refused (-32603) until
/// one expires: refusing is safe, running twice is not.
///
/// ```
/// use snodo_std::typed::{MemoryReplayGuard, ReplayGuard};
///
/// let guard = MemoryReplayGuard::new(1);
/// assert_eq!(guard.consume([1; 32], 100, 10), Ok(true));
/// assert_eq!(guard.consume([1; 32], 100, 20), Ok(false));
/// assert!(guard.consume([2; 32], 100, 30).is_err());
/// assert_eq!(guard.consume([2; 32], 200, 101), Ok(true));
/// ```
#[derive(Debug)]
pub struct MemoryReplayGuard {
    capacity: usize,
    consumed: Mutex<HashMap<[u8; 32], u64>>,
}

impl MemoryReplayGuard {
    /// The capacity when none is given: a few hundred kilobytes at most.
    pub const DEFAULT_CAPACITY: usize = 4096;

    /// A guard recording at most `capacity` live tokens.
    pub fn new(capacity: usize) -> Self {
        MemoryReplayGuard {
            capacity,
            consumed: Mutex::new(HashMap::new()),
        }
    }
}

impl Default for MemoryReplayGuard {
    fn default() -> Self {
        MemoryReplayGuard::new(MemoryReplayGuard::DEFAULT_CAPACITY)
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn consume(&self, id: [u8; 32], until: u64, now: u64) -> Result<bool, GuardFull> {
        let mut consumed = self.consumed.lock().unwrap_or_else(PoisonError::into_inner);
        if consumed.get(&id).is_some_and(|&expiry| expiry >= now) {
            return Ok(false);
        }
        if consumed.len() >= self.capacity {
            consumed.retain(|_, expiry| *expiry >= now);
        }
        if consumed.len() >= self.capacity && !consumed.contains_key(&id) {
            return Err(GuardFull);
        }
        consumed.insert(id, until);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_first_once_and_then_a_replay_until_it_expires() {
        let guard = MemoryReplayGuard::new(8);
        assert_eq!(guard.consume([7; 32], 50, 10), Ok(true));
        assert_eq!(guard.consume([7; 32], 50, 11), Ok(false));
        assert_eq!(guard.consume([7; 32], 50, 50), Ok(false));
        assert_eq!(guard.consume([8; 32], 50, 12), Ok(true));
    }

    #[test]
    fn a_full_guard_refuses_until_a_token_expires_and_never_grows() {
        let guard = MemoryReplayGuard::new(3);
        for i in 0..3u8 {
            assert_eq!(guard.consume([i; 32], 100 + u64::from(i), 1), Ok(true));
        }
        assert_eq!(guard.consume([9; 32], 500, 2), Err(GuardFull));
        // A replay of a recorded token is still known while full.
        assert_eq!(guard.consume([1; 32], 101, 2), Ok(false));
        // Once the first has expired, its slot is free.
        assert_eq!(guard.consume([9; 32], 500, 101), Ok(true));
        let consumed = guard.consumed.lock().expect("not poisoned");
        assert_eq!(consumed.len(), 3);
    }
}
