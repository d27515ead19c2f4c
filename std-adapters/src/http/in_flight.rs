//! Requests whose handlers are running, by principal and id, so a `notifications/cancelled`
//! POST can stop one. Ids are chosen by clients and many clients share a listener, so a
//! cancellation stops a request only when exactly one in flight has that principal and id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use snodo_core::rpc::Id;
use tokio::sync::oneshot;

/// A request's owner and id: the principal, and the number or the decoded text of the id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RequestKey {
    principal: Option<String>,
    id: IdKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum IdKey {
    Num(i64),
    Str(String),
}

impl RequestKey {
    pub(crate) fn new(principal: Option<&str>, id: Id<'_>) -> Self {
        RequestKey {
            principal: principal.map(str::to_owned),
            id: match id {
                Id::Num(n) => IdKey::Num(n),
                Id::Str(s) => IdKey::Str(s.chars().collect()),
            },
        }
    }
}

/// The running requests of each key: admission ticket and cancellation sender.
type Running = HashMap<RequestKey, Vec<(u64, oneshot::Sender<()>)>>;

/// The registry of running requests.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    next_ticket: AtomicU64,
    running: Mutex<Running>,
}

/// A registered request: forgotten when dropped (finished, failed or abandoned).
#[derive(Debug)]
pub(crate) struct Registration<'r> {
    registry: &'r InFlight,
    key: RequestKey,
    ticket: u64,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        let mut running = self.registry.lock();
        if let Some(entries) = running.get_mut(&self.key) {
            entries.retain(|(t, _)| *t != self.ticket);
            if entries.is_empty() {
                running.remove(&self.key);
            }
        }
    }
}

impl InFlight {
    /// Registers a running request; the receiver fires if it is cancelled.
    pub(crate) fn admit(&self, key: RequestKey) -> (Registration<'_>, oneshot::Receiver<()>) {
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        let (cancel, signal) = oneshot::channel();
        self.lock()
            .entry(key.clone())
            .or_default()
            .push((ticket, cancel));
        let registration = Registration {
            registry: self,
            key,
            ticket,
        };
        (registration, signal)
    }

    /// Cancels the one running request with this key; whether there was exactly one.
    pub(crate) fn cancel(&self, key: &RequestKey) -> bool {
        let mut running = self.lock();
        match running.get(key).map(Vec::len) {
            Some(1) => running
                .remove(key)
                .and_then(|mut entries| entries.pop())
                .is_some_and(|(_, cancel)| cancel.send(()).is_ok()),
            _ => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
