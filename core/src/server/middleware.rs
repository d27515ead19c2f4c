//! Middleware: code that wraps the application's handlers.
//!
//! A [`Middleware`] sees every call before the handler, on the first call and on every retry
//! alike (nothing is remembered between rounds, so it runs anew each time). It may refuse,
//! answer by itself, or pass the call on to `next`. It cannot widen what the client declared:
//! a call's context and the reply's admission data are fixed by the core, and there is no way
//! to build a call or a reply with other capabilities. Lists and `server/discover` are
//! answered by the core and never reach middleware, so they cannot become `input_required`.

use super::{
    Completion, CompletionReply, Done, Error, Handler, Prompt, PromptGet, PromptReply, Registry,
    Resource, ResourceRead, ResourceReply, ResourceTemplate, ServerCapabilities, Tool, ToolCall,
    ToolReply,
};

/// Wraps handler dispatch. Every method defaults to passing the call on.
pub trait Middleware {
    /// Around `tools/call`.
    fn call_tool<'o, H: Handler>(
        &self,
        next: &H,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        next.call_tool(call, reply)
    }

    /// Around `resources/read`.
    fn read_resource<'o, H: Handler>(
        &self,
        next: &H,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        next.read_resource(call, reply)
    }

    /// Around `prompts/get`.
    fn get_prompt<'o, H: Handler>(
        &self,
        next: &H,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        next.get_prompt(call, reply)
    }

    /// Around `completion/complete`.
    fn complete<'o, H: Handler>(
        &self,
        next: &H,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        next.complete(call, reply)
    }
}

/// A handler wrapped in middleware; the registry is the inner handler's.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layered<M, H> {
    /// The middleware.
    pub middleware: M,
    /// The wrapped handler.
    pub inner: H,
}

impl<M, H> Layered<M, H> {
    /// Wraps `inner` in `middleware`.
    pub const fn new(middleware: M, inner: H) -> Self {
        Layered { middleware, inner }
    }
}

impl<M, H: Registry> Registry for Layered<M, H> {
    fn tools(&self) -> &[Tool<'_>] {
        self.inner.tools()
    }
    fn resources(&self) -> &[Resource<'_>] {
        self.inner.resources()
    }
    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        self.inner.resource_templates()
    }
    fn prompts(&self) -> &[Prompt<'_>] {
        self.inner.prompts()
    }
    fn completions(&self) -> bool {
        self.inner.completions()
    }
    fn capabilities(&self) -> ServerCapabilities {
        self.inner.capabilities()
    }
}

impl<M: Middleware, H: Handler> Handler for Layered<M, H> {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        self.middleware.call_tool(&self.inner, call, reply)
    }
    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.middleware.read_resource(&self.inner, call, reply)
    }
    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.middleware.get_prompt(&self.inner, call, reply)
    }
    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.middleware.complete(&self.inner, call, reply)
    }
}
