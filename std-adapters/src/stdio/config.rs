//! The knobs of the stdio adapter, and what each one costs.

/// Configuration of [`serve`](super::serve).
///
/// Memory is bounded by these numbers: at most `max_concurrency` requests are in flight,
/// each holding its input line (at most `max_line_len` bytes) and one output buffer of
/// `max_response_len` bytes; up to `max_concurrency` idle output buffers are kept for reuse;
/// the writer queue holds at most `write_queue` messages. The reader itself holds one line.
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
    /// Most messages waiting for the writer. Responses wait for room; a progress or log
    /// notification that finds the queue full is dropped. Default 1024.
    pub write_queue: usize,
}

impl StdioConfig {
    /// The defaults.
    pub const fn new() -> Self {
        StdioConfig {
            max_line_len: 1 << 20,
            max_response_len: 1 << 20,
            max_concurrency: 64,
            write_queue: 1024,
        }
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

    /// With another writer queue length.
    #[must_use]
    pub const fn with_write_queue(mut self, messages: usize) -> Self {
        self.write_queue = messages;
        self
    }
}

impl Default for StdioConfig {
    fn default() -> Self {
        Self::new()
    }
}
