//! Asynchronous handlers: the host twin of the core's synchronous [`Handler`].
//!
//! An application implements [`AsyncHandler`] (or the core's [`Handler`], which every
//! synchronous application gets an [`AsyncHandler`] for through a blanket impl). Each method
//! returns `impl Future + Send`, so adapters are generic over the application and no future
//! is boxed per call.
//!
//! [`run_call`] runs phase two of a round (the handler) for a [`Call`] the core accepted;
//! [`handle`] is the asynchronous twin of [`Server::handle`]: all three phases in one call.

use core::future::{Future, ready};

use snodo_core::json::BufferTooSmall;
use snodo_core::server::{
    Accepted, Call, Completion, CompletionReply, Done, Error, Handled, Handler, Notifier,
    PromptGet, PromptReply, Registry, ResourceRead, ResourceReply, Round, Server, ToolCall,
    ToolReply,
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
/// is needed, and writes the reply into `out` (the twin of [`Server::handle`]).
pub async fn handle<'a, A: AsyncHandler>(
    server: &'a Server<'_, A>,
    input: &'a [u8],
    round: Round<'a>,
    out: &mut [u8],
    notifier: Option<&mut (dyn Notifier + Send)>,
) -> Result<Handled<'a>, BufferTooSmall> {
    let call = match server.accept(input, round, out)? {
        Accepted::Replied(n) => return Ok(Handled::Reply(n)),
        Accepted::Silent => return Ok(Handled::Silent),
        Accepted::Cancelled(id) => return Ok(Handled::Cancelled(id)),
        Accepted::Listen(subscription) => return Ok(Handled::Listen(subscription)),
        Accepted::Call(call) => call,
    };
    let notifier = notifier.map(|n| -> &mut (dyn Notifier + Send) { n });
    let outcome = run_call(server.app(), &call, out, notifier).await;
    call.finish(outcome).len(out).map(Handled::Reply)
}
