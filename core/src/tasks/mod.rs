//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) as the core speaks it:
//! the statuses and their legal transitions ([`Status`]), and the wire shapes a server
//! writes (the flat `CreateTaskResult` of [`write_created`], the `DetailedTask` of
//! [`write_detailed`] that `tasks/get` and `notifications/tasks` carry).
//!
//! A task is durable state a host keeps (in memory or a database); the core holds none of it
//! and has no clock: timestamps arrive formatted, and the caller's store decides what a task
//! is. What the core owns is what must be the same everywhere: a status changes only along
//! the extension's diagram, and each status carries only its own payload (`inputRequests`
//! only while `input_required`, `result` only when `completed`, `error` only when `failed`).
//!
//! ```
//! use snodo_core::json::Writer;
//! use snodo_core::rpc::Id;
//! use snodo_core::tasks::{Status, Task, write_created};
//!
//! let task = Task {
//!     task_id: "t-1",
//!     status: Status::Working,
//!     status_message: None,
//!     created_at: "2026-12-07T10:30:00Z",
//!     last_updated_at: "2026-12-07T10:30:00Z",
//!     ttl_ms: Some(60_000),
//!     poll_interval_ms: Some(1_000),
//! };
//! let mut out = [0u8; 256];
//! let mut w = Writer::new(&mut out);
//! write_created(&mut w, Id::Num(1), &task);
//! let len = w.finish().unwrap();
//! assert_eq!(
//!     core::str::from_utf8(&out[..len]).unwrap(),
//!     r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t-1","status":"working","createdAt":"2026-12-07T10:30:00Z","lastUpdatedAt":"2026-12-07T10:30:00Z","ttlMs":60000,"pollIntervalMs":1000}}"#
//! );
//! ```

mod phase;
mod request;
mod status;
mod wire;

pub use phase::{TaskOffer, TaskPhase};

pub use request::{
    Refusal, TaskMethod, TaskRequest, read_request, write_refusal, write_unknown_task,
};
pub use status::Status;
pub use wire::{
    Payload, PayloadMismatch, Task, write_acknowledged, write_created, write_detailed, write_got,
};

/// The extension's identifier, under `capabilities.extensions` on both sides.
/// A client declares it per request; the core reads that as
/// [`ClientCapabilities::TASKS`](crate::protocol::ClientCapabilities::TASKS).
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The methods the extension adds. `tasks/result` and `tasks/list` (of the 2025 draft) are
/// not among them: a server answers them -32601.
pub mod method {
    /// Polls a task: its `DetailedTask`.
    pub const GET: &str = "tasks/get";
    /// Gives a task's outstanding input requests their responses.
    pub const UPDATE: &str = "tasks/update";
    /// Asks a task to stop.
    pub const CANCEL: &str = "tasks/cancel";
}

#[cfg(test)]
mod tests;
