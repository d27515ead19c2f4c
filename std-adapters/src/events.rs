//! Change events for `subscriptions/listen` streams.
//!
//! The application publishes what changed on an [`EventBus`]; every open stream (a modern
//! `subscriptions/listen` stream, or a legacy session's, on stdio and HTTP alike) holds a
//! receiver and writes the events it watches
//! ([`Subscription::wants`](snodo_core::server::Subscription::wants); a legacy session's list
//! changes and subscribed resources). The bus is a bounded broadcast channel: publishing never
//! waits, and a stream that falls more than the capacity behind is told that everything it
//! watches may have changed (one notification per kind and per subscribed URI), which is
//! always a correct, if coarse, answer. One step decides this for every stream.

use std::sync::Arc;

use snodo_core::server::{Event, Subscription};
use tokio::sync::broadcast;

/// Something that changed on the server: the owned twin of the core's [`Event`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ServerEvent {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The resource at this URI changed.
    ResourceUpdated(Arc<str>),
}

impl ServerEvent {
    /// A resource update for `uri`.
    pub fn resource_updated(uri: impl Into<Arc<str>>) -> Self {
        ServerEvent::ResourceUpdated(uri.into())
    }

    /// The core's view of this event, to test and write it against a subscription.
    pub fn as_event(&self) -> Event<'_> {
        match self {
            ServerEvent::ToolsListChanged => Event::ToolsListChanged,
            ServerEvent::PromptsListChanged => Event::PromptsListChanged,
            ServerEvent::ResourcesListChanged => Event::ResourcesListChanged,
            ServerEvent::ResourceUpdated(uri) => Event::ResourceUpdated(uri),
        }
    }
}

/// Where the application announces changes; clone it freely (clones share one channel).
#[derive(Clone, Debug)]
pub struct EventBus {
    sender: broadcast::Sender<ServerEvent>,
}

impl EventBus {
    /// Events a slow stream may fall behind by before it is told that everything changed.
    pub const DEFAULT_CAPACITY: usize = 256;

    /// A bus with [`EventBus::DEFAULT_CAPACITY`].
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A bus whose streams may fall `capacity` events behind (at least 1).
    pub fn with_capacity(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        EventBus { sender }
    }

    /// Announces `event` to every open stream; returns how many streams were listening.
    pub fn publish(&self, event: ServerEvent) -> usize {
        self.sender.send(event).unwrap_or(0)
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.sender.subscribe()
    }

    /// How many streams are listening.
    pub fn listeners(&self) -> usize {
        self.sender.receiver_count()
    }
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new()
    }
}

/// A stream of change events as the event pump sees it: which events it sends, and what it
/// may have missed. A modern `subscriptions/listen` stream ([`Subscription`]) and a legacy
/// session's stream are both one.
pub(crate) trait Watch {
    /// Whether the stream sends `event`.
    fn wants(&self, event: &ServerEvent) -> bool;

    /// Every event the stream may have missed when it fell behind: one per kind and per
    /// resource URI it watches.
    fn everything(&self) -> Vec<ServerEvent>;
}

impl Watch for Subscription<'_> {
    fn wants(&self, event: &ServerEvent) -> bool {
        Subscription::wants(self, &event.as_event())
    }

    fn everything(&self) -> Vec<ServerEvent> {
        let filter = self.filter();
        let kinds = [
            (filter.tools, ServerEvent::ToolsListChanged),
            (filter.prompts, ServerEvent::PromptsListChanged),
            (filter.resources, ServerEvent::ResourcesListChanged),
        ];
        let mut events: Vec<ServerEvent> = kinds
            .into_iter()
            .filter_map(|(wanted, event)| wanted.then_some(event))
            .collect();
        let uris = filter.resource_uris.iter().flat_map(|uris| uris.iter());
        events.extend(
            uris.filter_map(|uri| uri.as_str())
                .map(|uri| ServerEvent::resource_updated(uri.chars().collect::<String>())),
        );
        events
    }
}

/// What one receive from the bus makes a stream send, the same for every stream on every
/// transport: the event when the stream wants it; after falling behind, everything it
/// watches (always a correct, if coarse, answer); nothing once the bus is gone.
pub(crate) struct Due {
    /// The event that arrived, when the stream wants it.
    one: Option<ServerEvent>,
    /// What the stream may have missed (empty, without an allocation, unless it fell behind).
    missed: std::vec::IntoIter<ServerEvent>,
}

impl Iterator for Due {
    type Item = ServerEvent;

    fn next(&mut self) -> Option<ServerEvent> {
        self.one.take().or_else(|| self.missed.next())
    }
}

/// The events `watch` is due after `received`.
pub(crate) fn due<W: Watch + ?Sized>(
    watch: &W,
    received: Result<ServerEvent, broadcast::error::RecvError>,
) -> Due {
    let (one, missed) = match received {
        Ok(event) => (watch.wants(&event).then_some(event), Vec::new()),
        Err(broadcast::error::RecvError::Closed) => (None, Vec::new()),
        Err(broadcast::error::RecvError::Lagged(missed)) => {
            tracing::debug!(
                missed,
                "a stream fell behind; sending everything it watches"
            );
            (None, watch.everything())
        }
    };
    Due {
        one,
        missed: missed.into_iter(),
    }
}

/// The next event on `events`, or never when there is none (no bus, or the bus is gone).
pub(crate) async fn next_event(
    events: &mut Option<broadcast::Receiver<ServerEvent>>,
) -> Result<ServerEvent, broadcast::error::RecvError> {
    match events {
        Some(receiver) => {
            let event = receiver.recv().await;
            if matches!(event, Err(broadcast::error::RecvError::Closed)) {
                *events = None;
            }
            event
        }
        None => std::future::pending().await,
    }
}
