//! A [`Call`] as a small `Copy` handle: offsets into the bytes it was accepted from, its id
//! and the index of its definition. A task that outlives the reader's borrow of those bytes
//! (a stream, a spawned handler) keeps the handle beside its own copy of them and borrows the
//! call again ([`CallHandle::view`]) instead of accepting the message a second time: no
//! scan, no admission, no schema validation.

use super::call::UriText;
use super::context::RetryAt;
use super::span::{IdSpan, Span, fingerprint};
use super::{
    Call, Completion, CompletionRef, PromptGet, Registry, RequestContext, ResourceRead,
    ResourceTarget, Round, Server, ToolCall,
};
use crate::protocol::{ClientCapabilities, LogLevel, Method, RequestMeta};

/// A [`Call`] as offsets into the bytes it was accepted from ([`Call::handle`]): `Copy`,
/// `'static` and a few words long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallHandle {
    /// Of the whole message: a view in other bytes is refused.
    fingerprint: u64,
    len: usize,
    id: IdSpan,
    method: Method,
    params: Option<Span>,
    /// Relative to the params: the same in a copy of the bytes.
    retry_at: RetryAt,
    meta: MetaSpans,
    target: Target,
    #[cfg(feature = "tasks")]
    task: crate::tasks::TaskPhase,
}

/// The admitted `_meta`, by span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MetaSpans {
    protocol_version: Span,
    capabilities: ClientCapabilities,
    client_info: Option<Span>,
    progress_token: Option<Span>,
    log_level: Option<LogLevel>,
    raw: Span,
}

/// What the call is for: its definition by index, its own members by span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Tool {
        index: usize,
        arguments: Option<Span>,
    },
    Resource {
        /// An index into the resources, or (`template`) into the resource templates.
        index: usize,
        template: bool,
        uri: Span,
    },
    Prompt {
        index: usize,
        arguments: Option<Span>,
    },
    Complete {
        /// The prompt name or template URI, and whether it is a prompt's.
        reference: Span,
        prompt: bool,
        argument_name: Span,
        argument_value: Span,
        context_arguments: Option<Span>,
    },
}

/// The index of `item` in `all` (found by address: it was borrowed from there).
fn index_of<T>(all: &[T], item: &T) -> Option<usize> {
    all.iter().position(|t| core::ptr::eq(t, item))
}

impl Call<'_> {
    /// This call as a handle into `input`, the bytes `server` accepted it from (`None` when
    /// it does not lie in them).
    pub fn handle<A: Registry>(&self, server: &Server<'_, A>, input: &[u8]) -> Option<CallHandle> {
        let app = server.app();
        let of = |part: &[u8]| Span::of(input, part);
        let ctx = self.context();
        let target = match self {
            Call::Tool(c) => Target::Tool {
                index: index_of(app.tools(), c.tool)?,
                arguments: spans_of(input, c.arguments.map(|a| a.as_value().raw()))?,
            },
            Call::Resource(c) => {
                let (index, template) = match c.target {
                    ResourceTarget::Fixed(r) => (index_of(app.resources(), r)?, false),
                    ResourceTarget::Template(t) => (index_of(app.resource_templates(), t)?, true),
                };
                Target::Resource {
                    index,
                    template,
                    uri: of(c.uri_json.raw())?,
                }
            }
            Call::Prompt(c) => Target::Prompt {
                index: index_of(app.prompts(), c.prompt)?,
                arguments: spans_of(input, c.arguments.map(|a| a.as_value().raw()))?,
            },
            Call::Complete(c) => {
                let (reference, prompt) = match c.reference {
                    CompletionRef::Prompt(name) => (name, true),
                    CompletionRef::Resource(uri) => (uri, false),
                };
                Target::Complete {
                    reference: of(reference.raw())?,
                    prompt,
                    argument_name: of(c.argument_name.raw())?,
                    argument_value: of(c.argument_value.raw())?,
                    context_arguments: spans_of(
                        input,
                        c.context_arguments.map(|a| a.as_value().raw()),
                    )?,
                }
            }
        };
        let meta = &ctx.meta;
        Some(CallHandle {
            fingerprint: fingerprint(input),
            len: input.len(),
            id: IdSpan::of(input, ctx.id)?,
            method: ctx.method,
            params: spans_of(input, ctx.params.map(|p| p.as_value().raw()))?,
            retry_at: ctx.retry_at,
            meta: MetaSpans {
                protocol_version: of(meta.protocol_version.raw())?,
                capabilities: meta.capabilities,
                client_info: spans_of(input, meta.client_info.map(|v| v.raw()))?,
                progress_token: spans_of(input, meta.progress_token.map(|v| v.raw()))?,
                log_level: meta.log_level,
                raw: of(meta.raw.as_value().raw())?,
            },
            target,
            #[cfg(feature = "tasks")]
            task: ctx.task,
        })
    }
}

/// The span of an optional part: `Some(None)` when there is no part, `None` when it does not
/// lie in `input`.
fn spans_of(input: &[u8], part: Option<&[u8]>) -> Option<Option<Span>> {
    match part {
        None => Some(None),
        Some(part) => Span::of(input, part).map(Some),
    }
}

impl CallHandle {
    /// The JSON-RPC method of the call.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The call again, borrowed from `input` (the bytes it was accepted from, or a copy of
    /// them), `server` (the one that accepted it) and this `round`; `None` when `input` is not
    /// those bytes.
    pub fn view<'b, A: Registry>(
        &self,
        server: &'b Server<'_, A>,
        input: &'b [u8],
        round: Round<'b>,
    ) -> Option<Call<'b>> {
        if input.len() != self.len || fingerprint(input) != self.fingerprint {
            return None;
        }
        let object = |span: Option<Span>| -> Option<Option<_>> {
            match span {
                None => Some(None),
                Some(span) => span.view(input)?.as_object().map(Some),
            }
        };
        let value = |span: Option<Span>| match span {
            None => Some(None),
            Some(span) => span.view(input).map(Some),
        };
        let meta = self.meta;
        let ctx = RequestContext {
            id: self.id.view(input)?,
            method: self.method,
            params: object(self.params)?,
            meta: RequestMeta {
                protocol_version: meta.protocol_version.view_str(input)?,
                capabilities: meta.capabilities,
                client_info: value(meta.client_info)?,
                progress_token: value(meta.progress_token)?,
                log_level: meta.log_level,
                raw: meta.raw.view(input)?.as_object()?,
            },
            round,
            config: server.config(),
            retry_at: self.retry_at,
            #[cfg(feature = "retry-prefix")]
            prefix: None,
            #[cfg(feature = "tasks")]
            task: self.task,
        };
        let app = server.app();
        Some(match self.target {
            Target::Tool { index, arguments } => Call::Tool(ToolCall {
                ctx,
                tool: app.tools().get(index)?,
                arguments: object(arguments)?,
            }),
            Target::Resource {
                index,
                template,
                uri,
            } => {
                let uri_json = uri.view_str(input)?;
                let target = if template {
                    ResourceTarget::Template(app.resource_templates().get(index)?)
                } else {
                    ResourceTarget::Fixed(app.resources().get(index)?)
                };
                Call::Resource(ResourceRead {
                    ctx,
                    uri: UriText::new(uri_json)?,
                    uri_json,
                    target,
                })
            }
            Target::Prompt { index, arguments } => Call::Prompt(PromptGet {
                ctx,
                prompt: app.prompts().get(index)?,
                arguments: object(arguments)?,
            }),
            Target::Complete {
                reference,
                prompt,
                argument_name,
                argument_value,
                context_arguments,
            } => {
                let reference = reference.view_str(input)?;
                Call::Complete(Completion {
                    ctx,
                    reference: if prompt {
                        CompletionRef::Prompt(reference)
                    } else {
                        CompletionRef::Resource(reference)
                    },
                    argument_name: argument_name.view_str(input)?,
                    argument_value: argument_value.view_str(input)?,
                    context_arguments: object(context_arguments)?,
                })
            }
        })
    }
}
