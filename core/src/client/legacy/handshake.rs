//! The `initialize` handshake, as the client opens it.

use super::super::{ClientCapabilities, ClientConfig, ClientError};
use crate::json::{Limits, Object, Writer, parse};
use crate::protocol::LegacyVersion;
use crate::rpc::emit;

/// The `notifications/initialized` notification, sent once the server's
/// `InitializeResult` is read.
pub const INITIALIZED: &[u8] = crate::envelope!(notification: "notifications/initialized");

/// Writes the `initialize` request with `id`: the newest legacy version, `capabilities`
/// (those of the installed handlers) and the client's info. Returns its length.
pub fn write_initialize(
    config: &ClientConfig<'_>,
    capabilities: ClientCapabilities,
    id: i64,
    out: &mut [u8],
) -> Result<usize, ClientError> {
    let mut w = Writer::new(out);
    emit::request(&mut w, id);
    w.raw(b"\"initialize\",\"params\":");
    w.object(|o| {
        o.str("protocolVersion", LegacyVersion::LATEST.name());
        capabilities.write(o.key("capabilities"));
        config.info.write(o.key("clientInfo"));
    });
    w.raw(b"}");
    Ok(w.finish()?)
}

/// What the server agreed to in its `InitializeResult`.
#[derive(Clone, Copy, Debug)]
pub struct Negotiated<'r> {
    /// The version the session speaks.
    pub version: LegacyVersion,
    /// The whole result (`capabilities`, `serverInfo`, `instructions`).
    pub result: Object<'r>,
}

/// Reads the response to `initialize` (request `id`). The server's version must be one
/// this client speaks, or the client cannot go on ([`ClientError::UnsupportedVersion`]); a
/// JSON-RPC error is [`ClientError::Server`].
pub fn read_initialize_result<'r>(
    response: &'r [u8],
    id: i64,
    limits: &Limits,
) -> Result<Negotiated<'r>, ClientError> {
    let malformed = |reason| ClientError::MalformedResponse { reason };
    let message = parse(response, limits)
        .ok()
        .and_then(|m| m.as_object())
        .ok_or(malformed("not a JSON object within the configured limits"))?;
    if let Some(error) = message.get("error") {
        let code = error.get("code").and_then(|c| c.as_i64()).unwrap_or(0);
        return Err(ClientError::Server { code });
    }
    if message.get("id").and_then(|i| i.as_i64()) != Some(id) {
        return Err(malformed("the response id is not the request's"));
    }
    let result = message
        .get("result")
        .and_then(|r| r.as_object())
        .ok_or(malformed("an InitializeResult must be an object"))?;
    let version = result
        .get("protocolVersion")
        .and_then(|v| v.as_str())
        .ok_or(malformed(
            "an InitializeResult needs a string protocolVersion",
        ))?;
    let version = LegacyVersion::ALL
        .into_iter()
        .find(|v| version.eq_str(v.name()))
        .ok_or(ClientError::UnsupportedVersion)?;
    Ok(Negotiated { version, result })
}
