//! The default [`TaskStore`]: a bounded map in this process's memory.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;

use snodo_core::tasks::Status;

use super::store::{
    Answers, StoreFull, StoreFuture, StoreResult, Submitted, TaskRecord, TaskStore,
};

/// Tasks in memory, at most `max_tasks` of them and `max_per_principal` of one caller
/// (expired tasks are forgotten first). Gone when the process ends. Creating one costs the
/// same however many it holds: the counts per caller are kept, and expired tasks are found
/// in order of expiry.
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<Tasks>,
    max_tasks: usize,
    max_per_principal: usize,
}

#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<String, TaskRecord>,
    /// How many of `by_id` each principal holds (none at zero).
    per_principal: HashMap<Option<String>, usize>,
    /// Each task's expiry, soonest first.
    expiries: BinaryHeap<Reverse<(u64, String)>>,
}

impl Tasks {
    /// Forgets the tasks expired at `now_ms`; how many.
    fn forget_expired(&mut self, now_ms: u64) -> usize {
        let mut forgotten = 0;
        while let Some(Reverse((at, _))) = self.expiries.peek() {
            if *at > now_ms {
                break;
            }
            let Some(Reverse((_, task_id))) = self.expiries.pop() else {
                break;
            };
            let Some(task) = self.by_id.remove(&task_id) else {
                continue;
            };
            if let Some(count) = self.per_principal.get_mut(&task.principal) {
                *count -= 1;
                if *count == 0 {
                    self.per_principal.remove(&task.principal);
                }
            }
            forgotten += 1;
        }
        forgotten
    }
}

impl MemoryTaskStore {
    /// An empty store with these bounds.
    pub fn new(max_tasks: usize, max_per_principal: usize) -> Self {
        MemoryTaskStore {
            tasks: Mutex::new(Tasks::default()),
            max_tasks,
            max_per_principal,
        }
    }

    /// How many tasks it holds.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tasks> {
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
        let task = tasks.by_id.get_mut(task_id)?;
        if task.expired(now_ms) || principal.is_some_and(|p| !task.belongs_to(p)) {
            return None;
        }
        Some(change(task))
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: TaskRecord) -> StoreFuture<'_, StoreResult<()>> {
        let mut tasks = self.lock();
        tasks.forget_expired(task.created_at_ms);
        let held = tasks.per_principal.get(&task.principal).copied();
        let created = if tasks.by_id.len() >= self.max_tasks {
            Err(StoreFull::Server.into())
        } else if held.unwrap_or(0) >= self.max_per_principal {
            Err(StoreFull::Principal.into())
        } else {
            let expiry = task.created_at_ms.saturating_add(task.ttl_ms);
            tasks.expiries.push(Reverse((expiry, task.task_id.clone())));
            *tasks
                .per_principal
                .entry(task.principal.clone())
                .or_default() += 1;
            tasks.by_id.insert(task.task_id.clone(), task);
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

    fn count_by_status(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<(Status, u64)>>> {
        let mut counts = Status::ALL.map(|status| (status, 0));
        let tasks = self.lock();
        for task in tasks.by_id.values().filter(|t| !t.expired(now_ms)) {
            if let Some((_, count)) = counts.iter_mut().find(|(s, _)| *s == task.status) {
                *count += 1;
            }
        }
        Box::pin(std::future::ready(Ok(counts.to_vec())))
    }

    fn sweep(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<usize>> {
        let forgotten = self.lock().forget_expired(now_ms);
        Box::pin(std::future::ready(Ok(forgotten)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, principal: &str, created_at_ms: u64) -> TaskRecord {
        TaskRecord {
            task_id: id.to_owned(),
            principal: Some(principal.to_owned()),
            status: Status::Working,
            status_message: None,
            created_at_ms,
            updated_at_ms: created_at_ms,
            ttl_ms: 100,
            poll_interval_ms: 500,
            payload: None,
            pending: Vec::new(),
            answers: Vec::new(),
            version: 0,
        }
    }

    fn create(store: &MemoryTaskStore, task: TaskRecord) -> StoreResult<()> {
        let mut created = store.create(task);
        let waker = std::task::Waker::noop();
        match created
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
        {
            std::task::Poll::Ready(done) => done,
            std::task::Poll::Pending => unreachable!("the memory store answers at once"),
        }
    }

    #[test]
    fn expired_tasks_give_their_room_back_to_the_server_and_their_caller() {
        let store = MemoryTaskStore::new(3, 2);
        assert_eq!(create(&store, task("a1", "alice", 0)), Ok(()));
        assert_eq!(create(&store, task("a2", "alice", 10)), Ok(()));
        let refused = create(&store, task("a3", "alice", 20));
        assert_eq!(refused, Err(StoreFull::Principal.into()));
        assert_eq!(create(&store, task("b1", "bob", 20)), Ok(()));
        assert_eq!(
            create(&store, task("c1", "carol", 30)),
            Err(StoreFull::Server.into())
        );
        // At 100 the first of alice's has expired: room for one of hers, and no more.
        assert_eq!(create(&store, task("a3", "alice", 100)), Ok(()));
        assert_eq!(store.len(), 3);
        assert_eq!(
            create(&store, task("a4", "alice", 100)),
            Err(StoreFull::Server.into())
        );
        // At 130 every task but a3 has expired.
        let mut swept = store.sweep(130);
        let waker = std::task::Waker::noop();
        let swept = swept
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker));
        assert_eq!(swept, std::task::Poll::Ready(Ok(2)));
        assert_eq!(store.len(), 1);
        assert_eq!(create(&store, task("a4", "alice", 130)), Ok(()));
    }
}
