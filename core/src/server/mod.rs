//! The server: registry traits, the two-phase round, replies and errors.
//!
//! # A round
//!
//! 1. [`Server::accept`] reads one message. Errors, `server/discover`, the lists and tool
//!    arguments that fail their schema are answered on the spot ([`Accepted::Replied`]);
//!    notifications need nothing ([`Accepted::Silent`], [`Accepted::Cancelled`]); the rest is a
//!    typed [`Call`].
//! 2. The adapter runs the application's handler — synchronously in firmware, as a future on a
//!    host — with a reply started by the call (`call.reply(out, notifier)`). The handler
//!    writes its result straight into the output buffer and returns [`Done`] (which holds
//!    that buffer) or an [`Error`].
//! 3. [`Call::finish`] admits the outcome and completes the response in the buffer the
//!    `Done` carries; [`Finished::len`] gives its length (writing a handler's error first).
//!
//! Every entry point is one of these steps or a sum of them:
//!
//! | entry point | steps | for |
//! |---|---|---|
//! | [`Server::accept`] | 1 | a transport that runs the call itself |
//! | [`Server::accept_inspected`] | 1, the parsed message shown to the caller first | a transport with checks of its own on the message (HTTP headers), so it is parsed once |
//! | [`Server::drive_call`] | 2 and 3 for a call step 1 returned | that transport, through its [`Runner`] |
//! | [`Server::drive`] | 1, 2, 3 | every async caller, bytes in to bytes out, the handler run through a [`Runner`] (a cancellable future on a host) |
//! | [`Server::handle`] | 1, 2, 3 | a synchronous [`Handler`] (firmware), without a future whose frame would stay on the stack |
//!
//! On hosts, `snodo_std::handle` is `drive` with an async application as the runner, and
//! `snodo_std::run_call` is step 2 alone, for a transport of one's own.
//!
//! A 2025-11-25 request takes the same steps: the legacy dialect lifts it into a 2026-07-28
//! request, runs it with one of these (`snodo-std` uses `drive`), and lowers the reply.
//! Nothing of a round outlives it: the server keeps no state between rounds. A
//! [`CallHandle`] (`Copy`, `'static`) lets a task that outlives the reader borrow the call
//! again from a copy of its bytes.

/// `const` builder methods that each set one optional text field of a definition or of the
/// server info, so that firmware can build them in `const` items. Several types with the
/// same fields take one list: `optional_text!([A, B] { ... })`.
macro_rules! optional_text {
    ([$($type:ident),+] $fields:tt) => {
        $(optional_text!($type $fields);)+
    };
    ($type:ident { $($(#[doc = $doc:literal])* $field:ident),* $(,)? }) => {
        impl<'r> $type<'r> {
            $(
                $(#[doc = $doc])*
                #[must_use]
                pub const fn $field(mut self, $field: &'r str) -> Self {
                    self.$field = Some($field);
                    self
                }
            )*
        }
    };
}

mod accept;
mod call;
mod call_handle;
mod config;
mod context;
mod definitions;
mod driver;
mod error;
mod handler;
mod input_required;
mod lists;
mod middleware;
mod notify;
mod plans;
mod registry;
pub(crate) mod reply;
pub(crate) mod span;
mod subscription;
mod too_large;
#[cfg(feature = "typed-args")]
mod typed_args;
mod uri_template;
mod verified;

pub use accept::{Accepted, Server};
pub use call::{
    Call, Completion, CompletionRef, Finished, MAX_ESCAPED_URI_LEN, PromptGet, ResourceRead,
    ResourceTarget, ToolCall,
};
pub use call_handle::CallHandle;
pub use config::{CacheScope, Config, ListChanged, ServerCapabilities, ServerInfo};
pub use context::{Principal, RequestContext, Round};
pub use definitions::{DefinitionError, Refused};
pub use driver::Runner;
pub use error::{Error, ErrorKind, INVALID_STATE};
pub use handler::{Handled, Handler};
pub use input_required::InputRequired;
pub use middleware::{Layered, Middleware};
pub use notify::{Discard, Notifier};
pub use registry::{
    Prompt, PromptArgument, Registry, Resource, ResourceTemplate, TaskSupport, Tool,
};
pub use reply::{
    CompletionReply, Content, Done, ForCompletion, ForPrompt, ForResource, ForTool, Messages,
    PromptReply, Reply, ResourceReply, Role, ToolReply,
};
pub use subscription::{Event, Filter, Subscription, SubscriptionSpans, Unheld};
#[cfg(feature = "typed-args")]
pub use typed_args::INVALID_ARGUMENTS;
