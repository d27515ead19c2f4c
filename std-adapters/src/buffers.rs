//! Output buffers of the largest reply, lent to a round while it writes and given back after.
//!
//! A reply is written in place, so the round that writes it needs a buffer of the largest
//! reply the configuration allows (`max_response_len`); a request that waits (for a
//! client's answers, for an event) needs none. Transports borrow one from the [`BufferPool`]
//! only around the write, so the memory they hold grows with the rounds running at once,
//! not with the requests open. The pool keeps at most `keep` idle buffers: an allocation of
//! a buffer this size is zero-filled, and once the allocator serves such sizes from its heap
//! (glibc does after the first is freed) it is resident whole; reusing one touches only the
//! pages replies were written into.

use std::sync::{Mutex, PoisonError};

/// Idle buffers a transport's pool keeps: enough for the rounds 64 clients run at once.
pub(crate) const KEEP_IDLE: usize = 64;

/// Idle output buffers of one size, at most `keep` of them.
#[derive(Debug)]
pub(crate) struct BufferPool {
    size: usize,
    keep: usize,
    idle: Mutex<Vec<Vec<u8>>>,
}

impl BufferPool {
    /// A pool of `size`-byte buffers that keeps at most `keep` idle ones.
    pub(crate) fn new(size: usize, keep: usize) -> Self {
        BufferPool {
            size,
            keep,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The size of every buffer the pool lends.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// An idle buffer, or a new one.
    pub(crate) fn take(&self) -> Vec<u8> {
        let reused = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        reused.unwrap_or_else(|| vec![0; self.size])
    }

    /// Keeps `buf` for a later round, unless it is not one of the pool's or the pool is full.
    pub(crate) fn give(&self, buf: Vec<u8>) {
        if buf.len() != self.size {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < self.keep {
            idle.push(buf);
        }
    }

    /// How many idle buffers the pool holds.
    #[cfg(test)]
    pub(crate) fn idle(&self) -> usize {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::BufferPool;

    #[test]
    fn the_pool_reuses_its_own_buffers_and_keeps_at_most_its_capacity() {
        let pool = BufferPool::new(4096, 1);
        let mut first = pool.take();
        first[0] = 7;
        pool.give(first);
        pool.give(vec![0; 4096]);
        assert_eq!(pool.idle(), 1, "a full pool drops what it is given");
        assert_eq!(pool.take()[0], 7, "the idle buffer is lent again");
        pool.give(vec![0; 100]);
        assert_eq!(pool.idle(), 0, "a buffer of another size is not kept");
    }
}
