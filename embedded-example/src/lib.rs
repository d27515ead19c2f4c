//! # snodo-embedded-example
//!
//! Firmware for an MCP tool device — a small bench instrument — built on `snodo-core` with
//! `no_std`, no heap and fixed buffers.
//!
//! - [`board`]: what the application needs from the hardware ([`board::Board`]);
//! - [`app`]: the MCP application, tools `read_sensor` and `set_relay`;
//! - [`framing`]: newline-delimited JSON over a byte [`framing::Link`];
//! - [`serve`]: the loop that runs one round through the core per line;
//! - `host` (Linux only): the device as a process, stdin/stdout through `libc`, simulated
//!   sensors. The `snodo-device` binary (`src/main.rs`, `#![no_std]` + `#![no_main]`, no
//!   global allocator) runs it; see this crate's `Cargo.toml` for how it is built.
#![no_std]

pub mod app;
pub mod board;
pub mod framing;
#[cfg(target_os = "linux")]
pub mod host;
pub mod serve;
