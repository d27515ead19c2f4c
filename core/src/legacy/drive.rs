//! One request of a legacy session, driven to its final reply in one place: lifted into the
//! 2026-07-28 shape, run, settled, and each `input_required` bridged to the client and
//! retried with the answers. [`drive`] owns the round; a transport only implements [`Link`]
//! (run a modern round, reach the client, wait for its answers with its timers and
//! cancellation) and [`Scratch`] (the buffers).
//!
//! When the wait ends early (a timeout, the client's cancellation, an error answer), the
//! bridged requests still open are cancelled with `notifications/cancelled`. Errors end the
//! client's request with -32603 ([`BridgeError::write_error`], [`write_refused`]): 2026 codes
//! mean nothing to a legacy client.

use core::future::Future;

use super::bridge::{
    Accepted, AnswerError, BridgeError, BridgeId, BridgeLimits, Leg, write_cancelled, write_refused,
};
use super::lift::lift_request;
use super::lower::{Settled, settle};
use super::response::ClientAnswer;
use super::session::Session;
use crate::json::{BufferTooSmall, Writer};
use crate::rpc::{self, ErrorCode, Id, Request};

/// Most input requests one `input_required` result may hold.
pub const MAX_INPUTS: usize = 8;

/// The link is gone (the connection closed, the stream was dropped): nothing more can reach
/// the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LinkClosed;

/// Too many bridged requests of the session wait for answers already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WaitsFull;

/// What a wait for the client's next answer came to.
#[derive(Debug)]
pub enum Next<A> {
    /// A whole JSON-RPC response of the client to one of the awaited requests.
    Answer(A),
    /// The client cancelled its request.
    Cancelled,
    /// No answer came within the transport's wait.
    TimedOut,
    /// No answer can come any more (the session or the client's input ended).
    Gone,
}

/// What a transport gives [`drive`] for one request of a legacy session.
pub trait Link {
    /// A client's answer, as the transport holds it (best read where it arrived:
    /// [`ReadAnswer`](super::ReadAnswer)).
    type Answer: ClientAnswer;

    /// The session as it is now (each leg lifts with the latest log level).
    fn session(&self) -> Session;

    /// Changes the session (a leg takes its bridge ids); concurrent requests share it.
    fn update_session<R>(&mut self, change: impl FnOnce(&mut Session) -> R) -> R;

    /// Runs the 2026-07-28 `request`, its reply written into `out`: the reply's length, or
    /// `None` when the client cancelled first (nothing is sent).
    fn run(&mut self, request: &[u8], out: &mut [u8]) -> impl Future<Output = Option<usize>>;

    /// Waits from now on for the answers to the bridged requests `ids` (and no others).
    fn expect(&mut self, ids: &[BridgeId]) -> Result<(), WaitsFull>;

    /// Sends one message to the client, waiting for room.
    fn send(&mut self, message: &[u8]) -> impl Future<Output = Result<(), LinkClosed>>;

    /// The next answer to a request [`Link::expect`] named, or why none comes.
    fn next_answer(&mut self) -> impl Future<Output = Next<Self::Answer>>;

    /// The request starts (`true`) or stops (`false`) waiting for the client's answers: a
    /// transport whose every running request waits knows only the client can go on.
    fn waiting(&mut self, waiting: bool) {
        let _ = waiting;
    }
}

/// The buffers [`drive`] works in, borrowed at once.
#[derive(Debug)]
pub struct Parts<'s> {
    /// The request the next round runs and the retry being written, by turns.
    pub requests: [&'s mut [u8]; 2],
    /// The modern round's reply.
    pub modern: &'s mut [u8],
    /// The legacy reply, and each bridged request on its way out.
    pub reply: &'s mut [u8],
    /// The answers of the current leg.
    pub store: &'s mut [u8],
}

/// One of the [`Parts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Part {
    /// `requests[i]`.
    Request(usize),
    /// `modern`.
    Modern,
    /// `reply`.
    Reply,
    /// `store`.
    Store,
}

/// The caller's buffers for [`drive`].
pub trait Scratch {
    /// Every buffer at once.
    fn parts(&mut self) -> Parts<'_>;

    /// Makes `part` at least `required` bytes long; whether it is now. A fixed buffer says
    /// `false` (the request then ends with an error).
    fn grow(&mut self, part: Part, required: usize) -> bool {
        let _ = (part, required);
        false
    }

    /// `part` is about to be written whole (the modern round's reply, which cannot grow
    /// halfway through a handler): a scratch that holds it short makes it full size here.
    fn lend(&mut self, part: Part) {
        let _ = part;
    }

    /// Only the first `len` bytes of `part` are read from now on, until it is lent or grown
    /// again: a scratch may give the rest back, so that a request waiting for the client's
    /// answers holds only what its retry needs.
    fn keep(&mut self, part: Part, len: usize) {
        let _ = (part, len);
    }
}

/// How one request of a legacy session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bridged {
    /// Send the first `len` bytes of [`Parts::reply`].
    Reply(usize),
    /// The client cancelled the request: send nothing.
    Cancelled,
    /// The link closed: no one is left to answer.
    Closed,
}

/// Serves `request` (a [`Step::Modern`](super::Step::Modern) request of the session `link`
/// keeps) to its final reply in `scratch`; see the module doc.
pub async fn drive<L: Link, S: Scratch>(
    link: &mut L,
    scratch: &mut S,
    limits: &BridgeLimits,
    request: &Request<'_>,
) -> Bridged {
    let id = request.id;
    let session = link.session();
    // The request's own members and the session's envelope (its client name and version
    // are bounded): the usual size of the lifted request.
    let params = request.params.map_or(0, |p| p.as_value().raw().len());
    let expected = params + request.method.raw().len() + LIFT_ROOM;
    let lifted = grown_from(scratch, Part::Request(0), expected, |p| {
        let mut w = Writer::new(p.requests[0]);
        lift_request(request, &session, &mut w);
        w.finish()
    });
    let Ok(lifted) = lifted else {
        return reply_error(scratch, id, "The request exceeds the server's buffers");
    };
    let mut current = 0;
    let mut lens = [lifted, 0];
    let mut round = 0u8;
    loop {
        scratch.lend(Part::Modern);
        let Parts {
            requests, modern, ..
        } = scratch.parts();
        let Some(len) = link.run(&requests[current][..lens[current]], modern).await else {
            return Bridged::Cancelled;
        };
        let len = len.min(scratch.parts().modern.len());
        // Lowering drops members: the legacy reply is no longer than the modern one (but for
        // an error naming missing capabilities, which grows once).
        let settled = grown_from(scratch, Part::Reply, len, |p| {
            let mut w = Writer::new(p.reply);
            match settle(&p.modern[..len], &limits.json, &mut w) {
                Ok(Settled::Final) => w.finish().map(|len| Ok(Some(len))),
                Ok(Settled::InputRequired) => Ok(Ok(None)),
                Err(e) => Ok(Err(e)),
            }
        });
        match settled {
            Ok(Ok(Some(len))) => return Bridged::Reply(len),
            Ok(Ok(None)) => {}
            Ok(Err(_)) => return reply_error(scratch, id, "The handler's reply could not be read"),
            Err(_) => return reply_error(scratch, id, "The response exceeds the output buffer"),
        }
        // Waiting from here on: only the `input_required` result is read again.
        scratch.keep(Part::Modern, len);
        let Parts { modern, .. } = scratch.parts();
        // Past 255 legs `Leg::open` sees the bound too (`max_rounds` is a `u8`).
        round = round.saturating_add(1);
        let opened =
            link.update_session(|s| Leg::<MAX_INPUTS>::open(&modern[..len], s, limits, round));
        let leg = match opened {
            Ok(leg) => leg,
            Err(e) => return reply_bridge_error(scratch, id, e),
        };
        // The lifecycle's SHOULD NOT: no request to the client before it said it is ready.
        if !link.session().initialized() {
            return reply_with(scratch, |w| {
                rpc::write_error(
                    w,
                    Some(id),
                    ErrorCode::INVALID_REQUEST,
                    NOT_INITIALIZED,
                    None,
                );
            });
        }
        link.waiting(true);
        let gathered = gather(link, scratch, limits, leg, len, id).await;
        link.waiting(false);
        let leg = match gathered {
            Ok(leg) => leg,
            Err(end) => return end,
        };
        let previous_len = lens[current];
        let next = 1 - current;
        let retry = grown(scratch, Part::Request(next), |p| {
            let [a, b] = &mut p.requests;
            let (previous, out) = if next == 1 {
                (&**a, &mut **b)
            } else {
                (&**b, &mut **a)
            };
            let previous = &previous[..previous_len.min(previous.len())];
            let mut w = Writer::new(out);
            match leg.write_retry(previous, &p.modern[..len], p.store, limits, &mut w) {
                Ok(()) => w.finish().map(Ok),
                Err(e) => Ok(Err(e)),
            }
        });
        match retry {
            Ok(Ok(retry_len)) => {
                lens[next] = retry_len;
                current = next;
            }
            Ok(Err(e)) => return reply_bridge_error(scratch, id, e),
            Err(_) => return reply_error(scratch, id, "The retry exceeds the server's buffers"),
        }
    }
}

/// Writes with `write`; when `part` is too small, grows it once to the size the write needs
/// and writes again.
fn grown<S: Scratch, T>(
    scratch: &mut S,
    part: Part,
    write: impl FnMut(&mut Parts<'_>) -> Result<T, BufferTooSmall>,
) -> Result<T, BufferTooSmall> {
    grown_from(scratch, part, 0, write)
}

/// [`grown`], with `part` first grown to `expected` bytes (what the write is likely to take),
/// so a scratch that starts empty writes once rather than twice. A fixed scratch ignores it.
fn grown_from<S: Scratch, T>(
    scratch: &mut S,
    part: Part,
    expected: usize,
    mut write: impl FnMut(&mut Parts<'_>) -> Result<T, BufferTooSmall>,
) -> Result<T, BufferTooSmall> {
    if expected > part_len(&mut scratch.parts(), part) {
        let _ = scratch.grow(part, expected);
    }
    match write(&mut scratch.parts()) {
        Err(too_small) if scratch.grow(part, too_small.required) => write(&mut scratch.parts()),
        done => done,
    }
}

/// Sends the leg's input requests and gathers their answers into the store: the completed
/// leg, or how the request ended (its error reply written).
async fn gather<L: Link, S: Scratch>(
    link: &mut L,
    scratch: &mut S,
    limits: &BridgeLimits,
    mut leg: Leg<MAX_INPUTS>,
    len: usize,
    id: Id<'_>,
) -> Result<Leg<MAX_INPUTS>, Bridged> {
    let mut ids = [BridgeId(0); MAX_INPUTS];
    let mut count = 0;
    for (index, slot) in ids.iter_mut().enumerate().take(leg.len()) {
        let Some(bridge_id) = leg.id(index) else {
            break;
        };
        *slot = bridge_id;
        count = index + 1;
    }
    if link.expect(&ids[..count]).is_err() {
        return Err(reply_error(
            scratch,
            id,
            "Too many requests wait for the client's answers: try again later",
        ));
    }
    for index in 0..leg.len() {
        let written = grown(scratch, Part::Reply, |p| {
            let mut w = Writer::new(p.reply);
            match leg.write_request(index, &p.modern[..len], limits, &mut w) {
                Ok(()) => w.finish().map(Ok),
                Err(e) => Ok(Err(e)),
            }
        });
        let sent = match written {
            Ok(Ok(message_len)) => link.send(&scratch.parts().reply[..message_len]).await,
            Ok(Err(e)) => return Err(reply_bridge_error(scratch, id, e)),
            Err(_) => {
                let misuse = BridgeError::Misuse("a bridged request exceeds the buffer");
                return Err(reply_bridge_error(scratch, id, misuse));
            }
        };
        if sent.is_err() {
            return Err(Bridged::Closed);
        }
    }
    // Sent: the reply buffer is not read again while the request waits.
    scratch.keep(Part::Reply, 0);
    while !leg.is_complete() {
        let mut refused = None;
        let (ended, reason) = match link.next_answer().await {
            Next::Answer(answer) => match take_answer(&mut leg, &answer, scratch, limits, id) {
                Taken::Recorded => continue,
                Taken::Refused(bridge_id, ended) => {
                    refused = Some(bridge_id);
                    (ended, "The request ended")
                }
                Taken::Ended(ended) => (ended, "The request ended"),
            },
            Next::Cancelled => (Bridged::Cancelled, "The request was cancelled"),
            Next::Gone => (
                reply_error(
                    scratch,
                    id,
                    "The client can no longer answer the server's request",
                ),
                "The session ended",
            ),
            Next::TimedOut => (
                reply_bridge_error(scratch, id, BridgeError::TimedOut),
                "No answer in time",
            ),
        };
        return Err(match cancel_pending(link, &leg, refused, reason).await {
            Ok(()) => ended,
            Err(LinkClosed) => Bridged::Closed,
        });
    }
    Ok(leg)
}

/// The error a request that needs the client's input ends with when the client has not sent
/// `notifications/initialized` yet.
const NOT_INITIALIZED: &str = "The server needs the client's input for this request, and may \
                               not ask before notifications/initialized: send it, then call \
                               again";

/// The error a request ends with when the client's answer to its bridged request is not a
/// response the server can use.
const MALFORMED_ANSWER: &str = "The client's answer to the server's request is not a valid \
                                response: its result must be an object, its error an integer \
                                code and a string message";

/// What one answer did.
enum Taken {
    /// Recorded (or ignored): wait on.
    Recorded,
    /// The client answered the bridged request with an error: the request ends (its error
    /// reply written); the refused request needs no cancellation.
    Refused(BridgeId, Bridged),
    /// The request ends (its error reply written).
    Ended(Bridged),
}

/// Records one answer in the leg.
fn take_answer<S: Scratch>(
    leg: &mut Leg<MAX_INPUTS>,
    answer: &impl ClientAnswer,
    scratch: &mut S,
    limits: &BridgeLimits,
    id: Id<'_>,
) -> Taken {
    let Ok(response) = answer.response(&limits.json) else {
        // Answered, but not usably: the request ends now rather than at the wait's timeout.
        let ended = reply_with(scratch, |w| {
            rpc::write_error(
                w,
                Some(id),
                ErrorCode::INVALID_PARAMS,
                MALFORMED_ANSWER,
                None,
            );
        });
        return match answer.bridge_id() {
            Some(bridge_id) => Taken::Refused(bridge_id, ended),
            None => Taken::Ended(ended),
        };
    };
    let mut accepted = leg.accept(&response, scratch.parts().store);
    if let Err(AnswerError::StoreFull { required }) = accepted {
        if scratch.grow(Part::Store, required) {
            accepted = leg.accept(&response, scratch.parts().store);
        }
    }
    match accepted {
        Ok(Accepted::Waiting { .. } | Accepted::Complete) => Taken::Recorded,
        Ok(Accepted::Refused {
            kind,
            code,
            message,
        }) => {
            let ended = reply_with(scratch, |w| write_refused(w, id, kind, code, message));
            match BridgeId::from_id(&response.id) {
                Some(bridge_id) => Taken::Refused(bridge_id, ended),
                None => Taken::Ended(ended),
            }
        }
        // Routed by id and removed once answered, so neither happens; ignoring is safe.
        Err(AnswerError::NotThisLeg | AnswerError::Duplicate) => Taken::Recorded,
        Err(AnswerError::StoreFull { .. }) => Taken::Ended(reply_error(
            scratch,
            id,
            "The client's answers are larger than the server accepts",
        )),
    }
}

/// Sends `notifications/cancelled` for each of the leg's requests still waiting, but the
/// one the client `refused` (it is answered).
async fn cancel_pending<L: Link>(
    link: &mut L,
    leg: &Leg<MAX_INPUTS>,
    refused: Option<BridgeId>,
    reason: &str,
) -> Result<(), LinkClosed> {
    for id in leg.pending().filter(|&id| Some(id) != refused) {
        // A bridge id of at most 35 bytes and a short reason.
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        write_cancelled(&mut w, id, reason);
        if let Ok(len) = w.finish() {
            link.send(&buf[..len]).await?;
        }
    }
    Ok(())
}

/// Ends the request `id` with a -32603 error saying `message`.
fn reply_error<S: Scratch>(scratch: &mut S, id: Id<'_>, message: &str) -> Bridged {
    reply_with(scratch, |w| {
        rpc::write_error(w, Some(id), ErrorCode::INTERNAL_ERROR, message, None);
    })
}

/// Ends the request `id` with the error of a bridge failure.
fn reply_bridge_error<S: Scratch>(scratch: &mut S, id: Id<'_>, error: BridgeError) -> Bridged {
    reply_with(scratch, |w| error.write_error(w, id))
}

/// The length of `part` in `parts`.
fn part_len(parts: &mut Parts<'_>, part: Part) -> usize {
    match part {
        Part::Request(n) => parts.requests.get(n).map_or(0, |r| r.len()),
        Part::Modern => parts.modern.len(),
        Part::Reply => parts.reply.len(),
        Part::Store => parts.store.len(),
    }
}

/// Room a lifted request takes beyond the request's params and method: the envelope's keys
/// and version, the client's name and version, a log level, the id, the frame.
const LIFT_ROOM: usize = 384 + super::MAX_CLIENT_NAME + super::MAX_CLIENT_VERSION;

/// Writes the reply into [`Parts::reply`] (grown when it must be). A reply that does not fit
/// even so ends the request with nothing to send but the link's end.
fn reply_with<S: Scratch>(scratch: &mut S, mut write: impl FnMut(&mut Writer<'_>)) -> Bridged {
    let written = grown(scratch, Part::Reply, |p| {
        let mut w = Writer::new(p.reply);
        write(&mut w);
        w.finish()
    });
    written.map_or(Bridged::Closed, Bridged::Reply)
}
