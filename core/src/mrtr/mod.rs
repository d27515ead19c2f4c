//! Multi round-trip requests: input requests a handler returns with `input_required`, and the
//! client's answers on the retry.

pub mod check;
mod error;
mod outcome;
mod request;
mod response;
mod state;

pub use check::elicit_result::Action;
pub use error::BuildError;
pub use outcome::InputRequired;
pub use request::{CreateMessage, Elicitation, FormSchema, InputRequest, ListRoots};
pub use response::{Ask, ElicitAnswer, INVALID_RESPONSE, Response, Roots, SampledMessage};
pub use state::INVALID_STATE;
