//! Shared fixtures for the acceptance suite.
//!
//! - [`catalogue`]: what a fixture lists, and the [`Registry`](snodo_core::server::Registry)
//!   impl written from it ([`registry!`]);
//! - [`fixture`]: fixture applications implementing the core's registry and handler traits;
//! - [`harness`]: running literal requests through a server and comparing replies
//!   structurally;
//! - [`conformance`]: the application the official conformance runner tests (served by the
//!   `conformance-server` binary).

pub mod boundary;
pub mod catalogue;
pub mod client_harness;
pub mod cluster;
pub mod conformance;
pub mod fixture;
pub mod harness;
pub mod mrtr_fixture;
