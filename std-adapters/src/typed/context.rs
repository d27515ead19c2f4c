//! What a typed handler sees of its request ([`Cx`]), and how it stops early ([`Stop`]) to
//! ask the client for something ([`Ask`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use snodo_core::json::BufferTooSmall;
use snodo_core::mrtr::{INVALID_STATE, InputRequest};
use snodo_core::server::{Done, Error, Principal, Reply, RequestContext};
use snodo_core::state::OPEN_SCRATCH_LEN;

use super::question::Question;

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
    ) -> Self {
        Cx {
            ctx,
            progress: Some(progress),
        }
    }

    /// The core's view of the request (id, method, raw params, `_meta`, configuration).
    pub fn request(&self) -> &RequestContext<'a> {
        &self.ctx
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

/// Why a handler ends without its final result: it needs input from the client (an
/// `input_required` result), or it failed. `?` turns a core [`Error`] or an [`Ask`] into one.
///
/// ```
/// use snodo_core::server::Error;
/// use snodo_std::typed::{Cx, NoArgs, Stop};
///
/// async fn strict(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
///     Err(Error::invalid_params("not today"))?
/// }
/// ```
#[derive(Debug)]
pub enum Stop {
    /// Answer `input_required` with these requests and state.
    Input(Ask),
    /// Fail with this error.
    Error(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Error(e)
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
/// use snodo_std::typed::{Ask, RootsRequest, Stop};
///
/// static ROOTS: RootsRequest = RootsRequest::new("roots");
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
}

impl Ask {
    /// Nothing asked yet.
    pub fn new() -> Self {
        Ask::default()
    }

    /// Adds `question` under its key.
    #[must_use]
    pub fn question(mut self, question: &impl Question) -> Self {
        self.requests.push((question.key(), question.request()));
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

/// Writes how a handler stopped into `reply`.
pub(crate) fn write_stop<'o, K>(reply: Reply<'o, K>, stop: Stop) -> Result<Done<'o>, Error> {
    match stop {
        Stop::Input(ask) => ask.write(reply),
        Stop::Error(e) => Err(e),
    }
}
