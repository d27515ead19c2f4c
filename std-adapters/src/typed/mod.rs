//! Typed authoring (feature `typed`): tools, resources, prompts, forms and sealed state as
//! Rust types, on top of the core's byte-level API.
//!
//! A tool is an `async fn` taking an argument struct (`Deserialize + JsonSchema`) and a
//! [`Cx`]; its input schema is generated from the struct, and it is registered in one
//! expression. There is no catalogue to keep in step with a `match` on names: the server
//! routes each call to the handler registered with its definition.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use snodo_std::typed::{Cx, Stop, Structured, server, tool};
//!
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct Add { a: f64, b: f64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: f64 }
//!
//! async fn add(args: Add, _cx: Cx<'_>) -> Result<Structured<Sum>, Stop> {
//!     Ok(Structured(Sum { sum: args.a + args.b }))
//! }
//!
//! let server = server("calculator", "1.0.0")
//!     .tool(tool("add").description("Adds two numbers").run(add))
//!     .build()?;
//! // snodo_std::serve_stdio(server)
//! # let _ = server;
//! # Ok::<(), snodo_std::CheckError>(())
//! ```
//!
//! # Multi round-trip requests
//!
//! A handler asks the client for something by returning [`Stop`]: `?` on
//! [`Flow::ask`] does it for a question the last round did not ask or the client did not
//! answer. Questions are `static`s declared with [`questions!`]: a [`Form`] over a struct
//! (its schema must be the protocol's restricted flat subset), a [`UrlConsent`], a
//! [`Sampling`] request or a [`RootsRequest`]; each answer is typed, and every server's
//! `build` checks every question of the binary (listing one with `asks` also names its tool).
//! Partial answers live in the flow's typed state, which the framework seals into
//! `requestState` with the server's keys, bound to the request's method, its arguments
//! (salient params) and the caller (principal), and opens on the retry. See [`Flow`].
//!
//! # Errors
//!
//! - Arguments that fail the generated schema are answered by the core before the handler
//!   runs; arguments that pass it but do not decode are a tool error result naming the
//!   argument (`Invalid arguments: argument x does not fit its type`), never its value.
//! - A tool fails on purpose with a [`ToolError`]:
//!   `return Err(ToolError::new(format!(..)).into())` is a tool error result the model reads.
//! - `?` on any other error works: a core [`Error`] is that JSON-RPC error; anything else
//!   (`std::io::Error`, `serde_json::Error`, the application's own) is logged at `warn` and
//!   told to the client as a fixed sentence, or as [`ServerBuilder::failure_message`] says.
//!   See [`Stop`].
//! - Answers that do not fit their question are the generic -32602, which echoes nothing;
//!   state that does not open is the one -32602 "Invalid request state".
//!
//! # What the byte-level API left to the author
//!
//! | on the byte-level API | here |
//! | --- | --- |
//! | a hand-written JSON Schema per tool, a `const` catalogue kept in step with a `match` on names | schemas generated from the argument and output types; one expression per definition, routed by the server |
//! | arguments read field by field (`call.argument("text").and_then(..)`), `JsonStr` where a `&str` was wanted | arguments decoded into a struct of owned Rust values |
//! | form schemas as JSON strings, checked once behind `LazyLock<Result<FormSchema, BuildError>>` | [`Form<T>`] `static`s in [`questions!`]: the schema is generated and checked once, when any server is built |
//! | round 1's form rebuilt on later rounds to read its answer; the round kept by hand in state JSON | [`Flow::ask`] reads the answer to the question the last round asked, and the flow remembers what it asked |
//! | caller-sized buffers (`[u8; OPEN_SCRATCH_LEN]`, a `Writer` over a guessed-size array, `from_utf8`) | none: state is a `Serialize + Deserialize` value, results are `String`s and structs |
//! | what sealed state is bound to, found only in `docs/state.md` | stated on [`Cx::state`], [`Ask::seal`] and [`Flow`]: method, salient params, principal, expiry |
//! | the TTL changed by rebuilding `process_state_options` with a `OnceLock` for its `&'static` | [`ServerBuilder::state`]: keys and TTL in one call |
//! | `open_state` and `response` reached through `Deref` to `RequestContext` | methods of [`Cx`] |
//! | an easy-to-forget `server.check()` | none: the core's `Server::new` checks every definition and returns an error instead of a server, so an unchecked server cannot be served; [`ServerBuilder::build`] returns the server |
//! | no runtime start-up | [`serve_stdio`](crate::serve_stdio) and [`serve_http`](crate::serve_http) start the tokio runtime |
//! | `nix` built even with default features off | `nix` comes only with the `bridge` feature |
//!
//! # Cost
//!
//! Per call: one boxed future, the arguments decoded by `serde_json`, and on a flow's legs
//! its state as a `serde_json` value. Schemas are generated once, when the server is built,
//! and kept for the process's lifetime.

mod args;
mod context;
mod declared;
mod definition;
mod flow;
mod handler;
mod once;
mod output;
mod question;
mod schema;
mod server;
mod shared;

pub use args::NoArgs;
pub use context::{Ask, Cx, Stop};
pub use definition::{
    PromptBuilder, PromptEntry, ResourceBuilder, ResourceEntry, TemplateBuilder, TemplateEntry,
    ToolBuilder, ToolEntry, prompt, resource, template, tool,
};
pub use flow::{Flow, Questions};
pub use handler::Handler;
pub use once::{GuardFull, MemoryReplayGuard, Once, ReplayGuard};
pub use output::{Blob, PromptMessages, ResourceOutput, Structured, ToolError, ToolOutput};
pub use question::{Elicited, Form, Question, Root, RootsRequest, Sampled, Sampling, UrlConsent};
pub use server::{CompletionQuery, CompletionTarget, ServerBuilder, TypedApp, server};

pub use crate::tasks::TaskContext;

#[doc(inline)]
pub use crate::questions;

/// What [`questions!`] expands to; not public API.
#[doc(hidden)]
pub mod __private {
    pub use super::declared::Declared;
    pub use inventory;
}

// What a typed server names from the core, so that it depends on `snodo-std` alone.
pub use snodo_core::json::Limits;
pub use snodo_core::legacy::EraSupport;
pub use snodo_core::mrtr::Action;
pub use snodo_core::rpc::ErrorCode;
pub use snodo_core::server::{Error, Principal, Server, TaskSupport};
pub use snodo_core::state::{Keys, Ttl};
