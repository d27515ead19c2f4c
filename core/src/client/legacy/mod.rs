//! Talking to servers of the `initialize` era (2025-11-25 and before): the era probe, the
//! handshake, requests without the 2026-07-28 envelope, and answers to the requests such a
//! server sends the client.
//!
//! The 2026-07-28 binding pages prescribe how a dual-era client finds the server's era
//! (`basic/transports/stdio.mdx` and `streamable-http.mdx`, "Backward Compatibility"):
//!
//! 1. **Probe** with `server/discover` ([`Operation::discover`](super::Operation::discover))
//!    before any other request. [`probe_era`] reads the reply: a `DiscoverResult` or a
//!    recognised modern error ([`is_modern_error`]) means a modern server; any other error
//!    means a legacy one. No answer within a timeout means legacy too, and over HTTP so does
//!    a `4xx` whose body is not a JSON-RPC response ([`legacy_status`]).
//! 2. **Handshake** on a legacy server: [`write_initialize`], [`read_initialize_result`]
//!    (the server's version must be one this client speaks), then the
//!    [`INITIALIZED`] notification.
//! 3. **Requests** through [`Exchange::legacy`](super::Exchange::legacy): the same
//!    operations, without the `_meta` envelope. Over HTTP the adapter sends the session's
//!    `Mcp-Session-Id` and `MCP-Protocol-Version` of the negotiated version instead of the
//!    2026-07-28 headers, and `DELETE`s the session when it closes.
//! 4. **Server requests** (`elicitation/create`, `sampling/createMessage`, `roots/list`,
//!    `ping`) arrive between the responses: [`read_server_request`] checks them as input
//!    requests are checked, the application's input handler answers, and [`write_reply`] or
//!    [`write_refusal`] writes the response.
//!
//! ```
//! use snodo_core::client::legacy::{read_initialize_result, write_initialize, INITIALIZED};
//! use snodo_core::client::{ClientCapabilities, ClientConfig};
//! use snodo_core::protocol::LegacyVersion;
//!
//! let config = ClientConfig::new("host", "1.0");
//! let mut out = [0u8; 256];
//! let n = write_initialize(&config, ClientCapabilities::ELICITATION_FORM, 1, &mut out).unwrap();
//! assert_eq!(
//!     &out[..n],
//!     br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"host","version":"1.0"}}}"#
//! );
//! let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18",
//!     "capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0.9"}}}"#;
//! let negotiated = read_initialize_result(reply, 1, &config.limits).unwrap();
//! assert_eq!(negotiated.version, LegacyVersion::V2025_06_18);
//! assert!(INITIALIZED.ends_with(br#""method":"notifications/initialized"}"#));
//! ```

mod handshake;
mod probe;
mod server_request;

pub use crate::protocol::Era;
pub use handshake::{INITIALIZED, Negotiated, read_initialize_result, write_initialize};
pub use probe::{is_modern_error, legacy_status, probe_era};
pub use server_request::{
    REFUSED, ServerRequest, UNKNOWN_METHOD, read_server_request, write_refusal, write_reply,
};

#[cfg(test)]
mod tests;
