//! The 2026-07-28 rules that sit on top of JSON-RPC: the per-request `_meta` envelope, client
//! capabilities, the method table, and the errors a server owes for each.

mod capabilities;
mod era;
pub mod http;
mod meta;
mod method;
mod version;

pub use capabilities::ClientCapabilities;
#[cfg(feature = "legacy")]
pub(crate) use era::INITIALIZE_ON_MODERN;
pub use era::{Era, EraSupport};
pub use meta::{LogLevel, MetaError, RequestMeta, admit};
pub(crate) use meta::{MetaFields, admit_meta};
pub use method::Method;
pub use version::{LegacyVersion, PROTOCOL_VERSION, SUPPORTED_VERSIONS};

/// `_meta` key of the protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client identity.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the requested log level.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server identity on results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

#[cfg(test)]
mod tests;
