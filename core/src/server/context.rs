//! What every call knows about the request it serves.

use super::{Config, Error, INVALID_STATE};
use crate::json::{JsonStr, Object, Value, range_in};
use crate::mrtr::{Ask, INVALID_RESPONSE, Response};
use crate::protocol::{ClientCapabilities, Method, RequestMeta};
use crate::rpc::Id;
pub use crate::state::Principal;
use crate::state::{
    Binding, BindingPrefix, InvalidState, KeySet, MAX_TOKEN_LEN, StateOptions, open_continuing,
};

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
    /// Where `requestState` and `inputResponses` start in the params, as the request's one
    /// parse found them (see [`RetryAt`]).
    pub(crate) retry_at: RetryAt,
    /// A retry's binding absorbed into the state MAC once for the round, for both opening
    /// its state and sealing the next (set by the core's round drivers).
    #[cfg(feature = "retry-prefix")]
    pub(crate) prefix: Option<&'a BindingPrefix>,
    /// Whether this call may become a task, or runs as one (feature `tasks`).
    #[cfg(feature = "tasks")]
    pub(crate) task: crate::tasks::TaskPhase,
}

/// Where the retry fields' values lie in the params text, so that reading them walks
/// neither the params (past `_meta`, the arguments and a token) nor the field itself: a
/// start and an end offset each, 16 bits wide, which fit in the context's padding (a device
/// passes the context by value down deep stacks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RetryAt {
    request_state: FieldAt,
    input_responses: FieldAt,
}

/// A retry field's value as `params[start..end]`, or [`ABSENT`] or [`FAR`] as its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FieldAt {
    start: u16,
    end: u16,
}

/// The field is not in the params.
const ABSENT: u16 = 0;
/// The field is in params too long for 16-bit offsets: found by walking them.
const FAR: u16 = u16::MAX;

impl RetryAt {
    /// The offsets of `request_state` and `input_responses` (slices of the text of `params`).
    /// (Not inlined: its work stays out of the frame of the routing that calls it.)
    #[inline(never)]
    pub(crate) fn new(
        params: Option<Object<'_>>,
        request_state: Option<Value<'_>>,
        input_responses: Option<Value<'_>>,
    ) -> RetryAt {
        let text = params.map_or(&[][..], |p| p.as_value().raw());
        let at = |field: Option<Value<'_>>| {
            let Some(value) = field else {
                return FieldAt {
                    start: ABSENT,
                    end: ABSENT,
                };
            };
            // The field is a slice of the params' text; its offsets, checked to be one.
            let range = range_in(text, value.raw());
            let offsets = range.map(|r| (u16::try_from(r.start), u16::try_from(r.end)));
            match offsets {
                Some((Ok(start), Ok(end))) if start != ABSENT && end != FAR => {
                    FieldAt { start, end }
                }
                _ => FieldAt {
                    start: FAR,
                    end: FAR,
                },
            }
        };
        RetryAt {
            request_state: at(request_state),
            input_responses: at(input_responses),
        }
    }
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
        self.retry_field(self.retry_at.input_responses, "inputResponses")
            .and_then(|v| v.as_object())
    }

    /// `requestState` of a retry (checked to be a string before any handler).
    pub fn request_state(&self) -> Option<JsonStr<'a>> {
        self.retry_field(self.retry_at.request_state, "requestState")
            .and_then(|v| v.as_str())
    }

    /// The retry field `key` of the params, whose value lies `at` (see [`RetryAt`]).
    fn retry_field(&self, at: FieldAt, key: &str) -> Option<Value<'a>> {
        let params = self.params?;
        match at.start {
            ABSENT => None,
            FAR => params.get(key),
            start => {
                let text = params.as_value().raw();
                let value = text.get(usize::from(start)..usize::from(at.end))?;
                Some(Value::from_validated(value))
            }
        }
    }

    /// Where this call stands with the Tasks extension: whether it may become a task
    /// ([`TaskPhase::Offered`](crate::tasks::TaskPhase::Offered)), or already runs as one.
    #[cfg(feature = "tasks")]
    pub fn task_phase(&self) -> crate::tasks::TaskPhase {
        self.task
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
        let binding = self.binding();
        let prefix = self.binding_prefix();
        let opened = if token.has_escapes() {
            open_escaped(token, &binding, prefix, options, self.now(), scratch)
        } else {
            open_continuing(token.raw(), &binding, prefix, options, self.now(), scratch)
        };
        opened.map(Some).map_err(|_| INVALID_STATE)
    }

    /// What this request's state tokens are bound to.
    pub(crate) fn binding(&self) -> Binding<'a> {
        Binding::new(
            self.request_method(),
            self.request_params().map(|p| p.as_value()),
            self.principal(),
        )
    }

    /// The binding absorbed under the sealing key, for a retry (a request with
    /// `requestState`) of a server with state keys: it will open that state and likely seal
    /// the next, so the canonical pass over the params runs here once for both.
    #[cfg(feature = "retry-prefix")]
    pub(crate) fn retry_prefix(&self) -> Option<BindingPrefix> {
        let state = self.retry_field(self.retry_at.request_state, "requestState")?;
        let responses = self.retry_field(self.retry_at.input_responses, "inputResponses");
        // The members the binding leaves out, as the parse found them: stepped over unread.
        let known = [
            self.meta.raw.as_value().raw(),
            state.raw(),
            responses.map_or(&[][..], |r| r.raw()),
        ];
        BindingPrefix::new(&self.binding(), &known, self.config().state?)
    }

    /// The prefix the core's round driver made for this round, if any.
    pub(crate) fn binding_prefix(&self) -> Option<&'a BindingPrefix> {
        #[cfg(feature = "retry-prefix")]
        return self.prefix;
        #[cfg(not(feature = "retry-prefix"))]
        None
    }
}

/// A token is ASCII without quotes or backslashes, but a client may still have escaped some
/// of its characters. Decoding needs a token-sized buffer, kept off the common path's stack.
#[inline(never)]
fn open_escaped<'s>(
    token: JsonStr<'_>,
    binding: &Binding<'_>,
    prefix: Option<&BindingPrefix>,
    options: &StateOptions<dyn KeySet>,
    now: u64,
    scratch: &'s mut [u8],
) -> Result<Value<'s>, InvalidState> {
    let mut decoded = [0u8; MAX_TOKEN_LEN];
    let token = token.decode_into(&mut decoded).ok_or(InvalidState)?;
    open_continuing(token.as_bytes(), binding, prefix, options, now, scratch)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::json::{Limits, parse};
    use crate::protocol::admit_meta;

    #[test]
    fn retry_fields_are_read_where_the_parse_found_them_near_and_far() {
        let limits = Limits::HOST;
        let config = Config::new("t", "1");
        for (pad, retry) in [(0, true), (70_000, true), (0, false)] {
            let fields = if retry {
                r#","requestState":"s1.tok","inputResponses":{"a":{}}"#
            } else {
                ""
            };
            let text = std::format!(
                r#"{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"arguments":{{"x":"{}"}}{fields}}}"#,
                "p".repeat(pad)
            );
            let params = parse(text.as_bytes(), &limits)
                .unwrap()
                .as_object()
                .unwrap();
            let at = RetryAt::new(
                Some(params),
                params.get("requestState"),
                params.get("inputResponses"),
            );
            // Offsets past 16 bits are not kept: those fields are found by walking.
            let expected = match (retry, pad) {
                (false, _) => ABSENT,
                (true, 0) => text.find("\"s1.tok").unwrap() as u16,
                (true, _) => FAR,
            };
            assert_eq!(at.request_state.start, expected);
            let ctx = RequestContext {
                id: Id::Num(1),
                method: Method::ToolsCall,
                params: Some(params),
                meta: admit_meta(params.get("_meta"), None).unwrap(),
                round: Round::anonymous(0),
                config: &config,
                retry_at: at,
                #[cfg(feature = "retry-prefix")]
                prefix: None,
                #[cfg(feature = "tasks")]
                task: crate::tasks::TaskPhase::Unavailable,
            };
            assert_eq!(
                ctx.request_state().map(|s| s.raw()),
                retry.then_some(&b"s1.tok"[..])
            );
            assert_eq!(
                ctx.input_responses().map(|r| r.contains("a")),
                retry.then_some(true)
            );
        }
    }

    #[test]
    fn a_value_from_other_text_is_found_by_walking() {
        let params = parse(br#"{"requestState":"x"}"#, &Limits::HOST).unwrap();
        let other = parse(br#""x""#, &Limits::HOST).unwrap();
        let at = RetryAt::new(params.as_object(), Some(other), None);
        assert_eq!(
            (at.request_state.start, at.input_responses.start),
            (FAR, ABSENT)
        );
    }
}
