//! The synchronous, one-call path used by firmware: both phases of a round in one call.

use super::{
    Accepted, Call, Completion, CompletionReply, Done, Error, Notifier, PromptGet, PromptReply,
    Registry, ResourceRead, ResourceReply, Round, Server, Subscription, ToolCall, ToolReply,
};
use crate::json::BufferTooSmall;
use crate::rpc::Id;

/// An application whose handlers run to completion synchronously.
pub trait Handler: Registry {
    /// Runs a tool.
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error>;

    /// Reads a resource.
    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let _ = (call, reply);
        Err(Error::internal("this server does not read resources"))
    }

    /// Renders a prompt.
    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let _ = (call, reply);
        Err(Error::internal("this server does not render prompts"))
    }

    /// Completes an argument; by default, no suggestions.
    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let _ = call;
        Ok(reply.values(&[], false))
    }
}

/// What [`Server::handle`] did with a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handled<'a> {
    /// Send `out[..n]`.
    Reply(usize),
    /// Send nothing.
    Silent,
    /// The client cancelled this request; a synchronous server has nothing left to stop.
    Cancelled(Id<'a>),
    /// `subscriptions/listen` was admitted: the caller owns the stream (write its
    /// acknowledgement, then events, then the closing response).
    Listen(Subscription<'a>),
}

impl<A: Handler> Server<'_, A> {
    /// Runs a whole round: accepts `input`, runs the handler if one is needed, and writes the
    /// reply into `out`. Notifications the handler emits go to `notifier` first.
    pub fn handle<'a>(
        &'a self,
        input: &'a [u8],
        round: Round<'a>,
        out: &mut [u8],
        notifier: Option<&mut (dyn Notifier + Send)>,
    ) -> Result<Handled<'a>, BufferTooSmall> {
        let call = match self.accept(input, round, out)? {
            Accepted::Replied(n) => return Ok(Handled::Reply(n)),
            Accepted::Silent => return Ok(Handled::Silent),
            Accepted::Cancelled(id) => return Ok(Handled::Cancelled(id)),
            Accepted::Listen(s) => return Ok(Handled::Listen(s)),
            Accepted::Call(call) => call,
        };
        let app = self.app();
        let sink = || notifier.map(|n| -> &mut (dyn Notifier + Send) { n });
        let outcome = match &call {
            Call::Tool(c) => app.call_tool(c, c.reply(out, sink())),
            Call::Resource(c) => app.read_resource(c, c.reply(out, sink())),
            Call::Prompt(c) => app.get_prompt(c, c.reply(out, sink())),
            Call::Complete(c) => app.complete(c, c.reply(out, sink())),
        };
        call.finish(outcome).len(out).map(Handled::Reply)
    }
}
