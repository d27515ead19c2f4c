//! JSON-RPC 2.0 as MCP uses it: one message at a time, no batches, ids that are strings of at
//! most 256 bytes or 64-bit integers, and notifications that are never answered.

pub mod emit;
mod envelope;
mod error;
mod id;

pub(crate) use envelope::parse_visiting;
pub use envelope::{Incoming, Notification, Rejected, Request, Response, parse};
pub use error::{ErrorCode, write_error};
pub use id::Id;

#[cfg(test)]
mod tests;
