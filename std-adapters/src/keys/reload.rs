//! Rebuilding the server when its key ring changes.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use snodo_core::server::Server;
use snodo_core::state::{StateOptions, Ttl};

use super::ring_text::RingText;
use super::source::{KeyRingError, KeyRingSource};
use crate::server_slot::ServerSlot;

/// Most distinct key rings one process keys. A server borrows its state options for
/// `'static`, so each distinct ring a process loads stays in memory (about 1.5 KiB of keyed
/// HMAC state) until the process exits; loading the same ring again reuses it. One rotation
/// (`[a,b]`, `[b,a]`, `[b]`) adds three rings, so this is twenty rotations per process.
pub const MAX_RINGS_PER_PROCESS: usize = 64;

/// Builds a server around state options (for example
/// `|state| Server::new(config.with_state(state), App::new())`), however the application
/// assembles its server.
pub type ServerFactory<A> = dyn Fn(&'static StateOptions) -> Server<'static, A> + Send + Sync;

/// Reads a key ring from its [`KeyRingSource`], builds a server for it with the application's
/// factory and puts it in a [`ServerSlot`]; [`reload`](Self::reload) does it again.
///
/// Requests in flight finish on the server they started with (so a retry sealed just before
/// a reload opens as long as the new ring still holds its key, which the three-step rotation
/// guarantees); connections are untouched.
pub struct KeyRingReloader<A: 'static> {
    source: KeyRingSource,
    ttl: Ttl,
    factory: Box<ServerFactory<A>>,
    slot: ServerSlot<A>,
    keyed: Mutex<Vec<Keyed>>,
}

/// A ring this process has keyed, known by its fingerprint.
struct Keyed {
    fingerprint: [u8; 32],
    ttl: Ttl,
    options: &'static StateOptions,
}

/// Why a reload did not happen (the server in the slot stays as it was).
#[derive(Debug)]
#[non_exhaustive]
pub enum ReloadError {
    /// The ring could not be read or is invalid.
    Ring(KeyRingError),
    /// This process has keyed [`MAX_RINGS_PER_PROCESS`] distinct rings; restart it.
    TooManyRings,
}

impl fmt::Display for ReloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReloadError::Ring(e) => e.fmt(f),
            ReloadError::TooManyRings => write!(
                f,
                "this process has already loaded {MAX_RINGS_PER_PROCESS} distinct key rings; \
                 restart it to load another"
            ),
        }
    }
}

impl std::error::Error for ReloadError {}

impl<A> fmt::Debug for KeyRingReloader<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyRingReloader")
            .field("source", &self.source)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl<A: 'static> KeyRingReloader<A> {
    /// Reads the ring from `source` and builds the first server; fails (naming the source
    /// and the line, never a secret) when the ring is missing, malformed or weak. Sealed
    /// state lives for `ttl`.
    pub fn start(
        source: KeyRingSource,
        ttl: Ttl,
        factory: impl Fn(&'static StateOptions) -> Server<'static, A> + Send + Sync + 'static,
    ) -> Result<Self, ReloadError> {
        let mut keyed = Vec::new();
        let (options, _) = options_for(&mut keyed, &source, ttl)?;
        let slot = ServerSlot::new(Arc::new(factory(options)));
        Ok(KeyRingReloader {
            source,
            ttl,
            factory: Box::new(factory),
            slot,
            keyed: Mutex::new(keyed),
        })
    }

    /// The slot holding the server new requests use.
    pub fn slot(&self) -> &ServerSlot<A> {
        &self.slot
    }

    /// Where the ring is read from.
    pub fn source(&self) -> &KeyRingSource {
        &self.source
    }

    /// Reads the ring again and, when it reads well, makes a server with it the one new
    /// requests use. Returns the ids of the ring now in use, the sealing one first. On an
    /// error nothing changes.
    pub fn reload(&self) -> Result<Vec<String>, ReloadError> {
        let mut keyed = self.keyed.lock().unwrap_or_else(PoisonError::into_inner);
        let (options, ids) = options_for(&mut keyed, &self.source, self.ttl)?;
        self.slot.replace(Arc::new((self.factory)(options)));
        Ok(ids)
    }
}

/// The options for the ring `source` holds now: keyed before, or keyed now and kept.
fn options_for(
    keyed: &mut Vec<Keyed>,
    source: &KeyRingSource,
    ttl: Ttl,
) -> Result<(&'static StateOptions, Vec<String>), ReloadError> {
    let ring = source.read().map_err(ReloadError::Ring)?;
    let ids = ring.ids().map(str::to_owned).collect();
    let fingerprint = ring.fingerprint();
    if let Some(known) = keyed
        .iter()
        .find(|k| k.fingerprint == fingerprint && k.ttl == ttl)
    {
        return Ok((known.options, ids));
    }
    if keyed.len() >= MAX_RINGS_PER_PROCESS {
        return Err(ReloadError::TooManyRings);
    }
    let options: &'static StateOptions = Box::leak(Box::new(keyed_options(&ring, ttl)));
    keyed.push(Keyed {
        fingerprint,
        ttl,
        options,
    });
    Ok((options, ids))
}

fn keyed_options(ring: &RingText, ttl: Ttl) -> StateOptions {
    StateOptions::new(ring.keys()).with_ttl(ttl)
}

#[cfg(unix)]
impl<A: Send + Sync + 'static> KeyRingReloader<A> {
    /// Reloads on every `SIGHUP` for as long as the runtime runs, logging the ids of the ring
    /// now in use (or why the reload was refused, leaving the ring as it was).
    pub fn reload_on_sighup(self: &Arc<Self>) -> std::io::Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangups = signal(SignalKind::hangup())?;
        let reloader = Arc::clone(self);
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                match reloader.reload() {
                    Ok(ids) => tracing::info!(?ids, "key ring reloaded"),
                    Err(e) => tracing::error!("key ring not reloaded: {e}"),
                }
            }
        });
        Ok(())
    }
}
