//! The host's view of its store: every operation of the store it wraps goes through here, and
//! is timed into the endpoint's metrics (`mcp_task_store_duration_seconds`) once it has some.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use snodo_core::tasks::Status;
use tokio::sync::broadcast;

use super::store::{Answers, StoreFuture, StoreResult, Submitted, TaskRecord, TaskStore};
use crate::http::ops::Metrics;

/// A store, timed.
pub(super) struct Metered {
    store: Arc<dyn TaskStore>,
    metrics: OnceLock<Metrics>,
}

impl Metered {
    pub(super) fn new(store: Arc<dyn TaskStore>) -> Self {
        Metered {
            store,
            metrics: OnceLock::new(),
        }
    }

    /// The metrics to time into, from now on (the first given stay).
    pub(super) fn observe(&self, metrics: Metrics) {
        let _ = self.metrics.set(metrics);
    }

    pub(super) fn metrics(&self) -> Option<&Metrics> {
        self.metrics.get()
    }

    /// `step`, timed when there are metrics (else as it is: no second allocation).
    fn timed<'a, T: 'a>(
        &'a self,
        operation: &'static str,
        step: StoreFuture<'a, T>,
    ) -> StoreFuture<'a, T> {
        let Some(metrics) = self.metrics.get() else {
            return step;
        };
        Box::pin(async move {
            let started = Instant::now();
            let done = step.await;
            metrics.store_took(operation, started.elapsed());
            done
        })
    }
}

impl TaskStore for Metered {
    fn create(&self, task: TaskRecord) -> StoreFuture<'_, StoreResult<()>> {
        self.timed("create", self.store.create(task))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<TaskRecord>>> {
        self.timed("get", self.store.get(task_id, principal, now_ms))
    }

    fn submit<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        responses: Vec<(String, String)>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Submitted>>> {
        let step = self.store.submit(task_id, principal, responses, now_ms);
        self.timed("submit", step)
    }

    fn cancel<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Status>>> {
        self.timed("cancel", self.store.cancel(task_id, principal, now_ms))
    }

    fn park<'a>(
        &'a self,
        task_id: &'a str,
        input_requests: String,
        keys: Vec<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let step = self.store.park(task_id, input_requests, keys, now_ms);
        self.timed("park", step)
    }

    fn resume<'a>(
        &'a self,
        task_id: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Answers>>> {
        self.timed("resume", self.store.resume(task_id, now_ms))
    }

    fn finish<'a>(
        &'a self,
        task_id: &'a str,
        status: Status,
        payload: String,
        message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let step = self.store.finish(task_id, status, payload, message, now_ms);
        self.timed("finish", step)
    }

    fn set_message<'a>(
        &'a self,
        task_id: &'a str,
        message: String,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let step = self.store.set_message(task_id, message, now_ms);
        self.timed("set_message", step)
    }

    fn sweep(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<usize>> {
        self.timed("sweep", self.store.sweep(now_ms))
    }

    fn healthy(&self) -> StoreFuture<'_, bool> {
        self.timed("healthy", self.store.healthy())
    }

    fn count_by_status(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<(Status, u64)>>> {
        self.timed("count_by_status", self.store.count_by_status(now_ms))
    }

    fn changes(&self) -> Option<broadcast::Receiver<Arc<str>>> {
        self.store.changes()
    }

    fn lease_ms(&self) -> Option<u64> {
        self.store.lease_ms()
    }

    fn renew<'a>(
        &'a self,
        task_ids: &'a [Arc<str>],
        until_ms: u64,
    ) -> StoreFuture<'a, StoreResult<()>> {
        self.timed("renew", self.store.renew(task_ids, until_ms))
    }

    fn expire_leases(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<Arc<str>>>> {
        self.timed("expire_leases", self.store.expire_leases(now_ms))
    }
}
