//! Shared fixtures for the acceptance suite.
//!
//! - [`fixture`]: fixture applications implementing the core's registry and handler traits;
//! - [`harness`]: running literal requests through a server and comparing replies
//!   structurally.

pub mod fixture;
pub mod harness;
pub mod mrtr_fixture;
