//! # snodo-core
//!
//! A `no_std`, allocation-free, sans-IO core for Model Context Protocol servers speaking
//! revision 2026-07-28.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(test)]
extern crate std;

pub mod json;
pub mod mrtr;
pub mod protocol;
pub mod rpc;
pub mod schema;
pub mod server;
pub mod state;
