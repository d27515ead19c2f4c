//! Multi round-trip requests: input requests a handler returns with `input_required`, and the
//! client's answers on the retry.

pub mod check;
mod error;

pub use error::BuildError;
