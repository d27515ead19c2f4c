//! The `initialize` handshake: the client's params into a [`Session`], and the
//! `InitializeResult` from the server's configuration.

use super::session::{ClientName, Session};
use crate::json::{Object, Writer};
use crate::protocol::ClientCapabilities;
use crate::protocol::LegacyVersion;
use crate::rpc::Id;
use crate::rpc::emit;
use crate::server::{Config, ServerCapabilities};

/// Why `initialize` params were refused (always -32602, with this as the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InitializeError(pub &'static str);

/// Reads `initialize` params: `protocolVersion` (negotiated: the same when served, else the
/// newest), `capabilities` (elicitation form/URL, sampling with tools/context, roots) and
/// `clientInfo` (name and version, kept when short enough). Unknown members are ignored.
pub fn parse_initialize(params: Option<Object<'_>>) -> Result<Session, InitializeError> {
    let params = params.ok_or(InitializeError("initialize needs params"))?;
    let requested = params
        .get("protocolVersion")
        .and_then(|v| v.as_str())
        .ok_or(InitializeError("protocolVersion must be a string"))?;
    let capabilities = params
        .get("capabilities")
        .ok_or(InitializeError("capabilities is required"))?;
    let declared = ClientCapabilities::from_value(capabilities)
        .ok_or(InitializeError("capabilities is malformed"))?;
    let info = params
        .get("clientInfo")
        .and_then(|v| v.as_object())
        .ok_or(InitializeError("clientInfo must be an object"))?;
    let text = |key: &'static str| info.get(key).and_then(|v| v.as_str());
    let (Some(name), Some(version)) = (text("name"), text("version")) else {
        return Err(InitializeError(
            "clientInfo needs a string name and a string version",
        ));
    };
    let mut session = Session::new(LegacyVersion::negotiate(requested), declared);
    session.roots_list_changed = capabilities
        .get("roots")
        .and_then(|r| r.get("listChanged"))
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    session.client = ClientName::decode(name, version);
    Ok(session)
}

/// Writes the whole response to `initialize` request `id`: the negotiated version, the
/// server's `capabilities` as served to legacy clients, `serverInfo` and `instructions` from
/// `config`.
pub fn write_initialize_result(
    w: &mut Writer<'_>,
    id: Id<'_>,
    session: &Session,
    config: &Config<'_>,
    capabilities: ServerCapabilities,
) {
    emit::result(w, id);
    w.raw(b"{\"protocolVersion\":");
    w.str(session.version().name());
    w.raw(b",\"capabilities\":");
    capabilities.write(w, false);
    w.raw(b",\"serverInfo\":");
    config.info.write(w);
    if let Some(instructions) = config.instructions {
        w.raw(b",\"instructions\":");
        w.str(instructions);
    }
    w.raw(b"}}");
}
