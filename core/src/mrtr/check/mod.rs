//! Structural checks of input requests (at build time) and of the client's answers.
//!
//! Everything here is a pure, total function over [`Value`](crate::json::Value) views: no
//! heap, no recursion deeper than a fixed level or two, no panics whatever the input. A
//! request the server builds is checked into a [`BuildError`](super::BuildError) naming what is
//! wrong, so a bad request is a bug found when it is built and never a bad message on the wire.
//! A client's answer is checked into a plain verdict: the caller turns a refusal into the
//! generic -32602, which must not echo what the client sent.
//!
//! - [`form`]: the restricted flat schema of form elicitation and the content of an `accept`.
//! - [`url`]: the URL of a URL elicitation (`http`/`https` navigation only).
//! - [`sampling`]: `sampling/createMessage` params and the `CreateMessageResult` answer.
//! - [`roots`]: the `ListRootsResult` answer to `roots/list`.
//! - [`elicit_result`]: the action and content of an `ElicitResult`.

pub mod elicit_result;
pub mod form;
pub mod roots;
pub mod sampling;
pub mod url;

mod util;
