//! The client's errors: the driver's, told apart, plus the transport's.

use std::fmt;

use serde_json::Value;
use snodo_core::client::{self as core_client, InputKind};

/// Why a client operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// The server asked for input of a kind no handler is installed for (so the request did
    /// not declare that capability).
    MissingHandler(InputKind),
    /// The server sent a malformed input request.
    MalformedInputRequest {
        /// Its key in `inputRequests`, when known.
        key: Option<String>,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The server still asked for input after this many requests for one operation (see
    /// [`ClientBuilder::max_rounds`](super::ClientBuilder::max_rounds)).
    ExhaustedRounds {
        /// Requests sent for the operation.
        rounds: u8,
    },
    /// The server answered with a JSON-RPC error.
    Server {
        /// `error.code`.
        code: i64,
        /// `error.message`.
        message: String,
        /// `error.data`, when present.
        data: Option<Value>,
    },
    /// The response is not a JSON-RPC response to the request sent.
    MalformedResponse(String),
    /// The result names a `resultType` this client does not know.
    UnknownResultType,
    /// A handler failed instead of answering.
    Handler {
        /// What it was asked for.
        kind: InputKind,
        /// Its message.
        message: String,
    },
    /// A handler's answer does not have the shape the protocol requires for its kind.
    InvalidAnswer(InputKind),
    /// The tool's `x-mcp-header` annotations break the specification's rules, so it cannot
    /// be called over Streamable HTTP (it is left out of [`list_tools`](super::Client::list_tools)).
    InvalidTool {
        /// The tool.
        name: String,
        /// What is wrong with its annotations.
        reason: &'static str,
    },
    /// The HTTP response is not a JSON-RPC response (for example a 404 page or a 202 to a
    /// request).
    Http {
        /// The HTTP status.
        status: u16,
        /// What was wrong with it.
        detail: String,
    },
    /// What the caller asked to send cannot be sent: params or arguments that are not a JSON
    /// object, or retry fields (`requestState`, `inputResponses`), which the client writes
    /// itself. Nothing was sent.
    InvalidParams(String),
    /// A legacy server chose, in its `InitializeResult`, a protocol version this client does
    /// not speak (the version it named).
    UnsupportedVersion(String),
    /// The transport failed (the process could not start, the connection broke, …).
    Transport(String),
    /// No response within the configured time.
    Timeout,
    /// The connection to the server is closed (the process exited, or the client was
    /// closed).
    Closed,
    /// The call became a task, which ended `cancelled` (someone else cancelled it).
    TaskCancelled,
}

impl ClientError {
    /// The JSON-RPC error code, for [`ClientError::Server`].
    pub fn code(&self) -> Option<i64> {
        match self {
            ClientError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }

    pub(crate) fn transport(e: impl fmt::Display) -> Self {
        ClientError::Transport(e.to_string())
    }
}

impl From<core_client::ClientError> for ClientError {
    fn from(e: core_client::ClientError) -> Self {
        use core_client::ClientError as C;
        match e {
            C::MissingHandler(kind) => ClientError::MissingHandler(kind),
            C::MalformedInputRequest { reason } => {
                ClientError::MalformedInputRequest { key: None, reason }
            }
            C::ExhaustedRounds { rounds } => ClientError::ExhaustedRounds { rounds },
            C::Server { code } => ClientError::Server {
                code,
                message: String::new(),
                data: None,
            },
            C::MalformedResponse { reason } => ClientError::MalformedResponse(reason.to_owned()),
            C::UnknownResultType => ClientError::UnknownResultType,
            C::Aborted { kind, reason } => ClientError::Handler {
                kind,
                message: reason.to_owned(),
            },
            C::InvalidAnswer(kind) => ClientError::InvalidAnswer(kind),
            C::UnsupportedVersion => ClientError::UnsupportedVersion(String::new()),
            // The std client grows its buffers; anything else is a bug worth seeing.
            other @ (C::BufferTooSmall { .. } | C::Misuse(_)) => {
                ClientError::Transport(other.to_string())
            }
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::MissingHandler(kind) => write!(
                f,
                "the server asked for {} input, but no handler for it is installed",
                kind.name()
            ),
            ClientError::MalformedInputRequest { key, reason } => match key {
                Some(key) => write!(
                    f,
                    "the server's input request {key:?} is malformed: {reason}"
                ),
                None => write!(f, "the server sent a malformed input request: {reason}"),
            },
            ClientError::ExhaustedRounds { rounds } => write!(
                f,
                "the server still asked for input after {rounds} requests; giving up"
            ),
            ClientError::Server {
                code,
                message,
                data,
            } => {
                write!(f, "server error {code}: {message}")?;
                if let Some(data) = data {
                    write!(f, " ({data})")?;
                }
                Ok(())
            }
            ClientError::MalformedResponse(reason) => write!(f, "malformed response: {reason}"),
            ClientError::UnknownResultType => f.write_str("the result has an unknown resultType"),
            ClientError::Handler { kind, message } => {
                write!(f, "the {} handler failed: {message}", kind.name())
            }
            ClientError::InvalidAnswer(kind) => write!(
                f,
                "the {} handler's answer does not have the shape the protocol requires",
                kind.name()
            ),
            ClientError::InvalidTool { name, reason } => {
                write!(f, "tool {name:?} cannot be called over HTTP: {reason}")
            }
            ClientError::Http { status, detail } => write!(f, "HTTP {status}: {detail}"),
            ClientError::InvalidParams(e) => write!(f, "cannot send these params: {e}"),
            ClientError::UnsupportedVersion(v) => write!(
                f,
                "the server chose protocol version `{v}`, which this client does not speak"
            ),
            ClientError::Transport(e) => write!(f, "transport failed: {e}"),
            ClientError::Timeout => f.write_str("no response in time"),
            ClientError::Closed => f.write_str("the connection to the server is closed"),
            ClientError::TaskCancelled => f.write_str("the task this call became was cancelled"),
        }
    }
}

impl std::error::Error for ClientError {}
