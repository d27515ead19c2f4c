//! The legacy Streamable HTTP sessions of one endpoint: a bounded, expiring table from
//! `Mcp-Session-Id` to what the session remembers between its POSTs.
//!
//! Every part is capped by [`SessionLimits`]: the number of sessions, each one's resource
//! subscriptions, running requests and kept events; the bridged requests waiting for the
//! client's answers are capped by [`BridgeConfig::max_waiting`](super::BridgeConfig). An
//! idle session expires; one with an open `GET` stream is in use and does not.
//!
//! Sessions live in the memory of one process. Behind a load balancer every request of a
//! session must reach the node that minted its id (sticky sessions keyed on the
//! `Mcp-Session-Id` header): another node answers 404, and the client starts over with
//! `initialize`. Modern (2026-07-28) requests carry everything in each request and need no
//! stickiness.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use snodo_core::json::{JsonStr, Writer};
use snodo_core::legacy::{NodeName, Session, SessionId};
use snodo_core::rpc::Id;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, watch};
use tokio::time::Instant;

use super::replay::Streams;
use super::round::Answers;
use super::subscriptions::Subscriptions;
use crate::buffers::BufferPool;
use crate::events::{Due, ServerEvent, due};

/// The bounds of the legacy sessions of one endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionLimits {
    /// Most open sessions; an `initialize` beyond them is refused with 503. Default 1024.
    pub max_sessions: usize,
    /// A session without a request for this long (none running, no open `GET` stream)
    /// ends; its id then answers 404. Default 30 minutes.
    pub idle_timeout: Duration,
    /// Most resource subscriptions of one session. Default 64.
    pub max_subscriptions: usize,
    /// Most requests of one session running at once; one more is answered -32603.
    /// Default 16.
    pub max_requests: usize,
    /// Most requests of all sessions together running at once (a legacy request runs on
    /// after its connection closes, so the connection bound does not bound it); one more is
    /// answered -32603. Default 1024.
    pub max_running: usize,
    /// Bytes of a session's POST event streams kept for clients that resume with
    /// `Last-Event-ID` (beyond the newest event, which is always kept). Default 64 KiB.
    pub replay_bytes: usize,
    /// The reconnection delay a POST event stream's priming event asks for (`retry`).
    /// Default 1 s.
    pub reconnect_delay: Duration,
    /// When set, a POST whose request has sent nothing for this long is answered with an
    /// event stream of only its priming event, then closed: the client comes back for the
    /// rest with `GET` and `Last-Event-ID` (SSE polling, so a slow request holds no
    /// connection). Default `None`: the POST's stream stays open until the response.
    pub poll_after: Option<Duration>,
    /// The name of this node in a cluster, put at the front of every session id it mints
    /// (`<node>.<hex>`), so a balancer can send a session's requests to its node by the
    /// `Mcp-Session-Id` header alone (`docs/deploy.md` has the nginx recipe). Default `None`.
    pub node: Option<NodeName>,
}

impl SessionLimits {
    /// The defaults.
    pub const DEFAULT: SessionLimits = SessionLimits {
        max_sessions: 1024,
        idle_timeout: Duration::from_secs(30 * 60),
        max_subscriptions: 64,
        max_requests: 16,
        max_running: 1024,
        replay_bytes: 64 * 1024,
        reconnect_delay: Duration::from_secs(1),
        poll_after: None,
        node: None,
    };

    /// With another session bound.
    #[must_use]
    pub const fn with_max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// With another idle expiry.
    #[must_use]
    pub const fn with_idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// With another subscription bound.
    #[must_use]
    pub const fn with_max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.max_subscriptions = subscriptions;
        self
    }

    /// With another bound on a session's running requests.
    #[must_use]
    pub const fn with_max_requests(mut self, requests: usize) -> Self {
        self.max_requests = requests;
        self
    }

    /// With another bound on the running requests of all sessions.
    #[must_use]
    pub const fn with_max_running(mut self, requests: usize) -> Self {
        self.max_running = requests;
        self
    }

    /// With another replay budget per session.
    #[must_use]
    pub const fn with_replay_bytes(mut self, bytes: usize) -> Self {
        self.replay_bytes = bytes;
        self
    }

    /// With another reconnection delay.
    #[must_use]
    pub const fn with_reconnect_delay(mut self, delay: Duration) -> Self {
        self.reconnect_delay = delay;
        self
    }

    /// Closing quiet POST streams after `quiet` (or never).
    #[must_use]
    pub const fn with_poll_after(mut self, quiet: Option<Duration>) -> Self {
        self.poll_after = quiet;
        self
    }

    /// Naming this node in the session ids it mints.
    ///
    /// ```
    /// use snodo_std::legacy::{NodeName, SessionLimits};
    ///
    /// let limits = SessionLimits::DEFAULT.with_node(NodeName::new("node-a").unwrap());
    /// assert_eq!(limits.node.map(|n| n.as_str().to_owned()).as_deref(), Some("node-a"));
    /// ```
    #[must_use]
    pub const fn with_node(mut self, node: NodeName) -> Self {
        self.node = Some(node);
        self
    }
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The table is full: the `initialize` that would open one more session is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableFull;

/// A per-session (or, for running requests, endpoint-wide) bound was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SessionFull;

/// The open sessions of one endpoint.
#[derive(Debug)]
pub(crate) struct Sessions {
    limits: SessionLimits,
    max_waiting: usize,
    running: Arc<Semaphore>,
    table: Mutex<HashMap<SessionId, Arc<Entry>>>,
    /// The output buffers the endpoint's rounds borrow while they write.
    buffers: Arc<BufferPool>,
}

/// One open session.
#[derive(Debug)]
pub(crate) struct Entry {
    id: SessionId,
    /// Who opened it: only the same principal reaches it again.
    principal: Option<String>,
    limits: SessionLimits,
    /// The endpoint's permits for running requests.
    running: Arc<Semaphore>,
    state: Mutex<State>,
    /// Becomes true when the session ends: its `GET` stream closes, its waits end.
    ended: watch::Sender<bool>,
    /// The event streams of its POSTs, kept for resumption.
    streams: Streams,
    /// Its bridged requests waiting for the client's answers.
    answers: Answers,
}

#[derive(Debug)]
struct State {
    session: Session,
    last_used: Instant,
    subscriptions: Subscriptions,
    stream_open: bool,
    running: usize,
}

impl Sessions {
    /// Sessions within `limits`, each with at most `max_waiting` bridged requests waiting,
    /// whose rounds borrow their output buffers from `buffers`.
    pub(crate) fn new(limits: SessionLimits, max_waiting: usize, buffers: Arc<BufferPool>) -> Self {
        Sessions {
            limits,
            max_waiting,
            running: Arc::new(Semaphore::new(limits.max_running)),
            table: Mutex::new(HashMap::new()),
            buffers,
        }
    }

    /// The output buffers the endpoint's rounds borrow.
    pub(crate) fn buffers(&self) -> &Arc<BufferPool> {
        &self.buffers
    }

    /// Opens a session for `session` under a fresh id from the operating system's CSPRNG;
    /// expired sessions are dropped first.
    pub(crate) fn open(
        &self,
        session: Session,
        principal: Option<&str>,
    ) -> Result<Arc<Entry>, TableFull> {
        let now = Instant::now();
        let mut table = self.lock();
        table.retain(|_, entry| {
            let expired = entry.expired(now);
            if expired {
                entry.end();
            }
            !expired
        });
        if table.len() >= self.limits.max_sessions {
            return Err(TableFull);
        }
        let id = loop {
            let id = match self.limits.node {
                Some(node) => SessionId::on_node(node, random_bytes()),
                None => SessionId::from_random(random_bytes()),
            };
            if !table.contains_key(&id) {
                break id;
            }
        };
        let entry = Arc::new(Entry {
            id,
            principal: principal.map(str::to_owned),
            limits: self.limits,
            running: Arc::clone(&self.running),
            state: Mutex::new(State {
                session,
                last_used: now,
                subscriptions: Subscriptions::new(self.limits.max_subscriptions),
                stream_open: false,
                running: 0,
            }),
            ended: watch::Sender::new(false),
            streams: Streams::new(self.limits.replay_bytes),
            answers: Answers::new(self.max_waiting),
        });
        table.insert(id, Arc::clone(&entry));
        Ok(entry)
    }

    /// The live session named by an `Mcp-Session-Id` header, for `principal`; `None` when it
    /// is malformed, unknown, expired, ended or another principal's (all 404).
    pub(crate) fn find(&self, header: &[u8], principal: Option<&str>) -> Option<Arc<Entry>> {
        let id = SessionId::parse(header)?;
        let now = Instant::now();
        let mut table = self.lock();
        let entry = table.get(&id)?;
        if entry.expired(now) {
            if let Some(entry) = table.remove(&id) {
                entry.end();
            }
            return None;
        }
        if entry.principal.as_deref() != principal {
            return None;
        }
        entry.state().last_used = now;
        Some(Arc::clone(entry))
    }

    /// Ends the session (a `DELETE`); whether it was open.
    pub(crate) fn end(&self, entry: &Entry) -> bool {
        let removed = self.lock().remove(&entry.id);
        entry.end();
        removed.is_some()
    }

    /// How many sessions are open (expired ones included until the next `initialize`).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SessionId, Arc<Entry>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Entry {
    /// The session's id, for the `Mcp-Session-Id` header.
    pub(crate) fn id(&self) -> SessionId {
        self.id
    }

    /// The session's state now.
    pub(crate) fn session(&self) -> Session {
        self.state().session
    }

    /// Runs `change` on the session's state, atomically with respect to its other requests.
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut Session) -> R) -> R {
        change(&mut self.state().session)
    }

    /// The session's limits.
    pub(crate) fn limits(&self) -> &SessionLimits {
        &self.limits
    }

    /// The event streams of its POSTs.
    pub(crate) fn streams(&self) -> &Streams {
        &self.streams
    }

    /// Counts one more running request, up to the session's bound; it stops counting when
    /// the ticket drops.
    pub(crate) fn start_request(self: &Arc<Self>) -> Result<RequestTicket, SessionFull> {
        let mut state = self.state();
        if state.running >= self.limits.max_requests {
            return Err(SessionFull);
        }
        let permit = Arc::clone(&self.running)
            .try_acquire_owned()
            .map_err(|_| SessionFull)?;
        state.running += 1;
        crate::memory::BURSTS.started();
        Ok(RequestTicket {
            entry: Arc::clone(self),
            _permit: permit,
        })
    }

    /// Subscribes the session to `uri` or ends the subscription, writing the answer to
    /// request `id`.
    pub(crate) fn change_subscription(
        &self,
        id: Id<'_>,
        uri: JsonStr<'_>,
        subscribe: bool,
        w: &mut Writer<'_>,
    ) {
        self.state().subscriptions.change(id, uri, subscribe, w);
    }

    /// What the session's stream sends after `received` from the event bus.
    pub(crate) fn due(&self, received: Result<ServerEvent, broadcast::error::RecvError>) -> Due {
        due(&self.state().subscriptions, received)
    }

    /// Claims the session's one `GET` stream; `None` when one is open already. The stream
    /// is released when the guard drops.
    pub(crate) fn claim_stream(self: &Arc<Self>) -> Option<StreamClaim> {
        let mut state = self.state();
        if state.stream_open {
            return None;
        }
        state.stream_open = true;
        Some(StreamClaim(Arc::clone(self)))
    }

    /// The bridged requests waiting for the client's answers.
    pub(crate) fn answers(&self) -> &Answers {
        &self.answers
    }

    /// Resolves once the session has ended.
    pub(crate) async fn ended(&self) {
        let mut ended = self.ended.subscribe();
        let _ = ended.wait_for(|ended| *ended).await;
    }

    fn end(&self) {
        self.ended.send_replace(true);
        self.streams.close();
    }

    fn expired(&self, now: Instant) -> bool {
        let state = self.state();
        !state.stream_open
            && state.running == 0
            && now.duration_since(state.last_used) >= self.limits.idle_timeout
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The claim on a session's `GET` stream, released when dropped; the session's idle time
/// starts again then.
#[derive(Debug)]
pub(crate) struct StreamClaim(Arc<Entry>);

impl Drop for StreamClaim {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.stream_open = false;
        state.last_used = Instant::now();
    }
}

/// A running request of a session, counted until dropped.
#[derive(Debug)]
pub(crate) struct RequestTicket {
    entry: Arc<Entry>,
    /// Held for the endpoint-wide bound; released with the ticket.
    _permit: OwnedSemaphorePermit,
}

impl RequestTicket {
    /// The session it runs in.
    pub(crate) fn entry(&self) -> &Arc<Entry> {
        &self.entry
    }
}

impl Drop for RequestTicket {
    fn drop(&mut self) {
        let mut state = self.entry.state();
        state.running = state.running.saturating_sub(1);
        state.last_used = Instant::now();
        drop(state);
        crate::memory::BURSTS.ended();
    }
}

/// 16 bytes from the operating system's CSPRNG.
///
/// # Panics
///
/// If the operating system has no randomness to give: a guessable session id is no safe
/// way to go on.
fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if let Err(e) = getrandom::fill(&mut bytes) {
        panic!("the operating system gave no randomness for a session id: {e}");
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_core::legacy::LegacyVersion;
    use snodo_core::protocol::ClientCapabilities;

    fn session() -> Session {
        Session::new(LegacyVersion::V2025_11_25, ClientCapabilities::NONE)
    }

    fn pool() -> Arc<BufferPool> {
        Arc::new(BufferPool::new(4096, 1))
    }

    #[tokio::test]
    async fn a_full_table_refuses_until_a_session_ends() {
        let sessions = Sessions::new(SessionLimits::DEFAULT.with_max_sessions(2), 4, pool());
        let a = sessions.open(session(), None).unwrap();
        let _b = sessions.open(session(), None).unwrap();
        assert_eq!(sessions.open(session(), None).err(), Some(TableFull));
        assert!(sessions.end(&a));
        assert!(!sessions.end(&a), "ended once");
        assert!(sessions.open(session(), None).is_ok());
    }

    #[tokio::test]
    async fn ids_are_visible_ascii_and_distinct() {
        let sessions = Sessions::new(SessionLimits::DEFAULT, 4, pool());
        let a = sessions.open(session(), None).unwrap().id();
        let b = sessions.open(session(), None).unwrap().id();
        assert_ne!(a, b);
        assert!(a.as_str().bytes().all(|c| (0x21..=0x7e).contains(&c)));
        assert_eq!(a.as_str().len(), 32);
    }

    #[tokio::test]
    async fn only_the_opening_principal_finds_a_session() {
        let sessions = Sessions::new(SessionLimits::DEFAULT, 4, pool());
        let id = sessions.open(session(), Some("alice")).unwrap().id();
        let header = id.as_str().as_bytes();
        assert!(sessions.find(header, Some("alice")).is_some());
        assert!(sessions.find(header, Some("bob")).is_none());
        assert!(sessions.find(header, None).is_none());
        assert!(sessions.find(b"not-an-id", Some("alice")).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_session_expires_unless_its_stream_is_open() {
        let idle = Duration::from_secs(60);
        let sessions = Sessions::new(SessionLimits::DEFAULT.with_idle_timeout(idle), 4, pool());
        let streaming = sessions.open(session(), None).unwrap();
        let claim = streaming.claim_stream().expect("the first stream");
        assert!(streaming.claim_stream().is_none(), "one stream a session");
        let quiet = sessions.open(session(), None).unwrap().id();
        tokio::time::advance(idle).await;
        assert!(sessions.find(quiet.as_str().as_bytes(), None).is_none());
        let id = streaming.id();
        assert!(sessions.find(id.as_str().as_bytes(), None).is_some());
        drop(claim);
        tokio::time::advance(idle).await;
        assert!(sessions.find(id.as_str().as_bytes(), None).is_none());
        assert_eq!(sessions.len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_with_a_running_request_is_in_use_and_an_expired_one_ends() {
        let idle = Duration::from_secs(60);
        let sessions = Sessions::new(
            SessionLimits::DEFAULT
                .with_idle_timeout(idle)
                .with_max_sessions(2),
            4,
            pool(),
        );
        let busy = sessions.open(session(), None).unwrap();
        let ticket = busy.start_request().unwrap();
        let idle_entry = sessions.open(session(), None).unwrap();
        tokio::time::advance(idle).await;
        // The next initialize sweeps the idle session (and ends it), not the busy one.
        assert!(sessions.open(session(), None).is_ok());
        idle_entry.ended().await;
        assert!(sessions.find(busy.id().as_str().as_bytes(), None).is_some());
        drop(ticket);
    }

    #[tokio::test]
    async fn running_requests_are_bounded_per_session_and_in_all() {
        let sessions = Sessions::new(SessionLimits::DEFAULT.with_max_requests(1), 4, pool());
        let entry = sessions.open(session(), None).unwrap();
        let ticket = entry.start_request().unwrap();
        assert!(entry.start_request().is_err());
        drop(ticket);
        assert!(entry.start_request().is_ok());

        let sessions = Sessions::new(SessionLimits::DEFAULT.with_max_running(1), 4, pool());
        let a = sessions.open(session(), None).unwrap();
        let b = sessions.open(session(), None).unwrap();
        let ticket = a.start_request().unwrap();
        assert!(b.start_request().is_err());
        drop(ticket);
        assert!(b.start_request().is_ok());
    }

    #[tokio::test]
    async fn ending_a_session_is_seen_by_its_streams() {
        let sessions = Sessions::new(SessionLimits::DEFAULT, 4, pool());
        let entry = sessions.open(session(), None).unwrap();
        let stream = entry.streams().open();
        sessions.end(&entry);
        entry.ended().await;
        assert_eq!(entry.streams().next(stream, 0).await, None);
    }
}
