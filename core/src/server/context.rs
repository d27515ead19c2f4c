//! What every call knows about the request it serves.

use super::Config;
use crate::json::{JsonStr, Object, Value};
use crate::protocol::{ClientCapabilities, Method, RequestMeta};
use crate::rpc::Id;
pub use crate::state::Principal;

/// Per-round inputs that come from outside the message: the time and the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round<'a> {
    /// Unix time in seconds (on a device without a calendar: seconds since boot).
    pub now: u64,
    /// The authenticated caller.
    pub principal: Principal<'a>,
}

impl Round<'_> {
    /// An anonymous round at `now`.
    pub const fn anonymous(now: u64) -> Self {
        Round {
            now,
            principal: Principal::Anonymous,
        }
    }
}

/// The request a call belongs to: its id, method, raw params and admitted `_meta`, and the
/// round it arrived in. Retry data (`inputResponses`, `requestState`) is read from here, never
/// from the call's arguments.
#[derive(Clone, Copy, Debug)]
pub struct RequestContext<'a> {
    pub(crate) id: Id<'a>,
    pub(crate) method: Method,
    pub(crate) params: Option<Object<'a>>,
    pub(crate) meta: RequestMeta<'a>,
    pub(crate) round: Round<'a>,
    pub(crate) config: &'a Config<'a>,
}

impl<'a> RequestContext<'a> {
    /// The JSON-RPC id (never part of any binding).
    pub fn id(&self) -> Id<'a> {
        self.id
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The raw method name, for binding verification.
    pub fn request_method(&self) -> &'static str {
        self.method.name()
    }

    /// The raw params, for binding verification.
    pub fn request_params(&self) -> Option<Object<'a>> {
        self.params
    }

    /// The admitted `_meta`.
    pub fn meta(&self) -> &RequestMeta<'a> {
        &self.meta
    }

    /// The capabilities this request declared.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.meta.capabilities
    }

    /// The progress token, if the client opted into progress.
    pub fn progress_token(&self) -> Option<Value<'a>> {
        self.meta.progress_token
    }

    /// `inputResponses` of a retry (checked to be an object of objects before any handler).
    pub fn input_responses(&self) -> Option<Object<'a>> {
        self.params
            .and_then(|p| p.get("inputResponses"))
            .and_then(|v| v.as_object())
    }

    /// `requestState` of a retry (checked to be a string before any handler).
    pub fn request_state(&self) -> Option<JsonStr<'a>> {
        self.params
            .and_then(|p| p.get("requestState"))
            .and_then(|v| v.as_str())
    }

    /// The round's time.
    pub fn now(&self) -> u64 {
        self.round.now
    }

    /// The round's caller.
    pub fn principal(&self) -> Principal<'a> {
        self.round.principal
    }

    /// The server configuration.
    pub fn config(&self) -> &'a Config<'a> {
        self.config
    }
}
