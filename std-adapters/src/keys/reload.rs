//! Rebuilding the server when its key ring changes.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use snodo_core::server::{Refused, Registry, Server};
use snodo_core::state::{StateOptions, Ttl};

use super::ring_text::RingText;
use super::source::{KeyRingError, KeyRingSource};
use crate::serve::CheckError;
use crate::server_slot::ServerSlot;

/// Most distinct key rings one process keys. A server borrows its state options for
/// `'static`, so each distinct ring a process loads stays in memory (about 1.5 KiB of keyed
/// HMAC state) until the process exits; loading the same ring again reuses it. One rotation
/// (`[a,b]`, `[b,a]`, `[b]`) adds three rings, so this is twenty rotations per process.
pub const MAX_RINGS_PER_PROCESS: usize = 64;

/// Builds a server around state options (for example
/// `|state| Server::new(config.with_state(state), App::new())`), however the application
/// assembles its server.
pub type ServerFactory<A> =
    dyn Fn(&'static StateOptions) -> Result<Server<'static, A>, Refused<A>> + Send + Sync;

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
    /// The factory's server refused one of its definitions.
    Definition(CheckError),
}

impl fmt::Display for ReloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReloadError::Ring(e) => e.fmt(f),
            ReloadError::Definition(e) => e.fmt(f),
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

impl<A: Registry + 'static> KeyRingReloader<A> {
    /// Reads the ring from `source` and builds the first server; fails (naming the source
    /// and the line, never a secret) when the ring is missing, malformed or weak. Sealed
    /// state lives for `ttl`.
    pub fn start(
        source: KeyRingSource,
        ttl: Ttl,
        factory: impl Fn(&'static StateOptions) -> Result<Server<'static, A>, Refused<A>>
        + Send
        + Sync
        + 'static,
    ) -> Result<Self, ReloadError> {
        let mut keyed = Vec::new();
        let (options, _) = options_for(&mut keyed, &source, ttl)?;
        let server = factory(options).map_err(|e| ReloadError::Definition(e.into()))?;
        let slot = ServerSlot::new(Arc::new(server));
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
        let server = (self.factory)(options).map_err(|e| ReloadError::Definition(e.into()))?;
        self.slot.replace(Arc::new(server));
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
impl<A: Registry + Send + Sync + 'static> KeyRingReloader<A> {
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use snodo_core::server::{Config, Registry};

    use super::*;

    struct Nothing;

    impl Registry for Nothing {}

    /// 32 bytes of `byte`, base64.
    fn secret(byte: u8) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode([byte; 32])
    }

    fn write(path: &Path, text: &str) {
        std::fs::write(path, text).expect("write the ring");
    }

    fn state_of(
        server: &Server<'static, Nothing>,
    ) -> *const StateOptions<dyn snodo_core::state::KeySet> {
        server.config().state.expect("keyed")
    }

    fn started(path: &Path) -> KeyRingReloader<Nothing> {
        let source = KeyRingSource::File(path.to_path_buf());
        KeyRingReloader::start(source, Ttl::DEFAULT, |state| {
            Server::new(Config::new("t", "0").with_state(state), Nothing)
        })
        .expect("a good ring and valid definitions")
    }

    #[test]
    fn a_reload_swaps_the_server_new_requests_take_and_leaves_taken_ones_alone() {
        let dir = tempfile_dir("swap");
        let path = dir.join("keys");
        write(&path, &format!("a {}\n", secret(1)));
        let reloader = started(&path);
        let in_flight = reloader.slot().load();
        write(&path, &format!("b {}\na {}\n", secret(2), secret(1)));
        assert_eq!(reloader.reload().expect("reloads"), ["b", "a"]);
        let next = reloader.slot().load();
        assert!(!std::ptr::addr_eq(state_of(&in_flight), state_of(&next)));
        let Some(keys) = in_flight.config().state else {
            panic!("keyed")
        };
        assert_eq!(keys.ttl(), Ttl::DEFAULT);

        // A bad ring changes nothing.
        write(&path, "b c2hvcnQ=\n");
        assert!(matches!(reloader.reload(), Err(ReloadError::Ring(_))));
        assert!(std::ptr::addr_eq(
            state_of(&reloader.slot().load()),
            state_of(&next)
        ));
        std::fs::remove_dir_all(dir).expect("clean up");
    }

    #[test]
    fn a_ring_seen_before_is_reused_and_distinct_rings_are_bounded() {
        let dir = tempfile_dir("bound");
        let path = dir.join("keys");
        write(&path, &format!("a {}\n", secret(0)));
        let reloader = started(&path);
        let first = state_of(&reloader.slot().load());
        write(&path, &format!("b {}\n", secret(0)));
        reloader.reload().expect("reloads");
        write(&path, &format!("a {}\n", secret(0)));
        reloader.reload().expect("reloads");
        assert!(std::ptr::addr_eq(first, state_of(&reloader.slot().load())));
        // Two rings so far; fill the table with distinct ones, then one more is refused.
        for n in 2..MAX_RINGS_PER_PROCESS {
            write(&path, &format!("k{n} {}\n", secret(0)));
            reloader.reload().expect("within the bound");
        }
        write(&path, &format!("over {}\n", secret(0)));
        assert!(matches!(reloader.reload(), Err(ReloadError::TooManyRings)));
        write(&path, &format!("a {}\n", secret(0)));
        reloader.reload().expect("a known ring still loads");
        std::fs::remove_dir_all(dir).expect("clean up");
    }

    fn tempfile_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("snodo-reload-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        dir
    }
}
