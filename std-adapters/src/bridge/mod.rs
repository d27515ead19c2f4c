//! The host serial bridge: lets a desktop MCP client reach a tool device on a serial port,
//! over stdio or Streamable HTTP (Unix only).
//!
//! ```text
//! desktop MCP client ──stdio or HTTP── snodo-bridge ──serial (line or COBS)── device
//! ```
//!
//! The bridge is a relay, not a server: the device answers every MCP message itself (its
//! core does discovery, lists, MRTR and sealed state); the bridge frames messages for the
//! link ([`snodo_core::io`]), applies the Streamable HTTP rules on the HTTP side, and turns
//! every way a link fails into a clear error ([`DeviceError`]):
//!
//! - **disconnected**: the port reached its end or failed (a USB device unplugged, the
//!   other end of a pseudo-terminal closed). The request fails at once; the next one tries
//!   to open the port again.
//! - **reset**: the device announces each boot ([`snodo_core::io::BOOT_NOTIFICATION`]); the
//!   bridge logs it, since sealed state the device issued before no longer opens (its secret
//!   is new), and a request in flight across it that gets no answer times out saying so.
//! - **garbage**: a corrupt COBS frame, a line that is not JSON-RPC, an overlong frame. A
//!   request waiting for its reply fails at once (it may have run); between requests the
//!   bridge logs and goes on, and the next frame is read normally.
//! - **timeout**: no reply within [`DeviceConfig::timeout`].
//!
//! A legacy host (one that opens with `initialize`, 2025-11-25 and earlier) is served on
//! both sides with the device unchanged: the bridge keeps the legacy session, answers
//! `initialize` from the device's `server/discover`, and bridges the device's
//! `input_required` results to the host as `elicitation/create`, `sampling/createMessage`
//! or `roots/list`, retrying on the device with the answers (the servers' own session and
//! bridge-loop code, [`crate::legacy`], with the device as the backend).
//!
//! One request is on the link at a time (the device serves one at a time); others wait in
//! a bounded queue. Device notifications before a reply (progress) go to that request's
//! client.

mod device;
mod http;
mod legacy;
mod replies;
mod rounds;
mod serial;
mod stdio;

pub use device::{Answer, Device, DeviceConfig, DeviceError};
pub use http::{BridgeService, serve_http};
pub use serial::{BAUD_RATES, MAX_DEVICE_MESSAGE, SerialConfig};
pub use stdio::serve as serve_stdio;
