//! Streamable HTTP rules that need no HTTP stack: the request metadata headers checked against
//! the body ([`check_request`]), the `=?base64?…?=` value encoding ([`decode_value`]), the
//! HTTP status of a reply ([`reply_status`]) and the constraints on a tool's `x-mcp-header`
//! annotations ([`check_annotations`]).
//!
//! Pure functions over byte slices, with no heap and no buffer beyond a few bytes of stack, so
//! a firmware HTTP server and the host listener share them.
//!
//! - `request.rs`: the header check, in the order below;
//! - `mismatch.rs`: why headers and body disagree ([`HeaderMismatch`], always -32020);
//! - `value.rs`: header values, plain or Base64, compared with JSON values;
//! - `status.rs`: the status of a reply, read from its `error.code`;
//! - `annotations.rs`: where `x-mcp-header` may appear in an input schema.
//!
//! # Using the header check
//!
//! The HTTP stack looks the headers up (names are case-insensitive), trims the optional
//! whitespace around each value and hands them over in a [`RequestHeaders`]. After the body
//! parses as a request ([`crate::rpc::parse`]), [`check_request`] decides whether headers and
//! body agree; for `tools/call` it also needs the called tool's `inputSchema` (find the tool
//! by [`tool_name`]) to know which arguments are mirrored into `Mcp-Param-*` headers. A
//! [`HeaderMismatch`] is answered with HTTP 400 and a -32020 error
//! ([`HeaderMismatch::write`]); otherwise the body goes to
//! [`Server::accept`](crate::server::Server::accept).
//!
//! Notifications and responses carry no header requirements in this revision; check requests
//! only.
//!
//! # Order
//!
//! The checks run in the order of the specification's *Server Validation*, and each only
//! compares what the body actually carries: a body that lacks `_meta`, a protocol version, a
//! tool name or a URI is left to the core, which answers -32602. So:
//!
//! 1. a required header that is absent (`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name`
//!    for `tools/call`, `resources/read` and `prompts/get`, and with feature `tasks` for
//!    `tasks/get`, `tasks/update` and `tasks/cancel`) is -32020;
//! 2. a header value with characters outside visible ASCII, space and tab is -32020;
//! 3. `Mcp-Method` must equal the body's `method` (case-sensitive);
//! 4. `MCP-Protocol-Version` must equal `_meta["io.modelcontextprotocol/protocolVersion"]`
//!    when the body has one: a mismatch is -32020, and a version both agree on but the server
//!    does not speak is the core's -32022;
//! 5. `Mcp-Name` (decoded) must equal `params.name` (tools, prompts), `params.uri`
//!    (resources) or `params.taskId` (tasks);
//! 6. for `tools/call`, each `x-mcp-header` property of the input schema, reached through
//!    `properties` alone: a non-null body value needs its `Mcp-Param-{Name}` header, equal after
//!    decoding (integers compared numerically, booleans as `true`/`false`), and a header whose
//!    body value is absent or `null` disagrees with the body.

mod annotations;
mod mismatch;
mod request;
mod status;
mod value;

pub use annotations::check_annotations;
pub use mismatch::{HeaderMismatch, MissingHeaders};
pub use request::{
    NoParams, ParamHeaders, RequestHeaders, check_request, requires_name, tool_name,
};
pub use status::{reply_error_code, reply_status, status_for};
pub use value::decode_value;

/// `MCP-Protocol-Version`
pub const HEADER_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`
pub const HEADER_METHOD: &str = "Mcp-Method";
/// `Mcp-Name`
pub const HEADER_NAME: &str = "Mcp-Name";
/// The prefix of the headers that mirror tool arguments: `Mcp-Param-{Name}`.
pub const HEADER_PARAM_PREFIX: &str = "Mcp-Param-";
/// Longest `x-mcp-header` name honoured, in bytes; a longer annotation is not recognised.
pub const MAX_PARAM_NAME_LEN: usize = 64;
