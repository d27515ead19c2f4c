//! Synchronous handlers, run to completion within the round (firmware's, and any host
//! application without `await`s): [`Server::handle`](super::Server::handle) drives them.

use super::{
    Accepted, Call, Completion, CompletionReply, Done, Error, PromptGet, PromptReply, Registry,
    ResourceRead, ResourceReply, Subscription, ToolCall, ToolReply,
};
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

/// What [`Server::handle`](super::Server::handle) did with a message.
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
    /// A task request past the extension's gate: the host answers it from its tasks
    /// (feature `tasks`).
    #[cfg(feature = "tasks")]
    Task {
        /// The request's id.
        id: Id<'a>,
        /// What it asks.
        request: crate::tasks::TaskRequest<'a>,
    },
    /// The handler turned the call into a task ([`ToolReply::into_task`]): nothing is
    /// written; the host creates the task, answers its `CreateTaskResult` and runs the
    /// request again as the task's work (feature `tasks`).
    ///
    /// [`ToolReply::into_task`]: super::ToolReply::into_task
    #[cfg(feature = "tasks")]
    BecameTask,
}

impl<'a> Accepted<'a> {
    /// The call the application must run, or what the round came to without one.
    pub fn into_call(self) -> Result<Call<'a>, Handled<'a>> {
        match self {
            Accepted::Call(call) => Ok(call),
            Accepted::Replied(n) => Err(Handled::Reply(n)),
            Accepted::Silent => Err(Handled::Silent),
            Accepted::Cancelled(id) => Err(Handled::Cancelled(id)),
            Accepted::Listen(s) => Err(Handled::Listen(s)),
            #[cfg(feature = "tasks")]
            Accepted::Task { id, request } => Err(Handled::Task { id, request }),
        }
    }
}
