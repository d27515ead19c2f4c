//! Multi round-trip requests: input requests a handler returns with `input_required`, and the
//! client's answers on the retry, as views over `inputRequests` and `inputResponses`.
//!
//! A layer below [`server`](crate::server), which uses it: the request context reads answers
//! with it ([`RequestContext::response`](crate::server::RequestContext::response)) and the
//! reply writes input requests with it
//! ([`InputRequired`](crate::server::InputRequired)); nothing here knows the server.

pub mod check;
mod error;
mod request;
mod response;

pub use check::elicit_result::Action;
pub use error::{BuildError, INVALID_RESPONSE, InvalidResponse};
pub use request::{CreateMessage, Elicitation, FormSchema, InputRequest, ListRoots};
pub use response::{Ask, ElicitAnswer, Response, Roots, SampledMessage};
