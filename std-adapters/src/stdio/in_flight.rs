//! Requests whose handlers are running, by id, so `notifications/cancelled` can stop them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// How a running request learns it was cancelled.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A call running in reader slot `n`: its flag is set, and the reader polls it next.
    Slot(usize),
    /// A subscription stream in a task of its own: signalled through a channel.
    Task(oneshot::Sender<()>),
}

/// The registry of running requests, and a cancellation flag for each reader slot.
#[derive(Debug)]
pub(crate) struct InFlight {
    running: Mutex<HashMap<RequestKey, Entry>>,
    cancelled: Box<[AtomicBool]>,
}

#[derive(Debug)]
struct Entry {
    /// Which admission this is, so a finished request never removes a later one that
    /// reused its id.
    ticket: u64,
    stop: Stop,
}

impl InFlight {
    /// A registry for `slots` reader slots.
    pub(crate) fn new(slots: usize) -> Self {
        InFlight {
            running: Mutex::new(HashMap::with_capacity(slots)),
            cancelled: (0..slots).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// Registers an admitted request. A request that reuses the id of one still running
    /// takes the id over: a cancellation then reaches the newer one.
    pub(crate) fn admit(&self, key: RequestKey, ticket: u64, stop: Stop) {
        if let Stop::Slot(slot) = stop {
            self.cancelled[slot].store(false, Ordering::Relaxed);
        }
        self.lock().insert(key, Entry { ticket, stop });
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
        match self.lock().remove(key).map(|e| e.stop) {
            Some(Stop::Slot(slot)) => {
                self.cancelled[slot].store(true, Ordering::Relaxed);
                true
            }
            Some(Stop::Task(signal)) => signal.send(()).is_ok(),
            None => false,
        }
    }

    /// Whether the call in reader slot `slot` was cancelled.
    pub(crate) fn is_cancelled(&self, slot: usize) -> bool {
        self.cancelled[slot].load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestKey, Entry>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
