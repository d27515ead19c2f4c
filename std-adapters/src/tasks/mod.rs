//! The Tasks extension (`io.modelcontextprotocol/tasks`) on hosts: a [`TaskHost`] creates a
//! task when a tool's handler turns its call into one
//! ([`ToolReply::into_task`](snodo_core::server::ToolReply::into_task)), runs the request
//! again in the background as the task's work, and answers `tasks/get`, `tasks/update` and
//! `tasks/cancel` from a [`TaskStore`] (by default the bounded [`MemoryTaskStore`]).
//!
//! The work is the tool's own MRTR handler: when it answers `input_required`, the task
//! parks with those input requests (each key made unique over the task's life), and when
//! `tasks/update` has answered them all, the request runs again with the answers and the
//! handler's `requestState`, as a client's retry would. So a handler written once serves a
//! client that waits in its request and one that polls a task. While it runs as a task, the
//! handler finds its [`TaskContext`]: it sets the task's `statusMessage` and learns of a
//! cancellation.

mod context;
mod feed;
mod memory;
mod metered;
#[cfg(feature = "postgres")]
mod postgres;
mod shared;
mod store;
mod time;
mod transition;
mod work;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use snodo_core::json::{self, Limits, Writer};
use snodo_core::rpc::{self, Id};
use snodo_core::server::{Accepted, Call, Handled, Round, Server, TaskSupport};
use snodo_core::tasks::{self as wire, Payload, Status, Task, TaskMethod, TaskRequest};
use tokio::sync::{Notify, Semaphore, broadcast, watch};

use crate::buffers::BufferPool;
use crate::handler::{AppRunner, AsyncHandler};
use crate::message::written;

pub use context::TaskContext;
pub(crate) use feed::{TaskFeed, next_of};
pub use memory::MemoryTaskStore;
#[cfg(feature = "postgres")]
pub use postgres::{DATABASE_URL_ENV, DATABASE_URL_FILE_ENV, PostgresConfig, PostgresTaskStore};
pub use store::{
    Answers, StoreError, StoreFull, StoreFuture, StoreResult, Submitted, TaskRecord, TaskStore,
};

/// The bounds of a [`TaskHost`] (see the limits table of `docs/deploy.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks kept at once, finished ones included (default 1 024).
    pub max_tasks: usize,
    /// Tasks one principal may hold at once (default 64).
    pub max_per_principal: usize,
    /// Tasks whose work runs (or waits for input) in this process at once (default 64).
    /// Each round of a running task's work holds a reply buffer of `max_result_bytes`.
    pub max_running: usize,
    /// How long a task stays after its creation, in milliseconds (default 10 minutes).
    pub ttl_ms: u64,
    /// The `pollIntervalMs` a client is told (default 500).
    pub poll_interval_ms: u64,
    /// Bytes of one `tasks/update`'s `inputResponses` (default 64 KiB).
    pub max_input_bytes: usize,
    /// Rounds of input one task may ask for (default 16).
    pub max_rounds: u32,
    /// Bytes of a task's result or error, and of one round's reply (default 1 MiB).
    pub max_result_bytes: usize,
    /// Bytes of a `statusMessage` a handler sets (default 1 KiB; longer ones are cut).
    pub max_status_bytes: usize,
    /// How long a cancelled task's work may go on before the host drops it, in
    /// milliseconds (default 5 000): the time it has to see the cancellation and stop.
    pub cancel_grace_ms: u64,
}

impl TaskLimits {
    /// The defaults (as a constant, for `const` configuration).
    pub const DEFAULT: TaskLimits = TaskLimits {
        max_tasks: 1024,
        max_per_principal: 64,
        max_running: 64,
        ttl_ms: 600_000,
        poll_interval_ms: 500,
        max_input_bytes: 64 * 1024,
        max_rounds: 16,
        max_result_bytes: 1024 * 1024,
        max_status_bytes: 1024,
        cancel_grace_ms: 5_000,
    };
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits::DEFAULT
    }
}

/// Creates, runs and answers tasks for one server (clones share them).
#[derive(Clone)]
pub struct TaskHost {
    inner: Arc<HostInner>,
}

struct HostInner {
    /// The store, timed into the endpoint's metrics once it has some.
    store: metered::Metered,
    limits: TaskLimits,
    /// The work of each task running in this process: woken when its input is answered,
    /// told when it is cancelled, and aborted when it outlives the grace that follows.
    running: Mutex<HashMap<String, Running>>,
    /// The id of each task that changed, for `notifications/tasks` streams.
    changes: broadcast::Sender<Arc<str>>,
    /// When the store last forgot its expired tasks (Unix milliseconds).
    swept_at_ms: AtomicU64,
    /// One permit per task whose work may run at once (`max_running`).
    slots: Arc<Semaphore>,
    /// How often the work of a task parked here looks at a store other processes share,
    /// and the upkeep runs (`None`: the store is this process's alone).
    poll_every: Option<Duration>,
    /// Set once the upkeep of a shared store has started.
    upkeep: std::sync::OnceLock<()>,
    /// The reply buffers of task rounds (`max_result_bytes` each), lent for a round.
    buffers: BufferPool,
    /// Whether the store answered the last upkeep round's health check.
    reachable: std::sync::atomic::AtomicBool,
    /// Notified whenever a task's work ends here.
    work_ended: Notify,
}

/// Idle round buffers a host keeps for the next rounds (each `max_result_bytes`).
const KEEP_IDLE_BUFFERS: usize = 8;

/// What a task whose server stopped ends with (-32603): the lease ran out, or the server
/// drained before the task finished.
pub(crate) const STOPPED: &str = "the server running this task stopped";

/// What a request that needs the store out of reach is answered (-32603).
const STORE_UNAVAILABLE: &str = "The task store is unavailable; retry later";

/// How often the store is swept of expired tasks, at most (on the next task created).
const SWEEP_EVERY_MS: u64 = 60_000;

/// Task changes a `subscriptions/listen` stream may fall behind by before it is sent every
/// task it watches.
const CHANGES_CAPACITY: usize = 256;

struct Running {
    principal: Option<String>,
    wake: Arc<Notify>,
    cancel: watch::Sender<bool>,
    abort: tokio::task::AbortHandle,
}

impl std::fmt::Debug for TaskHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHost")
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

impl Default for TaskHost {
    fn default() -> Self {
        TaskHost::in_memory(TaskLimits::default())
    }
}

/// Why a call that became a task could not be created as one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotCreated {
    /// The store holds as many as it may.
    Full(StoreFull),
    /// As many tasks run in this process as may (`max_running`).
    Busy,
    /// The store cannot be reached now.
    Unavailable,
    /// The OS random source failed: no unguessable id can be made.
    NoRandom,
    /// The bytes given hold no request (a host's mistake).
    NotARequest,
}

impl TaskHost {
    /// Tasks kept in `store`, within `limits`.
    pub fn new(store: Arc<dyn TaskStore>, limits: TaskLimits) -> Self {
        let shared = store.changes().is_some() || store.lease_ms().is_some();
        let poll_every =
            shared.then(|| shared::period(store.lease_ms()).unwrap_or(Duration::from_secs(1)));
        TaskHost {
            inner: Arc::new(HostInner {
                store: metered::Metered::new(store),
                limits,
                running: Mutex::new(HashMap::new()),
                changes: broadcast::channel(CHANGES_CAPACITY).0,
                swept_at_ms: AtomicU64::new(time::now_ms()),
                slots: Arc::new(Semaphore::new(
                    limits.max_running.min(Semaphore::MAX_PERMITS),
                )),
                poll_every,
                upkeep: std::sync::OnceLock::new(),
                buffers: BufferPool::new(limits.max_result_bytes, KEEP_IDLE_BUFFERS),
                reachable: std::sync::atomic::AtomicBool::new(true),
                work_ended: Notify::new(),
            }),
        }
    }

    /// Tasks in a [`MemoryTaskStore`] bounded by `limits`.
    pub fn in_memory(limits: TaskLimits) -> Self {
        let store = MemoryTaskStore::new(limits.max_tasks, limits.max_per_principal);
        TaskHost::new(Arc::new(store), limits)
    }

    /// Its bounds.
    pub fn limits(&self) -> &TaskLimits {
        &self.inner.limits
    }

    fn store(&self) -> &dyn TaskStore {
        &self.inner.store
    }

    /// Tells the streams that watch `task_id` that it changed.
    fn changed(&self, task_id: &str) {
        // No stream listening is not an error.
        let _ = self.inner.changes.send(task_id.into());
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.inner
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates the task for `request` (whose handler turned it into one) and starts its
    /// work on `server`; the `CreateTaskResult` to answer, written once the task is stored.
    pub(crate) async fn start<A: AsyncHandler + 'static>(
        &self,
        server: Arc<Server<'static, A>>,
        request: Bytes,
        principal: Option<String>,
    ) -> Result<Vec<u8>, NotCreated> {
        self.keep_up();
        let limits = self.inner.limits;
        let id = match rpc::parse(&request, &server.config().limits) {
            Ok(rpc::Incoming::Request(r)) => r.id,
            _ => return Err(NotCreated::NotARequest),
        };
        let now = time::now_ms();
        // Held by the work until it ends: at most `max_running` at once, exactly.
        let slot = Arc::clone(&self.inner.slots)
            .try_acquire_owned()
            .map_err(|_| NotCreated::Busy)?;
        self.sweep_now_and_then(now).await;
        let record = TaskRecord {
            task_id: new_task_id().ok_or(NotCreated::NoRandom)?,
            principal: principal.clone(),
            status: Status::Working,
            status_message: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms: limits.ttl_ms,
            poll_interval_ms: limits.poll_interval_ms,
            payload: None,
            pending: Vec::new(),
            answers: Vec::new(),
            version: 0,
        };
        self.inner
            .store
            .create(record.clone())
            .await
            .map_err(|e| match e {
                StoreError::Full(full) => NotCreated::Full(full),
                StoreError::Unavailable => NotCreated::Unavailable,
            })?;
        let created = written(|w| {
            let timestamps = Timestamps::of(&record);
            wire::write_created(w, id, &timestamps.task(&record));
        });
        let wake = Arc::new(Notify::new());
        let (cancel, cancelled) = watch::channel(false);
        let task_id: Arc<str> = record.task_id.as_str().into();
        let work = work::Work {
            host: self.clone(),
            server,
            context: TaskContext::new(self.clone(), Arc::clone(&task_id), cancelled),
            task_id: Arc::clone(&task_id),
            principal,
            wake: Arc::clone(&wake),
            _ending: work::Ending {
                host: self.clone(),
                task_id,
                slot: Some(slot),
            },
        };
        // Registered before it can finish: its end removes it.
        let mut running = self.running();
        let handle = tokio::spawn(work.run(request));
        running.insert(
            record.task_id,
            Running {
                principal: record.principal.clone(),
                wake,
                cancel,
                abort: handle.abort_handle(),
            },
        );
        Ok(created)
    }

    /// Answers a task request of `principal` (past the extension's gate).
    pub(crate) async fn answer(
        &self,
        id: Id<'_>,
        request: TaskRequest<'_>,
        principal: Option<&str>,
    ) -> Vec<u8> {
        self.keep_up();
        let store = &self.inner.store;
        let now = time::now_ms();
        let unknown = || written(|w| wire::write_unknown_task(w, Some(id)));
        // A task id is hex: one that needs unescaping names no task.
        let Ok(task_id) = std::str::from_utf8(request.task_id.raw()) else {
            return unknown();
        };
        let unavailable = || {
            written(|w| {
                let code = rpc::ErrorCode::INTERNAL_ERROR;
                rpc::write_error(w, Some(id), code, STORE_UNAVAILABLE, None);
            })
        };
        let known = match request.method {
            TaskMethod::Get => {
                return match store.get(task_id, principal, now).await {
                    Ok(Some(task)) => got(id, &task),
                    Ok(None) => unknown(),
                    Err(_) => unavailable(),
                };
            }
            TaskMethod::Update => {
                let responses = request.input_responses.map(|r| {
                    r.iter()
                        .map(|(key, value)| {
                            let key = String::from_utf8_lossy(key.raw()).into_owned();
                            (key, String::from_utf8_lossy(value.raw()).into_owned())
                        })
                        .collect::<Vec<_>>()
                });
                let responses = responses.unwrap_or_default();
                let bytes: usize = responses.iter().map(|(k, v)| k.len() + v.len()).sum();
                if bytes > self.inner.limits.max_input_bytes {
                    return written(|w| {
                        let code = rpc::ErrorCode::INVALID_PARAMS;
                        rpc::write_error(w, Some(id), code, "inputResponses too large", None);
                    });
                }
                match store.submit(task_id, principal, responses, now).await {
                    Ok(Some(Submitted::Ready)) => {
                        if let Some(running) = self.running().get(task_id) {
                            running.wake.notify_one();
                        }
                        self.changed(task_id);
                        true
                    }
                    Ok(Some(Submitted::Kept)) => {
                        self.changed(task_id);
                        true
                    }
                    Ok(None) => false,
                    Err(_) => return unavailable(),
                }
            }
            TaskMethod::Cancel => match store.cancel(task_id, principal, now).await {
                Ok(Some(_)) => {
                    self.stop(task_id);
                    self.changed(task_id);
                    true
                }
                Ok(None) => false,
                Err(_) => return unavailable(),
            },
        };
        if known {
            written(|w| wire::write_acknowledged(w, id))
        } else {
            unknown()
        }
    }

    /// The answer, in its own request, to the call in `body` whose task was not created: an
    /// optional task tool runs there (its task offer withdrawn), a required one is refused.
    pub(crate) async fn in_request<A: AsyncHandler>(
        &self,
        server: &Server<'_, A>,
        body: &[u8],
        round: Round<'_>,
        full: NotCreated,
    ) -> Vec<u8> {
        let refuse = |id: Option<Id<'_>>| {
            let why = match full {
                NotCreated::Full(StoreFull::Principal) => "This caller holds too many tasks",
                NotCreated::Full(StoreFull::Server) => "The server holds too many tasks",
                NotCreated::Busy => "The server runs too many tasks; retry later",
                NotCreated::Unavailable => STORE_UNAVAILABLE,
                NotCreated::NoRandom | NotCreated::NotARequest => "The server cannot create tasks",
            };
            written(|w| rpc::write_error(w, id, rpc::ErrorCode::INTERNAL_ERROR, why, None))
        };
        let mut out = self.inner.buffers.take();
        let answer = match server.accept(body, round, &mut out) {
            Ok(Accepted::Call(mut call)) if !requires_task(&call) => {
                call.decline_task();
                let mut runner = AppRunner {
                    app: server.app(),
                    notifier: None,
                };
                match server.drive_call(call, &mut out, &mut runner).await {
                    Some(Ok(Handled::Reply(len))) => out.get(..len).unwrap_or_default().to_vec(),
                    _ => written(|w| server.write_too_large(body, "The reply does not fit", w)),
                }
            }
            Ok(Accepted::Call(call)) => refuse(Some(call.context().id())),
            _ => refuse(None),
        };
        self.inner.buffers.give(out);
        answer
    }

    /// Tells the work of the cancelled `task_id` (once), and drops it when the grace ends.
    fn stop(&self, task_id: &str) {
        let running = self.running();
        let Some(work) = running.get(task_id) else {
            return;
        };
        if work.cancel.send_replace(true) {
            return;
        }
        // A task parked on input stops waiting.
        work.wake.notify_one();
        let abort = work.abort.clone();
        let grace = Duration::from_millis(self.inner.limits.cancel_grace_ms);
        tokio::spawn(async move {
            tokio::time::sleep(grace).await;
            abort.abort();
        });
    }

    /// Forgets expired tasks when the last sweep is [`SWEEP_EVERY_MS`] old, so that a store
    /// which does not forget them on its own (a database) is swept as tasks are created.
    async fn sweep_now_and_then(&self, now: u64) {
        let last = self.inner.swept_at_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) < SWEEP_EVERY_MS {
            return;
        }
        let swept = &self.inner.swept_at_ms;
        // One caller sweeps; the others go on.
        if swept
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            match self.inner.store.sweep(now).await {
                Ok(forgotten) => tracing::debug!(forgotten, "expired tasks swept"),
                Err(_) => tracing::debug!("expired tasks not swept: the store is out of reach"),
            }
        }
    }

    /// Forgets the work of `task_id` (it ended, or was dropped).
    fn ended(&self, task_id: &str) {
        self.running().remove(task_id);
        self.inner.work_ended.notify_waiters();
    }

    /// A draining server's last step, once its listener takes no more requests: with a store
    /// other servers share, waits up to `grace` for the tasks running here to finish (one
    /// parked on input may still be answered through another server), then ends those left
    /// `failed` ("the server running this task stopped") and drops their work, so that no
    /// client waits for their leases to run out. How many it ended so. With a store of this
    /// process alone it returns at once: the tasks go with the process.
    pub async fn wind_down(&self, grace: Duration) -> usize {
        if self.inner.poll_every.is_none() {
            return 0;
        }
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            // Registered before the check, so an end between the two is not missed.
            let ended = self.inner.work_ended.notified();
            if self.running_work() == 0 {
                return 0;
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                break;
            }
        }
        let left: Vec<(String, tokio::task::AbortHandle)> = self
            .running()
            .iter()
            .map(|(id, work)| (id.clone(), work.abort.clone()))
            .collect();
        let error = serde_json::json!({"code": -32603, "message": STOPPED}).to_string();
        let mut ended = 0;
        for (task_id, abort) in left {
            abort.abort();
            let now = time::now_ms();
            let message = Some(STOPPED.to_owned());
            let store = self.store();
            let finished = store.finish(&task_id, Status::Failed, error.clone(), message, now);
            if matches!(finished.await, Ok(true)) {
                ended += 1;
                self.changed(&task_id);
            }
        }
        // The aborted work goes as soon as the runtime drops it (a second at most).
        let gone = tokio::time::Instant::now() + Duration::from_secs(1);
        loop {
            let dropped = self.inner.work_ended.notified();
            if self.running_work() == 0 || tokio::time::timeout_at(gone, dropped).await.is_err() {
                break;
            }
        }
        tracing::info!(ended, "tasks running past the drain's grace ended failed");
        ended
    }

    /// Whether the task store answered the last look at it: always, for a store of this
    /// process; for a shared one, its [`TaskStore::healthy`] on the host's last round of
    /// upkeep (at most a second ago, once the host has served a task request). A readiness
    /// probe reports it: `Health::require(move || host.store_reachable())`.
    pub fn store_reachable(&self) -> bool {
        self.inner.reachable.load(Ordering::Relaxed)
    }

    /// Times the store's operations, counts its tasks by status (every second) and its lease
    /// expiries into `metrics` from now on (the first metrics given stay).
    pub(crate) fn observe(&self, metrics: crate::http::ops::Metrics) {
        self.inner.store.observe(metrics);
    }

    /// How many tasks' work runs in this process now.
    pub fn running_work(&self) -> usize {
        self.running().len()
    }
}

/// Whether `call` is of a tool that runs only as a task.
pub(crate) fn requires_task(call: &Call<'_>) -> bool {
    matches!(call, Call::Tool(c) if c.tool().task_support == TaskSupport::Required)
}

/// A task's timestamps, formatted.
struct Timestamps {
    created: String,
    updated: String,
}

impl Timestamps {
    fn of(record: &TaskRecord) -> Self {
        Timestamps {
            created: time::iso8601(record.created_at_ms),
            updated: time::iso8601(record.updated_at_ms),
        }
    }

    fn task<'a>(&'a self, record: &'a TaskRecord) -> Task<'a> {
        Task {
            task_id: &record.task_id,
            status: record.status,
            status_message: record.status_message.as_deref(),
            created_at: &self.created,
            last_updated_at: &self.updated,
            ttl_ms: Some(record.ttl_ms),
            poll_interval_ms: Some(record.poll_interval_ms),
        }
    }
}

/// The `tasks/get` response for `record`.
fn got(id: Id<'_>, record: &TaskRecord) -> Vec<u8> {
    detailed(record, |task, payload| {
        written(|w: &mut Writer<'_>| {
            if wire::write_got(w, id, task, payload).is_err() {
                wire::write_unknown_task(w, Some(id));
            }
        })
    })
}

/// What `write` makes of `record` as a `DetailedTask`: the task and its status's payload.
fn detailed<T>(record: &TaskRecord, write: impl FnOnce(&Task<'_>, Payload<'_>) -> T) -> T {
    let timestamps = Timestamps::of(record);
    let task = timestamps.task(record);
    // Payloads were written by this host as JSON; one that does not read (a foreign store's
    // corruption) is answered as the task without it, where its status allows.
    let limits = Limits::default();
    let pending = (record.status == Status::InputRequired)
        .then(|| {
            record
                .payload
                .as_deref()
                .map(|p| still_pending(p, &record.pending))
        })
        .flatten();
    let text = pending.as_deref().or(record.payload.as_deref());
    let value = text.and_then(|p| json::parse(p.as_bytes(), &limits).ok());
    let payload = match (record.status, value) {
        (Status::InputRequired, Some(v)) => Payload::InputRequests(v),
        (Status::Completed, Some(v)) => Payload::Result(v),
        (Status::Failed, Some(v)) => Payload::Error(v),
        _ => Payload::None,
    };
    write(&task, payload)
}

/// Of the input requests `requests` (a JSON object), those whose keys are `pending`: an
/// answered request is gone from the next `tasks/get`.
fn still_pending(requests: &str, pending: &[String]) -> String {
    let Ok(serde_json::Value::Object(mut requests)) = serde_json::from_str(requests) else {
        return requests.to_owned();
    };
    requests.retain(|key, _| pending.contains(key));
    serde_json::Value::Object(requests).to_string()
}

/// A new task id: 128 bits from the OS random source, as 32 hex digits (`None` when the
/// source fails: no id would be unguessable).
fn new_task_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
