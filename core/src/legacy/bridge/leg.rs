//! One leg of a bridged request: the input requests of one `input_required` result, sent to
//! the legacy client as server-to-client requests, and their answers gathered for the retry.

use super::error::BridgeError;
use super::id::BridgeId;
use crate::client::{Ask, InputKind, InputRequest, read_input_request};
use crate::json::{JsonStr, Limits, Object, Value, Writer, parse};
use crate::legacy::Session;
use crate::legacy::lift::copy_members;
use crate::legacy::lower::is_input_required;
use crate::legacy::response::{ClientResponse, Outcome};
use crate::protocol::LegacyVersion;
use crate::rpc::emit;
use crate::rpc::{Incoming, Request};

/// Bounds of the bridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BridgeLimits {
    /// Most legs (`input_required` results bridged) for one client request.
    pub max_rounds: u8,
    /// Bounds for reading the modern replies and requests a leg works from.
    pub json: Limits,
}

impl BridgeLimits {
    /// Eight rounds (as the core's client allows) over host-sized JSON.
    pub const HOST: BridgeLimits = BridgeLimits {
        max_rounds: 8,
        json: Limits::HOST,
    };
}

impl Default for BridgeLimits {
    fn default() -> Self {
        Self::HOST
    }
}

/// Where an answer lies in the caller's answer store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// What an answer did to its leg.
#[derive(Clone, Copy, Debug)]
pub enum Accepted<'a> {
    /// Recorded; `remaining` input requests still await their answers.
    Waiting {
        /// Unanswered requests of the leg.
        remaining: usize,
    },
    /// Recorded; every input request is answered: write the retry
    /// ([`Leg::write_retry`]).
    Complete,
    /// The client answered the request of `kind` with a JSON-RPC error: end the client's
    /// request with [`super::write_refused`] (and cancel what is still pending).
    Refused {
        /// The kind of the refused request.
        kind: InputKind,
        /// The client's error code.
        code: i64,
        /// The client's error message.
        message: JsonStr<'a>,
    },
}

/// Why an answer was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AnswerError {
    /// Its id is not one of this leg's requests (try another leg, or drop it).
    NotThisLeg,
    /// That request was answered before; the first answer stands.
    Duplicate,
    /// The answer store is too small: `required` bytes would hold what was recorded so far
    /// plus this answer. End the request (or grow the store, within its bound, and retry).
    StoreFull {
        /// Bytes the store would need.
        required: usize,
    },
}

/// The input requests of one `input_required` result as bridged to a legacy client, at most
/// `N` of them. A fixed-size `Copy` value: the adapter keeps it, the modern reply it was
/// opened with, and an answer store, until the retry is written.
#[derive(Clone, Copy, Debug)]
pub struct Leg<const N: usize = 8> {
    round: u8,
    first: u64,
    len: usize,
    kinds: [InputKind; N],
    answers: [Option<Span>; N],
    stored: usize,
    reply_len: usize,
    version: LegacyVersion,
}

impl<const N: usize> Leg<N> {
    /// Opens the leg for the modern `reply` (an `input_required` response) to a request of
    /// `session`, its `round`-th leg (1 for the first).
    ///
    /// Every input request is read and checked, and admitted against the capabilities the
    /// client declared in `initialize`: when any is missing, nothing may be sent and the
    /// error names them. On success the session's next bridge ids are taken.
    pub fn open(
        reply: &[u8],
        session: &mut Session,
        limits: &BridgeLimits,
        round: u8,
    ) -> Result<Self, BridgeError> {
        if round > limits.max_rounds {
            return Err(BridgeError::TooManyRounds(limits.max_rounds));
        }
        let result = input_required(reply, &limits.json)?;
        let mut leg = Leg {
            round,
            first: 0,
            len: 0,
            kinds: [InputKind::Roots; N],
            answers: [None; N],
            stored: 0,
            reply_len: reply.len(),
            version: session.version(),
        };
        let mut needs = crate::protocol::ClientCapabilities::NONE;
        for (index, request) in input_requests(result).enumerate() {
            let request = request?;
            let slot = leg
                .kinds
                .get_mut(index)
                .ok_or(BridgeError::TooManyInputs(N))?;
            *slot = request.kind();
            needs = needs.union(request.needs());
            leg.len = index + 1;
        }
        let missing = needs.missing_from(session.capabilities());
        if !missing.is_empty() {
            return Err(BridgeError::MissingCapabilities(missing));
        }
        leg.first = session.take_bridge_ids(leg.len as u64);
        Ok(leg)
    }

    /// Which leg of its request this is (1 for the first).
    pub fn round(&self) -> u8 {
        self.round
    }

    /// The number of input requests.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the result held no input requests (state only): retry at once.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bridge id of input request `index`.
    pub fn id(&self, index: usize) -> Option<BridgeId> {
        (index < self.len).then(|| BridgeId(self.first.wrapping_add(index as u64)))
    }

    /// The kind of input request `index`.
    pub fn kind(&self, index: usize) -> Option<InputKind> {
        self.kinds.get(..self.len)?.get(index).copied()
    }

    /// The index of the input request a response with this id answers, if it is this leg's.
    pub fn owns(&self, id: BridgeId) -> Option<usize> {
        let index = usize::try_from(id.0.checked_sub(self.first)?).ok()?;
        (index < self.len).then_some(index)
    }

    /// The ids of the requests still waiting for an answer (to cancel them when the wait
    /// ends early).
    pub fn pending(&self) -> impl Iterator<Item = BridgeId> + '_ {
        (0..self.len)
            .filter(|&i| self.answers.get(i).is_some_and(Option::is_none))
            .filter_map(|i| self.id(i))
    }

    /// Whether every input request has its answer.
    pub fn is_complete(&self) -> bool {
        self.pending().next().is_none()
    }

    /// Writes input request `index` of `reply` (the bytes the leg was opened with) as the
    /// legacy JSON-RPC request the client answers: `elicitation/create` (a URL elicitation
    /// gains the `elicitationId` 2025-11-25 requires; a form loses `mode` for clients older
    /// than 2025-11-25), `sampling/createMessage` or `roots/list`.
    pub fn write_request(
        &self,
        index: usize,
        reply: &[u8],
        limits: &BridgeLimits,
        w: &mut Writer<'_>,
    ) -> Result<(), BridgeError> {
        let id = self
            .id(index)
            .ok_or(BridgeError::Misuse("no such input request"))?;
        let result = self.reopen(reply, limits)?;
        let request = input_requests(result)
            .nth(index)
            .ok_or(BridgeError::Misuse("the reply is not the leg's"))??;
        emit::request(w, id);
        w.str(request.kind().method());
        match request.ask {
            Ask::Form(form) => {
                w.raw(b",\"params\":{");
                let skip: &[&str] = if self.version < LegacyVersion::V2025_11_25 {
                    &["mode"]
                } else {
                    &[]
                };
                copy_members(w, form.params, skip);
                w.raw(b"}");
            }
            Ask::Url(url) => {
                w.raw(b",\"params\":{");
                if copy_members(w, url.params, &["elicitationId"]) {
                    w.raw(b",");
                }
                w.raw(b"\"elicitationId\":");
                id.write(w);
                w.raw(b"}");
            }
            Ask::Sampling(sampling) => {
                w.raw(b",\"params\":");
                w.value(sampling.params.as_value());
            }
            Ask::Roots(roots) => {
                if let Some(params) = roots.params {
                    w.raw(b",\"params\":");
                    w.value(params.as_value());
                }
            }
        }
        w.raw(b"}");
        Ok(())
    }

    /// Takes the client's `response` to one of this leg's requests: its result is copied
    /// into `store` (bounded by its length) for the retry; its error ends the request.
    pub fn accept<'a>(
        &mut self,
        response: &ClientResponse<'a>,
        store: &mut [u8],
    ) -> Result<Accepted<'a>, AnswerError> {
        let index = BridgeId::from_id(&response.id)
            .and_then(|id| self.owns(id))
            .ok_or(AnswerError::NotThisLeg)?;
        let kind = self.kind(index).ok_or(AnswerError::NotThisLeg)?;
        if self.answers.get(index).is_some_and(Option::is_some) {
            return Err(AnswerError::Duplicate);
        }
        let result = match response.outcome {
            Outcome::Error { code, message } => {
                return Ok(Accepted::Refused {
                    kind,
                    code,
                    message,
                });
            }
            Outcome::Result(result) => result,
        };
        let mut w = Writer::resume(store, self.stored);
        w.value(result.as_value());
        let end = w.position();
        if !w.fits() {
            return Err(AnswerError::StoreFull { required: end });
        }
        if let Some(slot) = self.answers.get_mut(index) {
            *slot = Some(Span {
                start: self.stored,
                end,
            });
        }
        self.stored = end;
        let remaining = self.pending().count();
        Ok(if remaining == 0 {
            Accepted::Complete
        } else {
            Accepted::Waiting { remaining }
        })
    }

    /// Writes the retry the modern handler path consumes: `previous` (the lifted request or
    /// the last retry) with the same id, method and params, `inputResponses` holding every
    /// answer recorded in `store` under its input request's key, and the reply's
    /// `requestState` byte for byte. An unanswered request is left out: the handler finds it
    /// missing and may ask again, within [`BridgeLimits::max_rounds`].
    pub fn write_retry(
        &self,
        previous: &[u8],
        reply: &[u8],
        store: &[u8],
        limits: &BridgeLimits,
        w: &mut Writer<'_>,
    ) -> Result<(), BridgeError> {
        let result = self.reopen(reply, limits)?;
        let request = match crate::rpc::parse(previous, &limits.json) {
            Ok(Incoming::Request(request)) => request,
            _ => return Err(BridgeError::Misuse("the previous request is not a request")),
        };
        write_request_head(w, &request);
        w.raw(b",\"params\":{");
        let mut any = match request.params {
            Some(params) => copy_members(w, params, &["inputResponses", "requestState"]),
            None => false,
        };
        let keys = result
            .get("inputRequests")
            .and_then(|r| r.as_object())
            .into_iter()
            .flatten()
            .map(|(key, _)| key);
        let mut opened = false;
        for (index, key) in keys.enumerate() {
            let Some(Some(span)) = self.answers.get(index).copied() else {
                continue;
            };
            let answer = store
                .get(span.start..span.end)
                .and_then(|bytes| parse(bytes, &limits.json).ok())
                .ok_or(BridgeError::Misuse("the answer store was changed"))?;
            if !opened {
                if any {
                    w.raw(b",");
                }
                w.raw(b"\"inputResponses\":{");
                opened = true;
                any = true;
            } else {
                w.raw(b",");
            }
            w.json_str(key);
            w.raw(b":");
            w.value(answer);
        }
        if opened {
            w.raw(b"}");
        }
        if let Some(state) = result.get("requestState") {
            if any {
                w.raw(b",");
            }
            w.raw(b"\"requestState\":");
            w.value(state);
        }
        w.raw(b"}}");
        Ok(())
    }

    /// The result of `reply`, checked to be the one this leg was opened with.
    fn reopen<'r>(
        &self,
        reply: &'r [u8],
        limits: &BridgeLimits,
    ) -> Result<Object<'r>, BridgeError> {
        if reply.len() != self.reply_len {
            return Err(BridgeError::Misuse("the reply is not the leg's"));
        }
        input_required(reply, &limits.json)
    }
}

fn write_request_head(w: &mut Writer<'_>, request: &Request<'_>) {
    emit::request(w, request.id);
    w.json_str(request.method);
}

/// The result of an `input_required` response.
fn input_required<'r>(reply: &'r [u8], limits: &Limits) -> Result<Object<'r>, BridgeError> {
    let not_input = BridgeError::Misuse("the reply is not an input_required result");
    let root = parse(reply, limits).map_err(|_| not_input)?;
    let result = root
        .get("result")
        .and_then(|r: Value<'r>| r.as_object())
        .ok_or(not_input)?;
    if is_input_required(result) {
        Ok(result)
    } else {
        Err(not_input)
    }
}

/// The input requests of an `input_required` result, each read and checked.
fn input_requests<'r>(
    result: Object<'r>,
) -> impl Iterator<Item = Result<InputRequest<'r>, BridgeError>> + 'r {
    result
        .get("inputRequests")
        .and_then(|r| r.as_object())
        .into_iter()
        .flatten()
        .map(|(key, value)| {
            read_input_request(key, value)
                .map_err(|_| BridgeError::Misuse("the handler's input request is malformed"))
        })
}
