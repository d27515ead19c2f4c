//! A sans-IO client driver for multi round-trip requests.
//!
//! An [`Exchange`] drives one operation — a tool call, a resource read, a prompt, a list, a
//! discovery — across its legs. It writes each request into the caller's buffer and reads
//! each response from the caller's bytes; the caller moves them (stdio, HTTP, a serial link)
//! and brings the ids. Nothing is allocated and nothing is kept between operations.
//!
//! # The call order
//!
//! 1. [`Exchange::new`] with the [`ClientConfig`], the [`Operation`] and the capabilities
//!    the installed handlers answer ([`InputHandler::installed`]): only those are declared.
//! 2. [`Exchange::write_request`]: the request with the `_meta` envelope (protocol version,
//!    client info, client capabilities). Over Streamable HTTP, [`headers::request_headers`]
//!    gives its headers.
//! 3. [`Exchange::read_response`] with the response bytes:
//!    - [`Reply::Complete`]: the final result (a result without `resultType` is complete);
//!    - [`Reply::InputRequired`]: every input request was checked — method known, params of
//!      the right shape ([`ClientError::MalformedInputRequest`] otherwise) — and has an
//!      installed handler ([`ClientError::MissingHandler`] otherwise). Answer them and write
//!      the retry with [`Exchange::write_retry`] (or [`Exchange::write_retry_with`] and an
//!      [`InputHandler`]): a fresh id, the same params, `inputResponses`, and `requestState`
//!      copied byte for byte from the response. A state-only result has nothing to answer
//!      and is retried at once. Then read again (3).
//!    - [`Reply::Error`]: the server's JSON-RPC error;
//!    - [`Reply::VersionRetry`]: the server refused the version yet lists it as supported;
//!      write the request again (2), once.
//!
//! The number of requests per operation is bounded by [`ClientConfig::max_rounds`]
//! ([`ClientError::ExhaustedRounds`]). [`run`](fn@run) does all of it over a blocking
//! [`Transport`] with a synchronous handler. Over Streamable HTTP, [`tools`] decides which
//! listed tools can be called, keeps their schemas for the headers, and bounds the retry of
//! a call the server refused with -32020.
//!
//! ```
//! use snodo_core::client::{ClientConfig, Exchange, Handlers, Operation, Reply};
//!
//! let config = ClientConfig::new("example-client", "1.0.0");
//! let mut handlers =
//!     Handlers::new().form(|_form, answer| Ok(answer.accept(|c| { c.str("color", "teal"); })));
//! let mut exchange = Exchange::for_handler(&config, Operation::call_tool("pick", None), &handlers);
//! let mut out = [0u8; 1024];
//!
//! let n = exchange.write_request(1, &mut out).unwrap();
//! assert!(out[..n].starts_with(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call""#));
//!
//! let response = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",
//!     "inputRequests":{"c":{"method":"elicitation/create","params":{"message":"Color?",
//!     "requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}}},
//!     "requestState":"opaque"}}"#;
//! let Reply::InputRequired(input) = exchange.read_response(response).unwrap() else { panic!() };
//! let n = exchange.write_retry_with(2, &input, &mut out, &mut handlers).unwrap();
//! let retry = core::str::from_utf8(&out[..n]).unwrap();
//! assert!(retry.contains(r#""inputResponses":{"c":{"action":"accept","content":{"color":"teal"}}}"#));
//! assert!(retry.contains(r#""requestState":"opaque""#));
//!
//! let done = br#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
//! assert!(matches!(exchange.read_response(done), Ok(Reply::Complete(_))));
//! ```

mod answer;
mod config;
mod error;
mod exchange;
mod handler;
pub mod headers;
mod input;
#[cfg(feature = "legacy")]
pub mod legacy;
mod operation;
mod response;
mod run;
pub mod tools;

pub use crate::protocol::ClientCapabilities;
pub use answer::{Abort, Answer, Answered, RootsWriter, check_answer};
pub use config::{ClientConfig, ClientInfo};
pub use error::ClientError;
pub use exchange::{Exchange, Phase};
pub use handler::{Handlers, InputHandler, Slot, Unset};
pub use input::{
    Ask, FormRequest, InputKind, InputRequest, MAX_URL_LEN, RootsRequest, SamplingRequest,
    UrlRequest, read_input_request,
};
pub use operation::Operation;
pub use response::{InputRequired, Reply, ServerError};
pub use run::{Ids, RunError, Transport, run};
