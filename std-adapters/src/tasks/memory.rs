//! The default [`TaskStore`]: a bounded map in this process's memory.

use std::collections::HashMap;
use std::sync::Mutex;

use snodo_core::tasks::Status;

use super::store::{StoreFull, StoreFuture, Submitted, TaskRecord, TaskStore};

/// Tasks in memory, at most `max_tasks` of them and `max_per_principal` of one caller
/// (expired tasks are forgotten first). Gone when the process ends.
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    max_tasks: usize,
    max_per_principal: usize,
}

impl MemoryTaskStore {
    /// An empty store with these bounds.
    pub fn new(max_tasks: usize, max_per_principal: usize) -> Self {
        MemoryTaskStore {
            tasks: Mutex::new(HashMap::new()),
            max_tasks,
            max_per_principal,
        }
    }

    /// How many tasks it holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        // A panic while holding the lock cannot leave a record half-written: each change
        // is one assignment.
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Applies `change` to the live task `task_id` of `principal`.
    fn with<T>(
        &self,
        task_id: &str,
        principal: Option<Option<&str>>,
        now_ms: u64,
        change: impl FnOnce(&mut TaskRecord) -> T,
    ) -> Option<T> {
        let mut tasks = self.lock();
        let task = tasks.get_mut(task_id)?;
        if task.expired(now_ms) || principal.is_some_and(|p| !task.belongs_to(p)) {
            return None;
        }
        Some(change(task))
    }
}

/// Moves `task` to `status` at `now_ms`, if the diagram allows it.
fn transition(task: &mut TaskRecord, status: Status, now_ms: u64) -> bool {
    if !task.status.may_become(status) {
        return false;
    }
    task.status = status;
    task.updated_at_ms = now_ms;
    task.version += 1;
    true
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: TaskRecord) -> StoreFuture<'_, Result<(), StoreFull>> {
        let mut tasks = self.lock();
        let now = task.created_at_ms;
        tasks.retain(|_, t| !t.expired(now));
        let created = if tasks.len() >= self.max_tasks {
            Err(StoreFull::Server)
        } else if tasks
            .values()
            .filter(|t| t.principal == task.principal)
            .count()
            >= self.max_per_principal
        {
            Err(StoreFull::Principal)
        } else {
            tasks.insert(task.task_id.clone(), task);
            Ok(())
        };
        Box::pin(std::future::ready(created))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let got = self.with(task_id, Some(principal), now_ms, |t| t.clone());
        Box::pin(std::future::ready(got))
    }

    fn submit<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        responses: Vec<(String, String)>,
        now_ms: u64,
    ) -> StoreFuture<'a, Option<Submitted>> {
        let submitted = self.with(task_id, Some(principal), now_ms, |task| {
            if task.status != Status::InputRequired {
                return Submitted::Kept;
            }
            for (key, response) in responses {
                if let Some(at) = task.pending.iter().position(|k| *k == key) {
                    task.pending.swap_remove(at);
                    task.answers.push((key, response));
                }
            }
            task.updated_at_ms = now_ms;
            task.version += 1;
            if task.pending.is_empty() {
                Submitted::Ready
            } else {
                Submitted::Kept
            }
        });
        Box::pin(std::future::ready(submitted))
    }

    fn cancel<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, Option<Status>> {
        let status = self.with(task_id, Some(principal), now_ms, |task| {
            if transition(task, Status::Cancelled, now_ms) {
                task.payload = None;
                task.pending.clear();
                task.answers.clear();
            }
            task.status
        });
        Box::pin(std::future::ready(status))
    }

    fn park<'a>(
        &'a self,
        task_id: &'a str,
        input_requests: String,
        keys: Vec<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        let parked = self.with(task_id, None, now_ms, |task| {
            let parked =
                task.status == Status::Working && transition(task, Status::InputRequired, now_ms);
            if parked {
                task.payload = Some(input_requests);
                task.pending = keys;
                task.answers.clear();
            }
            parked
        });
        Box::pin(std::future::ready(parked.unwrap_or(false)))
    }

    fn resume<'a>(
        &'a self,
        task_id: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, Option<Vec<(String, String)>>> {
        let resumed = self.with(task_id, None, now_ms, |task| {
            let ready = task.status == Status::InputRequired && task.pending.is_empty();
            if ready && transition(task, Status::Working, now_ms) {
                task.payload = None;
                Some(std::mem::take(&mut task.answers))
            } else {
                None
            }
        });
        Box::pin(std::future::ready(resumed.flatten()))
    }

    fn finish<'a>(
        &'a self,
        task_id: &'a str,
        status: Status,
        payload: String,
        message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        let finished = self.with(task_id, None, now_ms, |task| {
            let finished = status.is_terminal() && transition(task, status, now_ms);
            if finished {
                task.payload = Some(payload);
                task.pending.clear();
                task.answers.clear();
                if message.is_some() {
                    task.status_message = message;
                }
            }
            finished
        });
        Box::pin(std::future::ready(finished.unwrap_or(false)))
    }

    fn set_message<'a>(
        &'a self,
        task_id: &'a str,
        message: String,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        let kept = self.with(task_id, None, now_ms, |task| {
            let live = !task.status.is_terminal();
            if live {
                task.status_message = Some(message);
                task.updated_at_ms = now_ms;
                task.version += 1;
            }
            live
        });
        Box::pin(std::future::ready(kept.unwrap_or(false)))
    }

    fn sweep(&self, now_ms: u64) -> StoreFuture<'_, usize> {
        let mut tasks = self.lock();
        let before = tasks.len();
        tasks.retain(|_, t| !t.expired(now_ms));
        Box::pin(std::future::ready(before - tasks.len()))
    }
}
