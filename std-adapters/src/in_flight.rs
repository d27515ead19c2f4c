//! Requests whose handlers are running, by principal and id, so `notifications/cancelled`
//! can stop one: one registry for stdio and HTTP, the modern and the legacy path.
//!
//! Ids are chosen by clients, and on HTTP many clients share a listener (and an anonymous
//! principal), so a cancellation stops a request only when exactly one in flight has that
//! principal and id; a client that reuses the id of a request still running (which JSON-RPC
//! forbids) cancels neither.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use snodo_core::rpc::Id;
use tokio::sync::oneshot;

/// A request's owner and id: the principal (the legacy HTTP session stands in for it there;
/// none on stdio, one client per connection), and the number or the decoded text of the id
/// (so `"a"` and `"\u0061"` name the same request, and `1` and `"1"` do not).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RequestKey {
    principal: Option<Box<str>>,
    id: IdKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum IdKey {
    Num(i64),
    Str(Box<str>),
}

impl RequestKey {
    pub(crate) fn new(principal: Option<&str>, id: Id<'_>) -> Self {
        RequestKey {
            principal: principal.map(Box::from),
            id: match id {
                Id::Num(n) => IdKey::Num(n),
                Id::Str(s) => IdKey::Str(s.chars().collect::<String>().into_boxed_str()),
            },
        }
    }
}

/// The key of a request on a connection of one client (stdio).
impl From<Id<'_>> for RequestKey {
    fn from(id: Id<'_>) -> Self {
        RequestKey::new(None, id)
    }
}

/// How a running request learns it was cancelled.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A call running in stdio reader slot `n`: its flag is set, and the reader polls it.
    Slot(usize),
    /// A request in a task or future of its own: signalled through a channel.
    Task(oneshot::Sender<()>),
}

/// The running requests of one key, each with its ticket: almost always one, kept without an
/// allocation of its own (a request per key is the rule; a reused id the exception).
#[derive(Debug)]
enum Entries {
    One(u64, Stop),
    Many(Vec<(u64, Stop)>),
}

impl Entries {
    fn len(&self) -> usize {
        match self {
            Entries::One(..) => 1,
            Entries::Many(all) => all.len(),
        }
    }

    fn push(&mut self, ticket: u64, stop: Stop) {
        let placeholder = Entries::Many(Vec::new());
        *self = match std::mem::replace(self, placeholder) {
            Entries::One(first, first_stop) => {
                Entries::Many(vec![(first, first_stop), (ticket, stop)])
            }
            Entries::Many(mut all) => {
                all.push((ticket, stop));
                Entries::Many(all)
            }
        };
    }

    /// Drops the request of `ticket`; whether none is left.
    fn remove(&mut self, ticket: u64) -> bool {
        match self {
            Entries::One(t, _) => *t == ticket,
            Entries::Many(all) => {
                all.retain(|(t, _)| *t != ticket);
                all.is_empty()
            }
        }
    }

    /// The stop of the only request.
    fn into_only(self) -> Option<Stop> {
        match self {
            Entries::One(_, stop) => Some(stop),
            Entries::Many(mut all) if all.len() == 1 => all.pop().map(|(_, stop)| stop),
            Entries::Many(_) => None,
        }
    }
}

/// The registry of running requests, and a cancellation flag for each stdio reader slot.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    running: Mutex<HashMap<RequestKey, Entries>>,
    slots: Box<[AtomicBool]>,
    next_ticket: AtomicU64,
}

/// A request [`register`](InFlight::register)ed: forgotten when dropped (finished, failed or
/// abandoned).
#[derive(Debug)]
pub(crate) struct Registration<'r> {
    registry: &'r InFlight,
    key: RequestKey,
    ticket: u64,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.registry.finish(&self.key, self.ticket);
    }
}

impl InFlight {
    /// A registry with flags for `slots` reader slots.
    pub(crate) fn new(slots: usize) -> Self {
        InFlight {
            running: Mutex::new(HashMap::with_capacity(slots)),
            slots: (0..slots).map(|_| AtomicBool::new(false)).collect(),
            next_ticket: AtomicU64::new(0),
        }
    }

    /// Registers a request admitted with `ticket` (unique among the registry's requests),
    /// stopped through `stop`.
    pub(crate) fn admit(&self, key: RequestKey, ticket: u64, stop: Stop) {
        if let Stop::Slot(slot) = stop {
            if let Some(flag) = self.slots.get(slot) {
                flag.store(false, Ordering::Relaxed);
            }
        }
        let mut running = self.lock();
        match running.get_mut(&key) {
            Some(entries) => entries.push(ticket, stop),
            None => {
                running.insert(key, Entries::One(ticket, stop));
            }
        }
    }

    /// Registers a request under a ticket of the registry's own; the receiver fires if it
    /// is cancelled.
    pub(crate) fn register(&self, key: RequestKey) -> (Registration<'_>, oneshot::Receiver<()>) {
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        let (cancel, cancelled) = oneshot::channel();
        self.admit(key.clone(), ticket, Stop::Task(cancel));
        let registration = Registration {
            registry: self,
            key,
            ticket,
        };
        (registration, cancelled)
    }

    /// Forgets the request admitted with `ticket`.
    pub(crate) fn finish(&self, key: &RequestKey, ticket: u64) {
        let mut running = self.lock();
        if running
            .get_mut(key)
            .is_some_and(|entries| entries.remove(ticket))
        {
            running.remove(key);
        }
    }

    /// Stops the one running request with this key; whether there was exactly one.
    pub(crate) fn cancel(&self, key: &RequestKey) -> bool {
        let mut running = self.lock();
        if running.get(key).map(Entries::len) != Some(1) {
            return false;
        }
        match running.remove(key).and_then(Entries::into_only) {
            Some(Stop::Slot(slot)) => self.slots.get(slot).is_some_and(|flag| {
                flag.store(true, Ordering::Relaxed);
                true
            }),
            Some(Stop::Task(signal)) => signal.send(()).is_ok(),
            None => false,
        }
    }

    /// Whether the call in reader slot `slot` was cancelled.
    pub(crate) fn is_cancelled(&self, slot: usize) -> bool {
        self.slots
            .get(slot)
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestKey, Entries>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_core::json::parse;

    fn key(id: &str) -> RequestKey {
        let value = parse(id.as_bytes(), &snodo_core::json::Limits::HOST).unwrap();
        let id = match value.as_str() {
            Some(s) => Id::Str(s),
            None => Id::Num(value.as_i64().unwrap()),
        };
        RequestKey::from(id)
    }

    #[test]
    fn a_cancellation_stops_the_one_request_with_its_key() {
        let in_flight = InFlight::new(2);
        in_flight.admit(key(r#""a""#), 1, Stop::Slot(0));
        let (_registration, mut cancelled) = in_flight.register(key("1"));
        assert!(!in_flight.cancel(&key(r#""1""#)), "\"1\" is not 1");
        assert!(
            in_flight.cancel(&key(r#""\u0061""#)),
            "the same text, escaped"
        );
        assert!(in_flight.is_cancelled(0));
        assert!(in_flight.cancel(&key("1")));
        assert!(cancelled.try_recv().is_ok());
        assert!(!in_flight.cancel(&key("1")), "once");
    }

    #[test]
    fn a_reused_id_cancels_neither_and_finishing_forgets_only_its_own() {
        let in_flight = InFlight::new(2);
        in_flight.admit(key("7"), 1, Stop::Slot(0));
        in_flight.admit(key("7"), 2, Stop::Slot(1));
        assert!(!in_flight.cancel(&key("7")));
        in_flight.finish(&key("7"), 1);
        assert!(in_flight.cancel(&key("7")));
        assert!(in_flight.is_cancelled(1) && !in_flight.is_cancelled(0));
        // A registration forgets itself when dropped.
        let (registration, _) = in_flight.register(key("8"));
        drop(registration);
        assert!(!in_flight.cancel(&key("8")));
    }
}
