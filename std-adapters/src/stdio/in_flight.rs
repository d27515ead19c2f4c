//! Requests whose handlers are running, by id, so `notifications/cancelled` can stop them.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use snodo_core::rpc::Id;
use tokio::sync::oneshot;

/// A request id, owned: the number, or the decoded text of a string id (so `"a"` and
/// `"\u0061"` name the same request, and `1` and `"1"` do not).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RequestKey {
    Num(i64),
    Str(String),
}

impl From<Id<'_>> for RequestKey {
    fn from(id: Id<'_>) -> Self {
        match id {
            Id::Num(n) => RequestKey::Num(n),
            Id::Str(s) => RequestKey::Str(s.chars().collect()),
        }
    }
}

/// Where a running request listens for its cancellation.
pub(crate) type CancelSignal = oneshot::Receiver<()>;

/// The registry of running requests.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    running: Mutex<HashMap<RequestKey, Entry>>,
}

#[derive(Debug)]
struct Entry {
    /// Which admission this is, so a finished request never removes a later one that
    /// reused its id.
    ticket: u64,
    cancel: oneshot::Sender<()>,
}

impl InFlight {
    /// Registers an admitted request. A request that reuses the id of one still running
    /// takes the id over: a cancellation then reaches the newer one.
    pub(crate) fn admit(&self, key: RequestKey, ticket: u64) -> CancelSignal {
        let (cancel, signal) = oneshot::channel();
        self.lock().insert(key, Entry { ticket, cancel });
        signal
    }

    /// Forgets a request that has finished.
    pub(crate) fn finish(&self, key: &RequestKey, ticket: u64) {
        let mut running = self.lock();
        if running.get(key).is_some_and(|e| e.ticket == ticket) {
            running.remove(key);
        }
    }

    /// Signals the running request with this id to stop; whether there was one.
    pub(crate) fn cancel(&self, key: &RequestKey) -> bool {
        match self.lock().remove(key) {
            Some(entry) => entry.cancel.send(()).is_ok(),
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestKey, Entry>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
