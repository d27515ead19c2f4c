//! Process-lifetime secrets for sealed request state.
//!
//! Right for a single process serving anonymous loopback clients (stdio, a local HTTP
//! listener): tokens die with the process. A cluster behind a load balancer needs the same
//! key ring on every node instead: see [`keys`](crate::keys) and `docs/deploy.md`.

use snodo_core::state::{Keys, StateOptions};

/// 32 bytes from the operating system's random number generator.
///
/// # Panics
///
/// If the operating system has no randomness to give, which leaves no safe way to go on.
pub fn random_secret() -> [u8; 32] {
    let mut secret = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut secret) {
        panic!("the operating system gave no randomness for the state secret: {e}");
    }
    secret
}

/// State options with a fresh random single secret and the default TTL, made once per process
/// and kept for its lifetime (so a `Config<'static>` can refer to them).
pub fn process_state_options() -> &'static StateOptions {
    static OPTIONS: std::sync::OnceLock<StateOptions> = std::sync::OnceLock::new();
    OPTIONS.get_or_init(|| {
        let keys = Keys::secret(&random_secret())
            .unwrap_or_else(|_| unreachable!("a 32-byte secret is always a valid key"));
        StateOptions::new(keys)
    })
}
