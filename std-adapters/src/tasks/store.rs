//! Where tasks are kept: the [`TaskStore`] trait, shaped for a database as much as for
//! memory (every operation is one atomic step on one task, and returns a future).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use snodo_core::tasks::Status;
use tokio::sync::broadcast;

/// What a store operation returns: a future that may borrow its arguments.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A task as a store keeps it. Payloads are JSON text: the store never reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    /// The unguessable id (128 bits from the OS random source, hex).
    pub task_id: String,
    /// Whose task it is (`None`: anonymous callers). Every request is checked against it.
    pub principal: Option<String>,
    /// Where the task is.
    pub status: Status,
    /// What the status means right now.
    pub status_message: Option<String>,
    /// Unix milliseconds at creation.
    pub created_at_ms: u64,
    /// Unix milliseconds at the last change.
    pub updated_at_ms: u64,
    /// How long after creation the task may be discarded.
    pub ttl_ms: u64,
    /// How often a client should poll.
    pub poll_interval_ms: u64,
    /// The status's payload: the `inputRequests` object while `input_required`, the result
    /// when `completed`, the JSON-RPC error object when `failed`.
    pub payload: Option<String>,
    /// The keys of `inputRequests` still unanswered.
    pub pending: Vec<String>,
    /// The responses given so far to the current input requests, by key (JSON text).
    pub answers: Vec<(String, String)>,
    /// Bumped by every change: a database store compares and sets on it.
    pub version: u64,
}

impl TaskRecord {
    /// Whether the task may be discarded at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.created_at_ms.saturating_add(self.ttl_ms)
    }

    /// Whether `principal` may see it.
    pub fn belongs_to(&self, principal: Option<&str>) -> bool {
        self.principal.as_deref() == principal
    }
}

/// Why a task was not created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreFull {
    /// The server holds as many tasks as it may.
    Server,
    /// The caller holds as many tasks as one principal may.
    Principal,
}

/// Why a store did not do what it was asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// No room for a new task (only from [`TaskStore::create`]).
    Full(StoreFull),
    /// The store cannot be reached now (a database down, or slower than its timeout): the
    /// request is answered with an error to retry, and the store logs why.
    Unavailable,
}

impl From<StoreFull> for StoreError {
    fn from(full: StoreFull) -> Self {
        StoreError::Full(full)
    }
}

/// Responses to a task's input requests: (key, the response as JSON text).
pub type Answers = Vec<(String, String)>;

/// What a store operation resolves to.
pub type StoreResult<T> = Result<T, StoreError>;

/// What `tasks/update` came to for a task that exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// Every pending request is answered now: the work may resume.
    Ready,
    /// Answers were kept (or ignored: unknown, answered or superseded keys), and some
    /// requests are still pending, or the task is not waiting for input.
    Kept,
}

/// Keeps tasks. Each method is one atomic step on one task, committed before its future
/// resolves: a created task resolves for `get` at once, answers are kept before the
/// update is acknowledged. Lookups take the caller's principal and answer `None` for a task
/// that does not exist, expired, or is another principal's, alike.
///
/// A store that several processes share (a database) also says so: its
/// [`changes`](TaskStore::changes) tell this process of tasks changed elsewhere, and the
/// tasks running here hold a [lease](TaskStore::lease_ms) that the host renews, so that a
/// task whose process stopped ends `failed` instead of `working` for ever.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task (`working`, leased to this process when the store leases), or says
    /// why it cannot.
    fn create(&self, task: TaskRecord) -> StoreFuture<'_, StoreResult<()>>;

    /// The task, for `principal`.
    fn get<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<TaskRecord>>>;

    /// Keeps the responses to pending input requests (others are ignored).
    fn submit<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        responses: Vec<(String, String)>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Submitted>>>;

    /// Records a cancellation request: a task not yet finished becomes `cancelled`. The
    /// status after it.
    fn cancel<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Status>>>;

    /// Parks a working task on input requests (`inputRequests` as JSON text, its keys).
    /// `false` when the task is no longer working (cancelled meanwhile).
    fn park<'a>(
        &'a self,
        task_id: &'a str,
        input_requests: String,
        keys: Vec<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>>;

    /// When every pending request of a parked task is answered: the answers, and the task
    /// `working` again. `None` while any is pending, or when the task is not parked.
    fn resume<'a>(
        &'a self,
        task_id: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Answers>>>;

    /// Finishes a task (`completed` with its result, `failed` with its error), with a new
    /// `statusMessage` if `message` is given. `false` when it had finished already (a
    /// cancellation won the race).
    fn finish<'a>(
        &'a self,
        task_id: &'a str,
        status: Status,
        payload: String,
        message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>>;

    /// Sets the `statusMessage` of a task not yet finished. `false` when it has finished.
    fn set_message<'a>(
        &'a self,
        task_id: &'a str,
        message: String,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>>;

    /// Forgets expired tasks; how many.
    fn sweep(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<usize>>;

    /// Whether the store answers now (`true`, the default, for a store in this process's
    /// memory). The host asks a shared store on every round of its upkeep, and its answer is
    /// [`TaskHost::store_reachable`](super::TaskHost::store_reachable), which a readiness
    /// probe reports.
    fn healthy(&self) -> StoreFuture<'_, bool> {
        Box::pin(std::future::ready(true))
    }

    /// How many live tasks it holds, by status, for the metrics (a store that cannot count
    /// them cheaply answers none, the default).
    fn count_by_status(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<(Status, u64)>>> {
        let _ = now_ms;
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    /// The ids of tasks that other processes sharing this store changed, as they change
    /// (`None`, the default: no other process shares it). A receiver that lags has missed
    /// some; the host then polls its running tasks, as it does now and then anyway.
    fn changes(&self) -> Option<broadcast::Receiver<Arc<str>>> {
        None
    }

    /// How long a lease on a running task lasts, in milliseconds (`None`, the default: the
    /// store lives and dies with this process, so no lease is needed). The host renews the
    /// leases of its tasks well within it, and asks the store to end those of others
    /// that ran out.
    fn lease_ms(&self) -> Option<u64> {
        None
    }

    /// Extends to `until_ms` the leases of these tasks, which run in this process.
    fn renew<'a>(
        &'a self,
        task_ids: &'a [Arc<str>],
        until_ms: u64,
    ) -> StoreFuture<'a, StoreResult<()>> {
        let _ = (task_ids, until_ms);
        Box::pin(std::future::ready(Ok(())))
    }

    /// Ends `failed` (-32603, "the server running this task stopped") every unfinished task
    /// whose lease ran out by `now_ms`; their ids.
    fn expire_leases(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<Arc<str>>>> {
        let _ = now_ms;
        Box::pin(std::future::ready(Ok(Vec::new())))
    }
}
