//! The round from bytes in to bytes out, driven in one place: [`Server::drive`] for the host
//! adapters' asynchronous rounds (a caller only says how the handler runs, through a
//! [`Runner`]: as a future, with cancellation or a timeout, panics caught, and moves the
//! bytes the round leaves in the output buffer), and [`Server::handle`] for a synchronous
//! [`Handler`] (firmware's serial loop): the same steps, with the one await resolved in place.

use core::future::Future;

use super::{Accepted, Call, Done, Error, Handled, Handler, Notifier, Registry, Round, Server};
use crate::json::BufferTooSmall;

/// How a caller of [`Server::drive`] runs the application's handler for a call.
pub trait Runner {
    /// Starts the reply for `call` in `out` and runs the handler for it: its outcome, or
    /// `None` when the caller gave the call up (cancelled, timed out) and nothing is to be
    /// sent for it.
    fn run<'o>(
        &'o mut self,
        call: &'o Call<'o>,
        out: &'o mut [u8],
    ) -> impl Future<Output = Option<Result<Done<'o>, Error>>> + 'o;
}

/// The call `accepted` holds, borrowed in place, or a `return` with what the round came to
/// without one (wrapped by `$wrap`). A macro so that the call stays where `accept` wrote it:
/// a call is large, and each move of it costs a copy (and on the device's path, that copy
/// would stay on the stack while the handler runs).
macro_rules! call_or_return {
    ($accepted:ident, $wrap:expr) => {
        match $accepted {
            Ok(Accepted::Call(ref call)) => call,
            Ok(Accepted::Replied(n)) => return $wrap(Ok(Handled::Reply(n))),
            Ok(Accepted::Silent) => return $wrap(Ok(Handled::Silent)),
            Ok(Accepted::Cancelled(id)) => return $wrap(Ok(Handled::Cancelled(id))),
            Ok(Accepted::Listen(s)) => return $wrap(Ok(Handled::Listen(s))),
            #[cfg(feature = "tasks")]
            Ok(Accepted::Task { id, request }) => return $wrap(Ok(Handled::Task { id, request })),
            Err(too_small) => return $wrap(Err(too_small)),
        }
    };
}

/// Rebinds `$call` to the call carrying its retry's binding prefix, absorbed once here for
/// the state's open and its seal. A macro so that the prefix and the copy of the call live
/// in the round's own frame, bound apart rather than as a tuple (which would be built beside
/// the prefix and then copied: 152 bytes).
macro_rules! with_retry_prefix {
    ($call:ident) => {
        #[cfg(feature = "retry-prefix")]
        let prefix = $call.context().retry_prefix();
        #[cfg(feature = "retry-prefix")]
        let mut prefixed = None;
        #[cfg(feature = "retry-prefix")]
        let $call = $call.prefixed(prefix.as_ref(), &mut prefixed);
    };
}

impl<A: Registry> Server<'_, A> {
    /// One round of a 2026-07-28 message: accepts `input`, runs the handler through `runner` when the
    /// message is a call, and completes the reply in `out`. `Err` when the reply does not fit
    /// `out` (answer it with [`Server::write_too_large`]); `None` when `runner` gave the call
    /// up: send nothing.
    ///
    /// Its steps are those of [`Server::handle`], which runs a synchronous handler without a
    /// future (whose frame would stay on a device's stack while the handler runs).
    pub async fn drive<'a, R: Runner>(
        &'a self,
        input: &'a [u8],
        round: Round<'a>,
        out: &mut [u8],
        runner: &mut R,
    ) -> Option<Result<Handled<'a>, BufferTooSmall>> {
        let accepted = self.accept(input, round, out);
        let call = call_or_return!(accepted, Some);
        self.complete(call, out, runner).await
    }

    /// The rest of a round whose message was accepted as `call` by a transport that accepts
    /// by itself, with checks of its own ([`Server::accept_inspected`]): runs the handler
    /// through `runner` and completes the reply in `out`, as [`Server::drive`] does.
    ///
    /// The outcome is [`Handled::Reply`], or, with feature `tasks`, `Handled::BecameTask`.
    pub async fn drive_call<R: Runner>(
        &self,
        call: Call<'_>,
        out: &mut [u8],
        runner: &mut R,
    ) -> Option<Result<Handled<'static>, BufferTooSmall>> {
        self.complete(&call, out, runner).await
    }

    /// Runs `call` through `runner` and finishes its reply in `out`: the reply's length, or
    /// that the call became a task.
    async fn complete<R: Runner>(
        &self,
        call: &Call<'_>,
        out: &mut [u8],
        runner: &mut R,
    ) -> Option<Result<Handled<'static>, BufferTooSmall>> {
        with_retry_prefix!(call);
        let outcome = runner.run(call, out).await?;
        Some(settled(call.finish_in_place(outcome), out))
    }
}

impl<A: Handler> Server<'_, A> {
    /// Runs a whole round with the synchronous handlers of `A`: the driver of
    /// [`Server::drive`] in the 2026-07-28 dialect, its handler run at once. Notifications the
    /// handler emits go to `notifier` first.
    pub fn handle<'a>(
        &'a self,
        input: &'a [u8],
        round: Round<'a>,
        out: &mut [u8],
        notifier: Option<&mut (dyn Notifier + Send)>,
    ) -> Result<Handled<'a>, BufferTooSmall> {
        let accepted = self.accept(input, round, out);
        let call = call_or_return!(accepted, core::convert::identity);
        with_retry_prefix!(call);
        // The driver's `complete` with its one await resolved here: a synchronous handler is
        // done when it returns. Not through the future, whose frame and copy of the outcome
        // would stay on the device's stack while the handler runs.
        let sink = notifier.map(|n| -> &mut (dyn Notifier + Send) { n });
        let outcome = run_sync(self.app(), call, out, sink);
        settled(call.finish_in_place(outcome), out)
    }
}

/// What a finished call comes to: its response in `out`, or a task.
#[inline(always)]
fn settled(
    finished: super::Finished<'_>,
    out: &mut [u8],
) -> Result<Handled<'static>, BufferTooSmall> {
    #[cfg(feature = "tasks")]
    if finished.became_task() {
        return Ok(Handled::BecameTask);
    }
    finished.len(out).map(Handled::Reply)
}

/// Runs the synchronous handler of `app` for `call`, its reply started in `out`. Inlined, so
/// that the handler's frame sits right on the round's, as if the match were written there.
#[inline(always)]
fn run_sync<'a: 'o, 'o, A: Handler>(
    app: &A,
    call: &Call<'a>,
    out: &'o mut [u8],
    notifier: Option<&'o mut (dyn Notifier + Send)>,
) -> Result<Done<'o>, Error> {
    match call {
        Call::Tool(c) => app.call_tool(c, c.reply(out, notifier)),
        Call::Resource(c) => app.read_resource(c, c.reply(out, notifier)),
        Call::Prompt(c) => app.get_prompt(c, c.reply(out, notifier)),
        Call::Complete(c) => app.complete(c, c.reply(out, notifier)),
    }
}
