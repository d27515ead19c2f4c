//! What a task's work sees of its task while it runs ([`TaskContext`]): it tells the client
//! how far it is (`statusMessage`) and learns that the client cancelled, so it can stop
//! cleanly before the host's grace runs out.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::watch;

use super::{TaskHost, time};

tokio::task_local! {
    static CURRENT: TaskContext;
}

/// The task a handler's call runs as, while it runs as one: found with
/// [`TaskContext::current`] (or [`Cx::task`](crate::typed::Cx::task) on the typed layer).
///
/// Cancellation is cooperative: `tasks/cancel` records the task `cancelled` at once and
/// wakes [`TaskContext::cancelled`]; the work may then end as it sees fit (whatever it
/// answers is dropped). After [`TaskLimits::cancel_grace_ms`](super::TaskLimits) the host
/// drops the work's future wherever it is.
///
/// ```
/// use snodo_std::tasks::TaskContext;
///
/// async fn measure() -> Result<f64, &'static str> {
///     let task = TaskContext::current();
///     for step in 0..3 {
///         if let Some(task) = &task {
///             task.status(&format!("step {} of 3", step + 1)).await;
///             if task.is_cancelled() {
///                 return Err("cancelled");
///             }
///         }
///         // ... one step of the work ...
///     }
///     Ok(0.5)
/// }
/// ```
#[derive(Clone)]
pub struct TaskContext {
    host: TaskHost,
    task_id: Arc<str>,
    cancel: watch::Receiver<bool>,
}

impl std::fmt::Debug for TaskContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskContext")
            .field("task_id", &self.task_id)
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl TaskContext {
    pub(super) fn new(host: TaskHost, task_id: Arc<str>, cancel: watch::Receiver<bool>) -> Self {
        TaskContext {
            host,
            task_id,
            cancel,
        }
    }

    /// The task this code runs as, when it runs as a task's work (`None` in a request, or
    /// outside any handler).
    pub fn current() -> Option<TaskContext> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// Runs `work` with `self` as the current task.
    pub(super) fn scope<F: Future>(self, work: F) -> impl Future<Output = F::Output> {
        CURRENT.scope(self, work)
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// Sets the task's `statusMessage`, which the next `tasks/get` shows (cut at a character
    /// boundary to [`TaskLimits::max_status_bytes`](super::TaskLimits)). `false` when the
    /// task has finished or was cancelled, or the store is out of reach, and the message
    /// was not kept.
    pub async fn status(&self, message: &str) -> bool {
        let max = self.host.limits().max_status_bytes;
        let mut end = message.len().min(max);
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        let store = self.host.store();
        let kept = store.set_message(&self.task_id, message[..end].to_owned(), time::now_ms());
        // A store out of reach keeps no message: the work goes on, and says so in the log.
        let kept = kept.await.unwrap_or(false);
        if kept {
            self.host.changed(&self.task_id);
        }
        kept
    }

    /// Whether the client has cancelled the task.
    pub fn is_cancelled(&self) -> bool {
        *self.cancel.borrow()
    }

    /// Resolves when the client cancels the task (at once if it has); never otherwise.
    pub async fn cancelled(&self) {
        let mut cancel = self.cancel.clone();
        if cancel.wait_for(|cancelled| *cancelled).await.is_err() {
            // The host forgot the task: its work is being dropped, never cancelled.
            std::future::pending::<()>().await;
        }
    }
}
