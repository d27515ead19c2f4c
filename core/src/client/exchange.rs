//! One operation across its legs: the first request, each `input_required` answered and
//! retried, until a final result or an error.

use super::answer::{Answer, check_answer};
use super::response::{read_error, read_input_required};
use super::{
    Abort, Answered, ClientConfig, ClientError, InputHandler, InputRequest, InputRequired,
    Operation, Reply,
};
use crate::json::{Object, Writer, parse};
use crate::protocol::{
    ClientCapabilities, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
    PROTOCOL_VERSION,
};
use crate::rpc::emit;

/// Where an exchange stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Phase {
    /// Nothing sent yet, or a version retry is due: write the first request.
    Start,
    /// A request was written; read its response.
    Awaiting,
    /// `input_required` was read: write the retry.
    Retry,
    /// A final result or an error was read; the exchange is over.
    Done,
}

/// The driver of one operation (see the [module docs](super) for the call order).
///
/// It owns no buffer and does no I/O: the caller writes each request into its own buffer,
/// sends it, and hands the response bytes back.
#[derive(Debug)]
pub struct Exchange<'c, 'o> {
    config: &'c ClientConfig<'c>,
    operation: Operation<'o>,
    capabilities: ClientCapabilities,
    phase: Phase,
    /// Requests written for this operation (version retries not counted).
    rounds: u8,
    last_id: Option<i64>,
    version_retried: bool,
    /// A session of the `initialize` era: requests go without the `_meta` envelope.
    legacy: bool,
}

impl<'c, 'o> Exchange<'c, 'o> {
    /// Starts `operation`, declaring `capabilities` on every request: exactly the kinds the
    /// installed handlers answer ([`InputHandler::installed`]).
    pub fn new(
        config: &'c ClientConfig<'c>,
        operation: Operation<'o>,
        capabilities: ClientCapabilities,
    ) -> Self {
        Exchange {
            config,
            operation,
            capabilities,
            phase: Phase::Start,
            rounds: 0,
            last_id: None,
            version_retried: false,
            legacy: false,
        }
    }

    /// Starts `operation` on a session of the `initialize` era (module `client::legacy`, feature `legacy`): the
    /// request carries no `_meta` envelope (only the operation's own `_meta` members, such as
    /// a progress token), since the session's handshake declared the version and the
    /// capabilities. The server sends its requests for input as requests of its own, so a
    /// result is never `input_required` here.
    pub fn legacy(config: &'c ClientConfig<'c>, operation: Operation<'o>) -> Self {
        Exchange {
            legacy: true,
            ..Self::new(config, operation, ClientCapabilities::NONE)
        }
    }

    /// Starts `operation` for `handler`, declaring what it has installed.
    pub fn for_handler(
        config: &'c ClientConfig<'c>,
        operation: Operation<'o>,
        handler: &impl InputHandler,
    ) -> Self {
        Self::new(config, operation, handler.installed())
    }

    /// Where the exchange stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The operation.
    pub fn operation(&self) -> &Operation<'o> {
        &self.operation
    }

    /// The capabilities every request declares.
    pub fn capabilities(&self) -> ClientCapabilities {
        self.capabilities
    }

    /// Requests written so far (the first and its retries).
    pub fn rounds(&self) -> u8 {
        self.rounds
    }

    /// The id of the request awaiting (or last given) a response.
    pub fn last_id(&self) -> Option<i64> {
        self.last_id
    }

    /// Writes the first request with `id` into `out` and returns its length. Also the way to
    /// resend it after [`Reply::VersionRetry`].
    pub fn write_request(&mut self, id: i64, out: &mut [u8]) -> Result<usize, ClientError> {
        if self.phase != Phase::Start {
            return Err(ClientError::Misuse(
                "write_request is for the first request (or a version retry)",
            ));
        }
        self.fresh(id)?;
        let mut w = Writer::new(out);
        self.write(&mut w, id, None);
        let n = w.finish()?;
        if self.rounds == 0 {
            self.rounds = 1;
        }
        self.sent(id);
        Ok(n)
    }

    /// Writes the retry after `input`: a fresh `id`, the same params, `inputResponses` with
    /// one answer per input request (written by `answer`, then checked for shape) and
    /// `requestState` exactly as received. A state-only result needs no answers.
    pub fn write_retry(
        &mut self,
        id: i64,
        input: &InputRequired<'_>,
        out: &mut [u8],
        mut answer: impl FnMut(&InputRequest<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
    ) -> Result<usize, ClientError> {
        if self.phase != Phase::Retry {
            return Err(ClientError::Misuse(
                "write_retry follows an input_required reply",
            ));
        }
        self.fresh(id)?;
        let mut w = Writer::new(out);
        let mut failure = None;
        self.write(
            &mut w,
            id,
            Some(&mut |w: &mut Writer<'_>| {
                if !input.is_empty() {
                    w.raw(b"\"inputResponses\":{");
                    let mut first = true;
                    for request in input.requests() {
                        if !first {
                            w.raw(b",");
                        }
                        first = false;
                        w.json_str(request.key);
                        w.raw(b":");
                        let start = w.position();
                        match answer(&request, Answer::new(w)) {
                            Ok(_answered) => {}
                            Err(abort) => {
                                failure.get_or_insert(ClientError::Aborted {
                                    kind: request.kind(),
                                    reason: abort.reason,
                                });
                            }
                        }
                        if let Some(written) = w.written_since(start) {
                            if failure.is_none() && !check_answer(&request, written) {
                                failure = Some(ClientError::InvalidAnswer(request.kind()));
                            }
                        }
                    }
                    w.raw(b"},");
                }
                if let Some(state) = input.request_state_raw() {
                    w.raw(b"\"requestState\":");
                    w.raw(state);
                    w.raw(b",");
                }
            }),
        );
        if let Some(failure) = failure {
            return Err(failure);
        }
        let n = w.finish()?;
        self.rounds = self.rounds.saturating_add(1);
        self.sent(id);
        Ok(n)
    }

    /// Writes the retry after `input`, answering through `handler`.
    pub fn write_retry_with(
        &mut self,
        id: i64,
        input: &InputRequired<'_>,
        out: &mut [u8],
        handler: &mut (impl InputHandler + ?Sized),
    ) -> Result<usize, ClientError> {
        self.write_retry(id, input, out, |request, answer| {
            super::handler::dispatch(handler, request, answer)
        })
    }

    /// Reads the response to the request last written.
    ///
    /// Errors are failures of the exchange itself (a malformed response or input request, a
    /// missing handler, exhausted rounds, an unknown result type); a JSON-RPC error from the
    /// server is [`Reply::Error`]. After [`Reply::Complete`] and [`Reply::Error`], and after
    /// any error, the exchange is over.
    pub fn read_response<'r>(&mut self, response: &'r [u8]) -> Result<Reply<'r>, ClientError> {
        if self.phase != Phase::Awaiting {
            return Err(ClientError::Misuse(
                "read_response follows a written request",
            ));
        }
        self.phase = Phase::Done;
        let reply = self.read(response)?;
        self.phase = match reply {
            Reply::InputRequired(_) => Phase::Retry,
            Reply::VersionRetry => Phase::Start,
            Reply::Complete(_) | Reply::Task(_) | Reply::Error(_) => Phase::Done,
        };
        Ok(reply)
    }

    fn read<'r>(&mut self, response: &'r [u8]) -> Result<Reply<'r>, ClientError> {
        let malformed = |reason| ClientError::MalformedResponse { reason };
        let root = parse(response, &self.config.limits)
            .map_err(|_| malformed("not JSON within the configured limits"))?;
        let message = root
            .as_object()
            .ok_or(malformed("a response must be a JSON object"))?;
        let version_ok = message
            .get("jsonrpc")
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.eq_str("2.0"));
        if !version_ok {
            return Err(malformed("jsonrpc must be \"2.0\""));
        }
        let id = message.get("id");
        let ours = id
            .and_then(|id| id.as_i64())
            .is_some_and(|id| Some(id) == self.last_id);
        match (message.get("result"), message.get("error")) {
            (Some(_), Some(_)) => Err(malformed("a response has a result or an error, not both")),
            (None, None) => Err(malformed("a response needs a result or an error")),
            (None, Some(error)) => {
                // An error may carry a null id when the server could not read the request.
                if !ours && !id.is_some_and(|id| id.is_null()) {
                    return Err(malformed("the response id is not the request's"));
                }
                let error = read_error(error)?;
                let ours_listed = error
                    .supported_versions()
                    .any(|v| v.eq_str(PROTOCOL_VERSION));
                if error.code == -32022 && ours_listed && self.may_retry_version() {
                    self.version_retried = true;
                    return Ok(Reply::VersionRetry);
                }
                Ok(Reply::Error(error))
            }
            (Some(result), None) => {
                if !ours {
                    return Err(malformed("the response id is not the request's"));
                }
                let result = result
                    .as_object()
                    .ok_or(malformed("result must be an object"))?;
                self.read_result(result)
            }
        }
    }

    fn read_result<'r>(&self, result: Object<'r>) -> Result<Reply<'r>, ClientError> {
        let Some(kind) = result.get("resultType") else {
            // Servers before 2026-07-28 send no resultType: the result is complete.
            return Ok(Reply::Complete(result));
        };
        let kind = kind.as_str().ok_or(ClientError::MalformedResponse {
            reason: "resultType must be a string",
        })?;
        if kind.eq_str("complete") {
            return Ok(Reply::Complete(result));
        }
        let tasks = self.capabilities.contains(ClientCapabilities::TASKS);
        if kind.eq_str("task") && tasks && !self.legacy {
            return Ok(Reply::Task(result));
        }
        if !kind.eq_str("input_required") {
            return Err(ClientError::UnknownResultType);
        }
        if self.legacy {
            return Err(ClientError::MalformedResponse {
                reason: "input_required is not part of the initialize era",
            });
        }
        if !self.operation.allows_input_required() {
            return Err(ClientError::MalformedResponse {
                reason: "input_required is only allowed for tools/call, resources/read and prompts/get",
            });
        }
        let input = read_input_required(result, self.capabilities)?;
        if self.rounds >= self.config.max_rounds {
            return Err(ClientError::ExhaustedRounds {
                rounds: self.rounds,
            });
        }
        Ok(Reply::InputRequired(input))
    }

    /// A version retry resends the first request, so it is offered for the first leg only,
    /// and once.
    fn may_retry_version(&self) -> bool {
        !self.legacy && !self.version_retried && self.rounds <= 1
    }

    fn fresh(&self, id: i64) -> Result<(), ClientError> {
        if self.last_id == Some(id) {
            return Err(ClientError::Misuse(
                "every request needs a fresh id: this one was just used",
            ));
        }
        Ok(())
    }

    fn sent(&mut self, id: i64) {
        self.last_id = Some(id);
        self.phase = Phase::Awaiting;
    }

    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":{<operation>,<retry members>"_meta":{…}}}`.
    /// `retry` writes its members each followed by a comma.
    fn write(&self, w: &mut Writer<'_>, id: i64, retry: Option<&mut dyn FnMut(&mut Writer<'_>)>) {
        emit::request(w, id);
        self.operation.write_method(w);
        w.raw(b",\"params\":{");
        let mut o = crate::json::ObjectWriter::continuing(w, true);
        self.operation.write_members(&mut o);
        // A legacy request has no envelope: `_meta` only for the operation's own members.
        let has_meta = !self.legacy || self.operation.has_meta();
        if o.wrote_any() && (has_meta || retry.is_some()) {
            w.raw(b",");
        }
        if let Some(retry) = retry {
            retry(w);
        }
        if self.legacy {
            if has_meta {
                w.raw(b"\"_meta\":{");
                let mut meta = crate::json::ObjectWriter::continuing(w, true);
                self.operation.write_meta(&mut meta);
                w.raw(b"}");
            }
            w.raw(b"}}");
            return;
        }
        w.raw(b"\"_meta\":{");
        let mut meta = crate::json::ObjectWriter::continuing(w, true);
        meta.str(META_PROTOCOL_VERSION, PROTOCOL_VERSION);
        self.config.info.write(meta.key(META_CLIENT_INFO));
        self.capabilities.write(meta.key(META_CLIENT_CAPABILITIES));
        self.operation.write_meta(&mut meta);
        w.raw(b"}}}");
    }
}
