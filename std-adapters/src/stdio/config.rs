//! The knobs of the stdio adapter, and what each one costs.

use crate::legacy::BridgeConfig;
use crate::tasks::TaskLimits;

/// Configuration of [`serve`](super::serve).
///
/// Memory is bounded by these numbers, not by how far the client writes ahead: at most
/// `max_concurrency` requests are in flight, each in a slot that holds its input line (at
/// most `max_line_len` bytes) and one output buffer of `max_response_len` bytes (allocated
/// zeroed, so only the pages a response touches become resident); slots are made when first
/// needed and reused, never more than `max_concurrency`. Finished messages wait in an output
/// buffer of `write_buffer` bytes. When every slot is busy, or the output buffer is full and
/// the requests wait for room, the adapter stops reading: the client's writes back up in the
/// pipe. The reader itself holds one line and a 64 KiB read buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioConfig {
    /// Longest accepted line in bytes, not counting the line ending (nor a leading BOM). A
    /// longer line is answered -32600 with `id: null` and skipped without being buffered.
    /// Default 1 MiB, the core's host message limit.
    pub max_line_len: usize,
    /// Size of each request's output buffer: the largest response the server can send.
    /// A result that does not fit is answered -32603 by the core. Default 1 MiB.
    pub max_response_len: usize,
    /// Most requests whose handlers run at once (at least 1). When this many are in flight,
    /// the adapter stops reading until one finishes. Default 64.
    pub max_concurrency: usize,
    /// Bytes of finished messages waiting for the writer, written out in one batch.
    /// Responses wait for room (a response longer than this waits until the buffer is empty
    /// and goes alone); a progress or log notification that finds no room is dropped.
    /// Default 128 KiB.
    pub write_buffer: usize,
    /// The bounds of the bridge that serves `input_required` to a legacy client (rounds,
    /// the wait for each answer, answer bytes, waits at once).
    pub bridge: BridgeConfig,
    /// Most resources a legacy client may subscribe to (`resources/subscribe`). Default 64.
    pub legacy_subscriptions: usize,
    /// The bounds of the connection's tasks (kept in memory; see the limits table of
    /// `docs/deploy.md`).
    pub tasks: TaskLimits,
}

impl StdioConfig {
    /// The defaults.
    pub const fn new() -> Self {
        StdioConfig {
            max_line_len: 1 << 20,
            max_response_len: 1 << 20,
            max_concurrency: 64,
            write_buffer: 128 * 1024,
            bridge: BridgeConfig::DEFAULT,
            legacy_subscriptions: 64,
            tasks: TaskLimits::DEFAULT,
        }
    }

    /// With other bounds for the connection's tasks.
    #[must_use]
    pub const fn with_tasks(mut self, limits: TaskLimits) -> Self {
        self.tasks = limits;
        self
    }

    /// With another maximum line length.
    #[must_use]
    pub const fn with_max_line_len(mut self, bytes: usize) -> Self {
        self.max_line_len = bytes;
        self
    }

    /// With another output buffer size.
    #[must_use]
    pub const fn with_max_response_len(mut self, bytes: usize) -> Self {
        self.max_response_len = bytes;
        self
    }

    /// With another concurrency bound.
    #[must_use]
    pub const fn with_max_concurrency(mut self, requests: usize) -> Self {
        self.max_concurrency = requests;
        self
    }

    /// With another output buffer size in bytes.
    #[must_use]
    pub const fn with_write_buffer(mut self, bytes: usize) -> Self {
        self.write_buffer = bytes;
        self
    }
}

impl StdioConfig {
    /// With other bridge bounds.
    #[must_use]
    pub const fn with_bridge(mut self, bridge: BridgeConfig) -> Self {
        self.bridge = bridge;
        self
    }

    /// With another bound on a legacy client's resource subscriptions.
    #[must_use]
    pub const fn with_legacy_subscriptions(mut self, subscriptions: usize) -> Self {
        self.legacy_subscriptions = subscriptions;
        self
    }
}

impl Default for StdioConfig {
    fn default() -> Self {
        Self::new()
    }
}
