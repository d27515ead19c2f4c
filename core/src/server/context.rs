//! What every call knows about the request it serves.

use super::{Config, Error, INVALID_STATE};
use crate::json::{JsonStr, Object, Value};
use crate::mrtr::{Ask, INVALID_RESPONSE, Response};
use crate::protocol::{ClientCapabilities, Method, RequestMeta};
use crate::rpc::Id;
pub use crate::state::Principal;
use crate::state::{Binding, InvalidState, KeySet, MAX_TOKEN_LEN, StateOptions, open};

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
    /// `requestState` and `inputResponses` as the request's one parse found them, so that
    /// reading them does not walk the params again (past a token, `_meta` and the arguments).
    pub(crate) request_state: Option<JsonStr<'a>>,
    pub(crate) input_responses: Option<Object<'a>>,
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
        self.input_responses
    }

    /// `requestState` of a retry (checked to be a string before any handler).
    pub fn request_state(&self) -> Option<JsonStr<'a>> {
        self.request_state
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

    /// Whether this request's client declared what `ask` needs.
    pub fn client_supports(&self, ask: &impl Ask) -> bool {
        self.client_capabilities().contains(ask.needs())
    }

    /// The answer under `key` to `ask`: missing, valid, or the generic -32602.
    pub fn response<A: Ask>(&self, key: &str, ask: &A) -> Result<Response<A::Answer<'a>>, Error> {
        let Some(answer) = self.input_responses().and_then(|r| r.get(key)) else {
            return Ok(Response::Missing);
        };
        ask.read(answer)
            .map(Response::Answered)
            .ok_or(INVALID_RESPONSE.into())
    }

    /// Opens `requestState` with the server's state keys: `None` on a first call (no state),
    /// the sealed data when the token is valid for this request, or [`INVALID_STATE`].
    ///
    /// The data is decoded into `scratch`: [`OPEN_SCRATCH_LEN`](crate::state::OPEN_SCRATCH_LEN)
    /// bytes open any token; a server that seals at most `n` bytes of data can pass
    /// [`open_scratch_len(n)`](crate::state::open_scratch_len) bytes instead.
    pub fn open_state<'s>(&self, scratch: &'s mut [u8]) -> Result<Option<Value<'s>>, Error> {
        let Some(token) = self.request_state() else {
            return Ok(None);
        };
        let options = self
            .config()
            .state
            .ok_or(Error::internal("no state keys are configured"))?;
        let binding = Binding::new(
            self.request_method(),
            self.request_params().map(|p| p.as_value()),
            self.principal(),
        );
        let opened = if token.has_escapes() {
            open_escaped(token, &binding, options, self.now(), scratch)
        } else {
            open(token.raw(), &binding, options, self.now(), scratch)
        };
        opened.map(Some).map_err(|_| INVALID_STATE)
    }
}

/// A token is ASCII without quotes or backslashes, but a client may still have escaped some
/// of its characters. Decoding needs a token-sized buffer, kept off the common path's stack.
#[inline(never)]
fn open_escaped<'s>(
    token: JsonStr<'_>,
    binding: &Binding<'_>,
    options: &StateOptions<dyn KeySet>,
    now: u64,
    scratch: &'s mut [u8],
) -> Result<Value<'s>, InvalidState> {
    let mut decoded = [0u8; MAX_TOKEN_LEN];
    let token = token.decode_into(&mut decoded).ok_or(InvalidState)?;
    open(token.as_bytes(), binding, options, now, scratch)
}
