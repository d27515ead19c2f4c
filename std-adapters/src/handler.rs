//! Asynchronous handlers: the host twin of the core's synchronous [`Handler`].
//!
//! An application implements [`AsyncHandler`] (or the core's [`Handler`], which every
//! synchronous application gets an [`AsyncHandler`] for through a blanket impl). Each method
//! returns `impl Future + Send`, so adapters are generic over the application and no future
//! is boxed per call.
//!
//! [`run_call`] runs phase two of a round (the handler) for a [`Call`] the core accepted;
//! [`handle`] is the asynchronous twin of [`Server::handle`]: the core's round driver
//! ([`Server::drive`]) with the application's futures as its runner, a panic in one caught
//! (`catch_panics`, the one place the host adapters catch panics). The stdio and HTTP
//! adapters drive their rounds the same way, their runners adding cancellation.

use core::future::{Future, poll_fn, ready};
use core::pin::pin;
use core::task::Poll;
use std::panic::AssertUnwindSafe;

use snodo_core::json::BufferTooSmall;
use snodo_core::rpc::Id;
use snodo_core::server::{
    Call, Completion, CompletionReply, Done, Error, Handled, Handler, Notifier, PromptGet,
    PromptReply, Registry, ResourceRead, ResourceReply, Round, Runner, Server, ToolCall, ToolReply,
};

/// An application whose handlers are `async`. Mirrors the core's [`Handler`]: only
/// [`call_tool`](AsyncHandler::call_tool) is required.
///
/// Each method receives the call (what was asked) and the reply it writes its result into,
/// and returns the [`Done`] the reply produced, or an [`Error`]. The future may borrow both
/// and `self`; it must be `Send` so adapters can run calls on a multi-threaded runtime.
/// Dropping the future abandons the request (this is how cancellation works), so a handler
/// should not leave shared state half-updated across an `.await`.
pub trait AsyncHandler: Registry + Send + Sync {
    /// Runs a tool.
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send;

    /// Reads a resource.
    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        let _ = (call, reply);
        ready(Err(Error::internal("this server does not read resources")))
    }

    /// Renders a prompt.
    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        let _ = (call, reply);
        ready(Err(Error::internal("this server does not render prompts")))
    }

    /// Completes an argument; by default, no suggestions.
    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        let _ = call;
        ready(Ok(reply.values(&[], false)))
    }
}

/// Every synchronous application is an asynchronous one whose futures are ready at once:
/// the handler runs when the method is called.
impl<H: Handler + Send + Sync> AsyncHandler for H {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        ready(Handler::call_tool(self, call, reply))
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        ready(Handler::read_resource(self, call, reply))
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        ready(Handler::get_prompt(self, call, reply))
    }

    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        ready(Handler::complete(self, call, reply))
    }
}

/// Phase two of a round: starts the reply for `call` in `out` and runs the application's
/// handler for it. Give the outcome to `call.finish(outcome)`.
///
/// Notifications the handler emits (progress, log messages) go to `notifier` as they are
/// made, before the reply.
pub async fn run_call<'a: 'o, 'o, A: AsyncHandler + ?Sized>(
    app: &A,
    call: &Call<'a>,
    out: &'o mut [u8],
    notifier: Option<&'o mut (dyn Notifier + Send + 'o)>,
) -> Result<Done<'o>, Error> {
    match call {
        Call::Tool(c) => app.call_tool(c, c.reply(out, notifier)).await,
        Call::Resource(c) => app.read_resource(c, c.reply(out, notifier)).await,
        Call::Prompt(c) => app.get_prompt(c, c.reply(out, notifier)).await,
        Call::Complete(c) => app.complete(c, c.reply(out, notifier)).await,
    }
}

/// A whole round for an asynchronous application: accepts `input`, runs the handler if one
/// is needed (a panic in it answered -32603 "The handler failed"), and writes the reply into
/// `out` (the twin of [`Server::handle`]; both are the core's one round driver,
/// [`Server::drive`]).
pub async fn handle<'a, A: AsyncHandler>(
    server: &'a Server<'_, A>,
    input: &'a [u8],
    round: Round<'a>,
    out: &mut [u8],
    notifier: Option<&mut (dyn Notifier + Send)>,
) -> Result<Handled<'a>, BufferTooSmall> {
    let mut runner = AppRunner {
        app: server.app(),
        notifier,
    };
    let driven = server.drive(input, round, out, &mut runner);
    // This runner never gives a call up.
    driven.await.unwrap_or(Ok(Handled::Silent))
}

/// Runs an [`AsyncHandler`]'s handlers for the core's round driver, a panic in one caught
/// ([`catch_panics`]).
pub(crate) struct AppRunner<'r, 'n, A: ?Sized> {
    pub(crate) app: &'r A,
    pub(crate) notifier: Option<&'n mut (dyn Notifier + Send)>,
}

impl<A: AsyncHandler + ?Sized> Runner for AppRunner<'_, '_, A> {
    fn run<'o>(
        &'o mut self,
        call: &'o Call<'o>,
        out: &'o mut [u8],
    ) -> impl Future<Output = Option<Result<Done<'o>, Error>>> + 'o {
        let notifier = self
            .notifier
            .as_deref_mut()
            .map(|n| -> &mut (dyn Notifier + Send) { n });
        let running = run_call(self.app, call, out, notifier);
        async move { Some(catch_panics(call.context().id(), running).await) }
    }
}

/// Runs a handler's future, turning a panic into the -32603 "The handler failed" (logged
/// with the request's `id`) rather than a request that is never answered: the one place the
/// host adapters catch panics.
pub(crate) async fn catch_panics<'o, F>(id: Id<'_>, future: F) -> Result<Done<'o>, Error>
where
    F: Future<Output = Result<Done<'o>, Error>>,
{
    let mut future = pin!(future);
    poll_fn(
        |cx| match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(polled) => polled,
            Err(_) => {
                tracing::error!(?id, "handler panicked");
                Poll::Ready(Err(Error::internal("The handler failed")))
            }
        },
    )
    .await
}
