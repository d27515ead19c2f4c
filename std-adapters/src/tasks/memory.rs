//! The default [`TaskStore`]: a bounded map in this process's memory.

use std::collections::HashMap;
use std::sync::Mutex;

use snodo_core::tasks::Status;

use super::store::{
    Answers, StoreFull, StoreFuture, StoreResult, Submitted, TaskRecord, TaskStore,
};

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

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: TaskRecord) -> StoreFuture<'_, StoreResult<()>> {
        let mut tasks = self.lock();
        let now = task.created_at_ms;
        tasks.retain(|_, t| !t.expired(now));
        let created = if tasks.len() >= self.max_tasks {
            Err(StoreFull::Server.into())
        } else if tasks
            .values()
            .filter(|t| t.principal == task.principal)
            .count()
            >= self.max_per_principal
        {
            Err(StoreFull::Principal.into())
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
    ) -> StoreFuture<'a, StoreResult<Option<TaskRecord>>> {
        let got = self.with(task_id, Some(principal), now_ms, |t| t.clone());
        Box::pin(std::future::ready(Ok(got)))
    }

    fn submit<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        responses: Vec<(String, String)>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Submitted>>> {
        let submitted = self.with(task_id, Some(principal), now_ms, |task| {
            task.submit(responses, now_ms)
        });
        Box::pin(std::future::ready(Ok(submitted)))
    }

    fn cancel<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Status>>> {
        let status = self.with(task_id, Some(principal), now_ms, |task| {
            task.cancel(now_ms);
            task.status
        });
        Box::pin(std::future::ready(Ok(status)))
    }

    fn park<'a>(
        &'a self,
        task_id: &'a str,
        input_requests: String,
        keys: Vec<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let parked = self.with(task_id, None, now_ms, |task| {
            task.park(input_requests, keys, now_ms)
        });
        Box::pin(std::future::ready(Ok(parked.unwrap_or(false))))
    }

    fn resume<'a>(
        &'a self,
        task_id: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Answers>>> {
        let resumed = self.with(task_id, None, now_ms, |task| task.resume(now_ms));
        Box::pin(std::future::ready(Ok(resumed.flatten())))
    }

    fn finish<'a>(
        &'a self,
        task_id: &'a str,
        status: Status,
        payload: String,
        message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let finished = self.with(task_id, None, now_ms, |task| {
            task.finish(status, payload, message, now_ms)
        });
        Box::pin(std::future::ready(Ok(finished.unwrap_or(false))))
    }

    fn set_message<'a>(
        &'a self,
        task_id: &'a str,
        message: String,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let kept = self.with(task_id, None, now_ms, |task| {
            task.set_message(message, now_ms)
        });
        Box::pin(std::future::ready(Ok(kept.unwrap_or(false))))
    }

    fn sweep(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<usize>> {
        let mut tasks = self.lock();
        let before = tasks.len();
        tasks.retain(|_, t| !t.expired(now_ms));
        Box::pin(std::future::ready(Ok(before - tasks.len())))
    }
}
