//! Where the example's sealed-state keys come from: `--keyring-file PATH`, else the file named
//! by `SNODO_KEYRING_FILE`, else the ring text in `SNODO_KEYRING`, else a secret drawn at
//! start-up (right for one process only). Over HTTP, a ring is read again on `SIGHUP`; over
//! stdio it is read once.

use std::sync::Arc;

use snodo_std::ServerSlot;
use snodo_std::keys::{KeyRingReloader, KeyRingSource};
use snodo_std::typed::Server;
use snodo_std::typed::Ttl;
use snodo_std::typed::TypedApp;

use super::app;

/// The usage lines of the key-ring options.
pub const USAGE: &str = "\
  --keyring-file PATH  seal request state with the key ring in PATH (one `<key id> <base64
                secret>` per line, the first sealing; see docs/deploy.md), read again on
                SIGHUP. Without it: the file named by SNODO_KEYRING_FILE, else the ring text
                in SNODO_KEYRING, else a random secret for this process only
";

/// Takes `--keyring-file PATH` out of `args`; the rest is for the other options.
pub fn take_args(
    args: impl IntoIterator<Item = String>,
) -> Result<(Option<KeyRingSource>, Vec<String>), String> {
    let mut source = None;
    let mut rest = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--keyring-file" {
            let path = args.next().ok_or("--keyring-file needs a path")?;
            source = Some(KeyRingSource::File(path.into()));
        } else {
            rest.push(arg);
        }
    }
    Ok((source.or_else(from_environment), rest))
}

fn from_environment() -> Option<KeyRingSource> {
    if let Some(path) = std::env::var_os("SNODO_KEYRING_FILE") {
        return Some(KeyRingSource::File(path.into()));
    }
    std::env::var_os("SNODO_KEYRING").map(|_| KeyRingSource::Env("SNODO_KEYRING".to_owned()))
}

/// The server requests use, and what reloads it.
pub struct StateKeys {
    slot: ServerSlot<TypedApp>,
    reloader: Option<Arc<KeyRingReloader<TypedApp>>>,
}

impl StateKeys {
    /// Reads the ring (when configured) and builds the server; the error names the source
    /// and line, never a secret.
    pub fn load(source: Option<KeyRingSource>) -> Result<StateKeys, String> {
        // The definitions are built (and checked) once; a reload makes a server around the
        // same definitions with the new keys.
        let built = app::server();
        let Some(source) = source else {
            return Ok(StateKeys {
                slot: ServerSlot::new(Arc::new(built)),
                reloader: None,
            });
        };
        let config = *built.config();
        let definitions = built.app().clone();
        let reloader = KeyRingReloader::start(source, Ttl::DEFAULT, move |state| {
            Server::new(config.with_state(state), definitions.clone())
        })
        .map_err(|e| e.to_string())?;
        Ok(StateKeys {
            slot: reloader.slot().clone(),
            reloader: Some(Arc::new(reloader)),
        })
    }

    /// [`load`](Self::load); logs what is wrong.
    pub fn load_checked(source: Option<KeyRingSource>) -> Option<StateKeys> {
        StateKeys::load(source)
            .inspect_err(|problem| tracing::error!("{problem}"))
            .ok()
    }

    /// The slot holding the server new requests use.
    pub fn slot(&self) -> &ServerSlot<TypedApp> {
        &self.slot
    }

    /// Reloads the ring on `SIGHUP` (inside the runtime); nothing to do without a ring.
    #[cfg(unix)]
    pub fn reload_on_sighup(&self) -> std::io::Result<()> {
        match &self.reloader {
            Some(reloader) => {
                tracing::info!(source = %reloader.source(), "state keys from configuration; SIGHUP reloads them");
                reloader.reload_on_sighup()
            }
            None => Ok(()),
        }
    }

    /// No `SIGHUP` here: the ring is read once, at start.
    #[cfg(not(unix))]
    pub fn reload_on_sighup(&self) -> std::io::Result<()> {
        Ok(())
    }
}
