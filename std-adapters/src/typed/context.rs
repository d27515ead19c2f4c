//! What a typed handler sees of its request ([`Cx`]), and how it stops early ([`Stop`]) to
//! ask the client for something ([`Ask`]).

use std::any::Any;
use std::error::Error as StdError;

use serde::Serialize;
use serde::de::DeserializeOwned;
use snodo_core::json::BufferTooSmall;
use snodo_core::mrtr::InputRequest;
use snodo_core::server::{Done, Error, INVALID_STATE, Principal, Reply, RequestContext};
use snodo_core::state::OPEN_SCRATCH_LEN;

use super::once::Once;
use super::output::ToolError;
use super::question::Question;
use super::shared::Shared;

/// Where a handler's progress notifications go (the reply being written, erased).
pub(crate) trait ProgressSink {
    fn progress(
        &mut self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), BufferTooSmall>;
}

impl<K> ProgressSink for Reply<'_, K> {
    fn progress(
        &mut self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), BufferTooSmall> {
        Reply::progress(self, progress, total, message)
    }
}

/// The request a typed handler serves: who asks and when, the client's answers, the sealed
/// state, and progress. The same for tools, resources and prompts.
///
/// ```
/// use snodo_std::typed::{Cx, NoArgs, Stop};
///
/// async fn whoami(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
///     Ok(format!("{:?} at {}", cx.principal(), cx.now()))
/// }
/// ```
pub struct Cx<'a> {
    ctx: RequestContext<'a>,
    progress: Option<&'a mut (dyn ProgressSink + Send + 'a)>,
    shared: &'a Shared,
}

impl std::fmt::Debug for Cx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx")
            .field("ctx", &self.ctx)
            .finish_non_exhaustive()
    }
}

impl<'a> Cx<'a> {
    pub(crate) fn new(
        ctx: RequestContext<'a>,
        progress: &'a mut (dyn ProgressSink + Send + 'a),
        shared: &'a Shared,
    ) -> Self {
        Cx {
            ctx,
            progress: Some(progress),
            shared,
        }
    }

    /// The application's value of type `T`, given to the server with
    /// [`ServerBuilder::data`](super::ServerBuilder::data): a store, a client, a
    /// configuration. It lives as long as the request, not the borrow of `self`, so it can
    /// be taken before the context goes into a [`Flow`](super::Flow). A type the server was
    /// not given is -32603, which names no type.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use snodo_std::typed::{Cx, NoArgs, Stop};
    ///
    /// struct Visits(Mutex<u64>);
    ///
    /// async fn visit(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    ///     let visits = cx.data::<Visits>()?;
    ///     let mut n = visits.0.lock().expect("not poisoned");
    ///     *n += 1;
    ///     Ok(format!("visit {n}"))
    /// }
    /// ```
    pub fn data<T: Send + Sync + 'static>(&self) -> Result<&'a T, Error> {
        let shared: &'a Shared = self.shared;
        shared.get::<T>().ok_or(NO_DATA)
    }

    /// The core's view of the request (id, method, raw params, `_meta`, configuration).
    pub fn request(&self) -> &RequestContext<'a> {
        &self.ctx
    }

    /// Whether this call runs as a task's work (the tool supports tasks and the request
    /// declared the extension): the client polls `tasks/get` instead of waiting.
    pub fn in_task(&self) -> bool {
        self.ctx.task_phase() == snodo_core::tasks::TaskPhase::Running
    }

    /// The task this call runs as, when it runs as one: it sets the task's
    /// `statusMessage` and sees a cancellation (after which, past the host's grace, this
    /// future is dropped). Take it before the context goes into a
    /// [`Flow`](super::Flow).
    pub fn task(&self) -> Option<crate::tasks::TaskContext> {
        self.in_task()
            .then(crate::tasks::TaskContext::current)
            .flatten()
    }

    /// The authenticated caller (sealed state is bound to it).
    pub fn principal(&self) -> Principal<'a> {
        self.ctx.principal()
    }

    /// The round's time, in Unix seconds.
    pub fn now(&self) -> u64 {
        self.ctx.now()
    }

    /// Whether this request's client declared what answering `question` needs.
    pub fn client_supports(&self, question: &impl Question) -> bool {
        question
            .request()
            .is_ok_and(|r| self.ctx.client_capabilities().contains(r.needs()))
    }

    /// The client's answer to `question` in this request: `None` when it sent none, the
    /// generic -32602 (which echoes nothing) when it does not fit. Any answer is taken, asked
    /// for or not; [`Flow::ask`](super::Flow::ask) takes only what the last round asked.
    pub fn answer<Q: Question>(&self, question: &Q) -> Result<Option<Q::Answer>, Error> {
        question.read(&self.ctx)
    }

    /// Opens the sealed state this request carries and decodes it: `None` on a first call.
    /// A token that does not open for this request (other method, arguments or principal,
    /// expired, tampered) or does not decode into `S` is the one -32602 "Invalid request
    /// state".
    pub fn state<S: DeserializeOwned>(&self) -> Result<Option<S>, Error> {
        self.open_with(|bytes| serde_json::from_slice(bytes).ok())
    }

    /// Whether this is the first use of the request's sealed token, recording it as used
    /// (see [`Once`]): the guard for a leg's effect that must not repeat when the same
    /// `requestState` is sent again. A request without state is always [`Once::First`]:
    /// at-most-once is per token, and two calls are two calls. State that does not open is
    /// the one -32602 "Invalid request state"; a full record is -32603 and the effect must
    /// not run.
    pub fn once(&self) -> Result<Once, Error> {
        if self.ctx.request_state().is_some() {
            self.open_with(|_| Some(()))?;
        }
        self.consume()
    }

    /// [`Cx::once`] for a token already opened (by [`Flow::open`](super::Flow::open)).
    pub(crate) fn consume(&self) -> Result<Once, Error> {
        use sha2::Digest;
        let Some(token) = self.ctx.request_state() else {
            return Ok(Once::First);
        };
        // The decoded characters, so that a JSON escape does not make a replay look new.
        let mut digest = sha2::Sha256::new();
        let mut utf8 = [0u8; 4];
        for c in token.chars() {
            digest.update(c.encode_utf8(&mut utf8).as_bytes());
        }
        let ttl = self.ctx.config().state.map_or(0, |o| o.ttl().as_secs());
        let now = self.now();
        let first = self
            .shared
            .guard()
            .consume(digest.finalize().into(), now.saturating_add(ttl), now)
            .map_err(|_| GUARD_FULL)?;
        Ok(if first { Once::First } else { Once::Replayed })
    }

    pub(crate) fn open_with<T>(
        &self,
        decode: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Result<Option<T>, Error> {
        let mut scratch = [0u8; OPEN_SCRATCH_LEN];
        match self.ctx.open_state(&mut scratch)? {
            None => Ok(None),
            Some(data) => decode(data.raw()).map(Some).ok_or(INVALID_STATE),
        }
    }

    /// Sends `notifications/progress` when the client asked for progress (otherwise does
    /// nothing).
    pub fn progress(
        &mut self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), Error> {
        match self.progress.as_mut() {
            Some(sink) => sink
                .progress(progress, total, message)
                .map_err(|_| Error::internal("progress does not fit in the output buffer")),
            None => Ok(()),
        }
    }
}

/// The record of one-time tokens is full.
const GUARD_FULL: Error =
    Error::internal("too many one-time effects are pending; retry in a few minutes");

/// A type the server was not given with `data`.
const NO_DATA: Error = Error::internal("the server was not given the data this handler uses");

/// Why a handler ends without its final result. `?` makes one from anything that can stop
/// it:
///
/// - an [`Ask`] (from [`Flow::ask`](super::Flow::ask)): answer `input_required`;
/// - a [`ToolError`]: a tool error result (`isError: true`) with its text, which the model
///   reads. This is the way to fail a tool on purpose;
/// - a core [`Error`] (`Error::invalid_params(..)`): that JSON-RPC error, for any method;
/// - any other error (`std::io::Error`, `serde_json::Error`, your own): a failure, logged at
///   `warn` with the error and told to the client as a fixed sentence that shows nothing of
///   it, unless the server says otherwise with
///   [`ServerBuilder::failure_message`](super::ServerBuilder::failure_message). A tool
///   answers it as a tool error result, a resource or prompt as -32603.
///
/// ```
/// use snodo_std::typed::{Cx, Error, NoArgs, Stop, ToolError};
///
/// async fn read_config(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
///     Ok(std::fs::read_to_string("/nonexistent/app.toml")?)
/// }
///
/// async fn divide(args: (i64, i64), _cx: Cx<'_>) -> Result<String, Stop> {
///     if args.1 == 0 {
///         return Err(ToolError::new(format!("cannot divide {} by zero", args.0)).into());
///     }
///     Ok((args.0 / args.1).to_string())
/// }
///
/// async fn strict(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
///     Err(Error::invalid_params("not today"))?
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Stop {
    /// Answer `input_required` with these requests and state.
    Input(Ask),
    /// Fail with this JSON-RPC error.
    Error(Error),
    /// Fail the tool with this error result.
    Tool(ToolError),
    /// An application error: logged, and told to the client as the server's policy says.
    Failed(Box<dyn StdError + Send + Sync>),
}

impl Stop {
    /// A failure from an error that is not `std::error::Error` itself, such as an
    /// `anyhow::Error` or a `Box<dyn Error>`.
    pub fn failed(error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        Stop::Failed(error.into())
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for Stop {
    fn from(e: E) -> Self {
        let any: &dyn Any = &e;
        if let Some(rpc) = any.downcast_ref::<Error>() {
            return Stop::Error(*rpc);
        }
        if let Some(tool) = any.downcast_ref::<ToolError>() {
            return Stop::Tool(tool.clone());
        }
        Stop::Failed(Box::new(e))
    }
}

impl From<Ask> for Stop {
    fn from(ask: Ask) -> Self {
        Stop::Input(ask)
    }
}

/// An `input_required` result being put together: input requests, then state (sealed by the
/// framework with the call's binding: method, salient params and principal) or none.
///
/// ```
/// use serde::Serialize;
/// use snodo_std::typed::{questions, Ask, RootsRequest, Stop};
///
/// questions! {
///     static ROOTS: RootsRequest = RootsRequest::new("roots");
/// }
///
/// #[derive(Serialize)]
/// struct Progress { step: u32 }
///
/// let stop: Stop = Ask::new().question(&ROOTS).seal(&Progress { step: 1 }).into();
/// assert!(matches!(stop, Stop::Input(_)));
/// ```
#[derive(Debug, Default)]
pub struct Ask {
    requests: Vec<(&'static str, Result<InputRequest<'static>, Error>)>,
    state: Option<Result<Vec<u8>, Error>>,
    /// What is wrong with questions that do not build, for the log.
    invalid: Vec<String>,
}

impl Ask {
    /// Nothing asked yet.
    pub fn new() -> Self {
        Ask::default()
    }

    /// Adds `question` under its key.
    #[must_use]
    pub fn question(mut self, question: &impl Question) -> Self {
        let request = question.request();
        if request.is_err() {
            self.invalid.extend(question.problem());
        }
        self.requests.push((question.key(), request));
        self
    }

    /// Carries `state`, sealed (at most `snodo_core::state::MAX_DATA_LEN` bytes of JSON).
    #[must_use]
    pub fn seal(mut self, state: &impl Serialize) -> Self {
        self.state = Some(
            serde_json::to_vec(state)
                .map_err(|_| Error::internal("the state does not serialize to JSON")),
        );
        self
    }

    pub(crate) fn seal_bytes(mut self, state: Result<Vec<u8>, Error>) -> Self {
        self.state = Some(state);
        self
    }

    /// Writes the `input_required` result into `reply`.
    pub(crate) fn write<'o, K>(self, reply: Reply<'o, K>) -> Result<Done<'o>, Error> {
        let mut result = reply.input_required();
        for (key, request) in self.requests {
            result = result.request(key, request?);
        }
        match self.state {
            Some(data) => result.seal(&data?),
            None => Ok(result.done()),
        }
    }
}

/// Writes how the handler of `what` (a tool's name, a resource's URI, a prompt's name)
/// stopped into `reply`; `fail` writes a failure's message as the reply's kind of error.
pub(crate) fn write_stop<'o, K>(
    reply: Reply<'o, K>,
    stop: Stop,
    shared: &Shared,
    what: &dyn std::fmt::Display,
    fail: impl FnOnce(Reply<'o, K>, &str) -> Done<'o>,
) -> Result<Done<'o>, Error> {
    match stop {
        Stop::Input(ask) => {
            for problem in &ask.invalid {
                tracing::error!(
                    handler = %what,
                    "{problem} (declare it with `.asks()` to have it refused when the server \
                     is built)"
                );
            }
            ask.write(reply)
        }
        Stop::Error(e) => Err(e),
        Stop::Tool(e) => Ok(fail(reply, e.text())),
        Stop::Failed(e) => {
            tracing::warn!(handler = %what, error = %e, "a handler failed");
            Ok(fail(reply, &shared.describe(&*e)))
        }
    }
}
