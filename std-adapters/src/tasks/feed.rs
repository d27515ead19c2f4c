//! `notifications/tasks` on a `subscriptions/listen` stream that named tasks in `taskIds`:
//! each change of a watched task (of the stream's own caller) is sent as the `DetailedTask`
//! that `tasks/get` would answer at that moment.
//!
//! Changes reach the streams on a bounded broadcast channel of task ids. A stream that
//! falls behind it is sent every task it watches as it is now, which is always a correct
//! answer; a stream also starts with them, so a task that finished before the stream opened
//! is not missed.

use std::sync::Arc;

use snodo_core::server::Subscription;
use tokio::sync::broadcast::{self, error::RecvError};

use super::{TaskHost, time};
use crate::message::written;

/// The task notifications of one stream.
pub(crate) struct TaskFeed {
    host: TaskHost,
    /// `None` once the host is gone: no change comes any more.
    changes: Option<broadcast::Receiver<Arc<str>>>,
    principal: Option<String>,
}

impl TaskFeed {
    /// The feed of the stream `sub` of `principal`, when it watches tasks.
    pub(crate) fn of(
        host: &TaskHost,
        sub: &Subscription<'_>,
        principal: Option<String>,
    ) -> Option<TaskFeed> {
        sub.filter().task_ids?;
        Some(TaskFeed {
            host: host.clone(),
            changes: Some(host.inner.changes.subscribe()),
            principal,
        })
    }

    /// The notification of every task `sub` watches, as each is now (none for a task that
    /// is unknown, expired or another caller's).
    pub(crate) async fn all(&self, sub: &Subscription<'_>) -> Vec<Vec<u8>> {
        let ids = sub.filter().task_ids.into_iter().flat_map(|ids| ids.iter());
        // Task ids are hex: one that needs unescaping names no task.
        let ids = ids.filter_map(|id| std::str::from_utf8(id.as_str()?.raw()).ok());
        let mut seen: Vec<&str> = Vec::new();
        let mut messages = Vec::new();
        for id in ids {
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            messages.extend(self.one(sub, id).await);
        }
        messages
    }

    /// Waits for the next change of a task `sub` watches: the notifications it is due.
    /// Never resolves once the host is gone.
    pub(crate) async fn next(&mut self, sub: &Subscription<'_>) -> Vec<Vec<u8>> {
        loop {
            let Some(changes) = self.changes.as_mut() else {
                return std::future::pending().await;
            };
            match changes.recv().await {
                Ok(id) if sub.watches_task(&id) => {
                    return self.one(sub, &id).await.into_iter().collect();
                }
                Ok(_) => {}
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "a stream fell behind on tasks; sending them all");
                    return self.all(sub).await;
                }
                Err(RecvError::Closed) => self.changes = None,
            }
        }
    }

    async fn one(&self, sub: &Subscription<'_>, task_id: &str) -> Option<Vec<u8>> {
        let store = self.host.store();
        // A store out of reach sends nothing now; the next change, or a resend, will.
        let record = store
            .get(task_id, self.principal.as_deref(), time::now_ms())
            .await
            .ok()??;
        super::detailed(&record, |task, payload| {
            let fits = std::cell::Cell::new(true);
            let message = written(|w| fits.set(sub.write_task(w, task, payload).is_ok()));
            fits.get().then_some(message)
        })
    }
}

/// The next notifications of `feed`; never, without one.
pub(crate) async fn next_of(feed: &mut Option<TaskFeed>, sub: &Subscription<'_>) -> Vec<Vec<u8>> {
    match feed {
        Some(feed) => feed.next(sub).await,
        None => std::future::pending().await,
    }
}
