//! # snodo-embedded-example
//!
//! Firmware for an MCP tool device — a small bench instrument — built on `snodo-core` with
//! `no_std`, no heap and fixed buffers.
//!
//! - [`args`]: the device's options, read alike from a host's `argv` and a firmware's
//!   semihosting command line;
//! - [`board`]: what the firmware needs from the hardware ([`board::Board`]: clock, entropy,
//!   sensors, relays);
//! - [`app`]: the MCP application: tools `read_sensor`, `set_relay` (confirmed through a form,
//!   bound by sealed state), `calibrate` (three legs), resource `device://info`, prompt
//!   `bench_check`;
//! - [`device`]: boot (a fresh state secret from the board's entropy) and the serve loop,
//!   which is the core's `io` layer over any `embedded_io::{Read, Write}` link, in
//!   newline-delimited JSON or COBS + CRC-16 framing;
//! - [`sim`]: the simulated sensors and relays the host process and the emulated boards
//!   share, so every build answers alike;
//! - `host` (Linux only): the device as a process, stdin/stdout through `libc` (put in raw
//!   mode when they are a terminal), simulated sensors. The `snodo-device` binary
//!   (`src/main.rs`, `#![no_std]` + `#![no_main]`, no global allocator) runs it; see this
//!   crate's `Cargo.toml` for how it is built and `docs/firmware.md` for a real board.
//!
//! # Time
//!
//! The device has no calendar clock: each round's `now` is seconds since boot. That is sound
//! for sealed state because the secret is drawn afresh from the board's entropy at every boot:
//! a token issued before a reset, whose times were counted from another zero, fails its MAC
//! check instead of being judged by a clock that went back; within one boot the count only
//! goes up, so expiry (300 s by default) works as on a host.
#![no_std]

pub mod app;
pub mod args;
pub mod board;
pub mod device;
#[cfg(target_os = "linux")]
pub mod host;
mod log;
pub mod sim;
pub mod text;
