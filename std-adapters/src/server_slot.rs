//! The server that new requests use, replaceable while requests run.

use std::fmt;
use std::sync::Arc;

use arc_swap::ArcSwap;
use snodo_core::server::Server;

/// Holds the server new requests use. Each request takes the current one once, at its start,
/// and finishes on it; [`replace`](Self::replace) changes what the next requests take,
/// without a lock on the request path and without touching requests in flight.
///
/// Clones share the slot. A [`KeyRingReloader`](crate::keys::KeyRingReloader) replaces the
/// server when the key ring changes; an [`McpService`](crate::http::McpService) made with
/// [`McpService::with_slot`](crate::http::McpService::with_slot) reads it.
pub struct ServerSlot<A: 'static> {
    current: Arc<ArcSwap<Server<'static, A>>>,
}

impl<A> Clone for ServerSlot<A> {
    fn clone(&self) -> Self {
        ServerSlot {
            current: Arc::clone(&self.current),
        }
    }
}

impl<A> fmt::Debug for ServerSlot<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSlot").finish_non_exhaustive()
    }
}

impl<A> ServerSlot<A> {
    /// A slot holding `server`.
    pub fn new(server: Arc<Server<'static, A>>) -> Self {
        ServerSlot {
            current: Arc::new(ArcSwap::new(server)),
        }
    }

    /// The server for a request starting now.
    pub fn load(&self) -> Arc<Server<'static, A>> {
        self.current.load_full()
    }

    /// Makes `server` the one new requests use; returns the previous one (requests that took
    /// it keep it until they finish).
    pub fn replace(&self, server: Arc<Server<'static, A>>) -> Arc<Server<'static, A>> {
        self.current.swap(server)
    }
}
