//! What a host does when other processes share its store (a database): it follows the
//! changes they make (an update answering a task parked here, a cancellation of a task
//! running here), looks at its running tasks now and then in case a change was missed,
//! renews the leases of its tasks, and ends `failed` the tasks of processes that stopped
//! renewing theirs.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use snodo_core::tasks::Status;
use tokio::sync::broadcast::error::RecvError;

use super::{TaskHost, time};

/// How often the metrics' count of tasks by status is taken.
const COUNT_EVERY: Duration = Duration::from_secs(1);

/// The host's round of upkeep: every third of the lease (at most every second).
pub(super) fn period(lease_ms: Option<u64>) -> Option<Duration> {
    lease_ms.map(|lease| Duration::from_millis((lease / 3).clamp(100, 1_000)))
}

impl TaskHost {
    /// Starts the upkeep once, from inside the runtime: the count of tasks for the metrics,
    /// when there are metrics, and the rounds of a shared store.
    pub(super) fn keep_up(&self) {
        if self.inner.upkeep.set(()).is_err() {
            return;
        }
        // The loops hold the host weakly: they end when the last clone of it is dropped.
        let weak = Arc::downgrade(&self.inner);
        if self.inner.store.metrics().is_some() {
            let weak = weak.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(COUNT_EVERY);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    let Some(inner) = weak.upgrade() else { return };
                    TaskHost { inner }.count().await;
                }
            });
        }
        let Some(every) = self.inner.poll_every else {
            return;
        };
        let changes = self.store().changes();
        if let Some(mut changes) = changes {
            let weak = weak.clone();
            tokio::spawn(async move {
                loop {
                    let changed = changes.recv().await;
                    let Some(inner) = weak.upgrade() else { return };
                    let host = TaskHost { inner };
                    match changed {
                        Ok(task_id) => host.changed_elsewhere(&task_id).await,
                        // The upkeep round looks at every running task anyway.
                        Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => return,
                    }
                }
            });
        }
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                TaskHost { inner }.upkeep().await;
            }
        });
    }

    /// Sets the metrics' count of live tasks by status.
    async fn count(&self) {
        let Some(metrics) = self.inner.store.metrics() else {
            return;
        };
        let Ok(counts) = self.store().count_by_status(time::now_ms()).await else {
            return;
        };
        for status in Status::ALL {
            let found = counts.iter().find(|(s, _)| *s == status);
            metrics.set_tasks(status.name(), found.map_or(0, |(_, count)| *count));
        }
    }

    /// Another process changed `task_id`: this one's streams are told, and its work, if it
    /// runs here, looks at the task again.
    async fn changed_elsewhere(&self, task_id: &str) {
        self.changed(task_id);
        self.look_again(task_id).await;
    }

    /// Wakes the work of `task_id` if it runs here (a parked one looks for its answers), and
    /// stops it if the task was cancelled.
    async fn look_again(&self, task_id: &str) {
        let principal = {
            let running = self.running();
            let Some(work) = running.get(task_id) else {
                return;
            };
            work.wake.notify_one();
            work.principal.clone()
        };
        let now = time::now_ms();
        let task = self.store().get(task_id, principal.as_deref(), now).await;
        if matches!(task, Ok(Some(task)) if task.status == Status::Cancelled) {
            self.stop(task_id);
        }
    }

    /// One round: renew this process's leases, end those that ran out elsewhere, and look
    /// at every task running here.
    async fn upkeep(&self) {
        let ids: Vec<Arc<str>> = self.running().keys().map(|id| id.as_str().into()).collect();
        let store = self.store();
        let healthy = store.healthy().await;
        if healthy != self.inner.reachable.swap(healthy, Ordering::Relaxed) {
            tracing::info!(reachable = healthy, "the task store's reachability changed");
        }
        let now = time::now_ms();
        if let Some(lease) = store.lease_ms() {
            let until = now.saturating_add(lease);
            if store.renew(&ids, until).await.is_err() {
                tracing::debug!("leases not renewed: the task store is out of reach");
            }
            match store.expire_leases(now).await {
                Ok(expired) => {
                    if let Some(metrics) = self.inner.store.metrics() {
                        metrics.leases_expired(expired.len());
                    }
                    for task_id in expired {
                        tracing::info!(task = %task_id, "a task's lease ran out: failed");
                        self.changed(&task_id);
                    }
                }
                Err(_) => tracing::debug!("leases not checked: the task store is out of reach"),
            }
        }
        for task_id in ids {
            self.look_again(&task_id).await;
        }
    }
}
