//! Giving freed memory back to the system once a burst of waiting requests has ended.
//!
//! glibc's allocator returns freed memory to the system only from the top of each heap. After
//! a thousand waiting legacy requests end, the chunks they held lie below allocations that
//! live on, so they stay resident (11–15 MiB after the burst of `tests/waiting_memory.rs`)
//! until the next burst reuses them. `malloc_trim(0)` releases the free pages of every arena.
//! It walks and locks the arenas, so it runs once per burst, on a blocking thread, a moment
//! after the burst has subsided (the connections of its requests close after the requests
//! end). Other allocators (jemalloc, mimalloc, musl's) return memory themselves: with them
//! this does nothing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Fewest requests running at once that count as a burst worth trimming after.
const MIN_BURST: usize = 64;
/// How long after a burst subsides the trim waits, for the burst's connections to close.
const QUIET: Duration = Duration::from_millis(250);

/// The requests running across the process and the most since the last trim.
#[derive(Debug)]
pub(crate) struct Bursts {
    counts: Mutex<Counts>,
    trim_scheduled: AtomicBool,
}

#[derive(Debug)]
struct Counts {
    running: usize,
    high: usize,
}

/// The process's one gauge: the allocator it serves is the process's too.
pub(crate) static BURSTS: Bursts = Bursts {
    counts: Mutex::new(Counts {
        running: 0,
        high: 0,
    }),
    trim_scheduled: AtomicBool::new(false),
};

impl Bursts {
    /// A request started.
    pub(crate) fn started(&self) {
        let mut counts = self.lock();
        counts.running += 1;
        counts.high = counts.high.max(counts.running);
    }

    /// A request ended: once a burst of at least [`MIN_BURST`] has fallen to a quarter, its
    /// memory is given back.
    pub(crate) fn ended(&'static self) {
        let subsided = {
            let mut counts = self.lock();
            counts.running = counts.running.saturating_sub(1);
            let subsided = counts.high >= MIN_BURST && counts.running <= counts.high / 4;
            if subsided {
                counts.high = counts.running;
            }
            subsided
        };
        if subsided {
            self.schedule_trim();
        }
    }

    fn schedule_trim(&'static self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.trim_scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        runtime.spawn(async move {
            tokio::time::sleep(QUIET).await;
            self.trim_scheduled.store(false, Ordering::Release);
            let _ = tokio::task::spawn_blocking(give_back).await;
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Asks glibc to return the free pages of every arena; whether it returned any.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn give_back() -> bool {
    // SAFETY: `malloc_trim` takes no pointers and touches only the allocator's own free lists,
    // under the same locks every `malloc` and `free` takes.
    let released = unsafe { libc::malloc_trim(0) } == 1;
    tracing::debug!(
        released,
        "gave freed memory back to the system after a burst"
    );
    released
}

/// Elsewhere the allocator returns memory by itself.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> &'static Bursts {
        Box::leak(Box::new(Bursts {
            counts: Mutex::new(Counts {
                running: 0,
                high: 0,
            }),
            trim_scheduled: AtomicBool::new(false),
        }))
    }

    #[tokio::test]
    async fn a_burst_that_subsides_schedules_one_trim_and_small_ones_none() {
        let bursts = fresh();
        for _ in 0..MIN_BURST - 1 {
            bursts.started();
        }
        for _ in 0..MIN_BURST - 1 {
            bursts.ended();
        }
        assert!(
            !bursts.trim_scheduled.load(Ordering::Acquire),
            "not a burst"
        );

        for _ in 0..MIN_BURST * 2 {
            bursts.started();
        }
        for _ in 0..MIN_BURST * 2 - MIN_BURST / 2 {
            bursts.ended();
        }
        // At a quarter of its height the burst has subsided.
        assert!(bursts.trim_scheduled.load(Ordering::Acquire));
        assert_eq!(bursts.lock().high, MIN_BURST / 2);
        for _ in 0..MIN_BURST / 2 {
            bursts.ended();
        }
        assert_eq!(bursts.lock().running, 0);
    }
}
