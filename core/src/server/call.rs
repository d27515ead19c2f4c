//! Calls the core hands to the application, and how their outcomes are finished.

use core::ops::Deref;

use super::reply::{Done, Reply, Shape, whole_error};
use super::{
    Error, ErrorKind, Notifier, Prompt, RequestContext, Resource, ResourceTemplate, Tool,
    uri_template,
};
use crate::json::{BufferTooSmall, JsonStr, Limits, Object, Value, Writer};
use crate::protocol::META_SERVER_INFO;
use crate::rpc::ErrorCode;
use crate::rpc::emit;
#[cfg(feature = "retry-prefix")]
use crate::state::BindingPrefix;

/// What every call type shares: its request context (through `Deref`), `reply`, which starts
/// the reply a handler writes, and the rules its outcome is finished by. `$call` names the call
/// in the expressions for the URI the reply echoes and the finish rules.
macro_rules! call_plumbing {
    ($type:ident, $kind:ident, |$call:ident| { uri: $uri:expr, rules: $rules:expr $(,)? }) => {
        impl<'a> $type<'a> {
            /// Starts the reply in `out`. Progress and log notifications go to `notifier`.
            /// The reply's [`Done`] carries `out` on to [`Call::finish`].
            pub fn reply<'o>(
                &self,
                out: &'o mut [u8],
                notifier: Option<&'o mut (dyn Notifier + Send + 'o)>,
            ) -> Reply<'o, super::$kind>
            where
                'a: 'o,
            {
                #[allow(unused_variables, reason = "not every call echoes a URI")]
                let $call = self;
                Reply::start(out, self.ctx, notifier, $uri)
            }

            fn rules(&self) -> FinishRules<'a> {
                #[allow(unused_variables, reason = "not every call has rules of its own")]
                let $call = self;
                $rules
            }
        }

        impl<'a> Deref for $type<'a> {
            type Target = RequestContext<'a>;
            fn deref(&self) -> &RequestContext<'a> {
                &self.ctx
            }
        }
    };
}

/// A `tools/call` whose tool exists and whose arguments passed the tool's input schema.
#[derive(Clone, Copy, Debug)]
pub struct ToolCall<'a> {
    pub(crate) ctx: RequestContext<'a>,
    pub(crate) tool: &'a Tool<'a>,
    pub(crate) arguments: Option<Object<'a>>,
}

impl<'a> ToolCall<'a> {
    /// The tool's name.
    pub fn name(&self) -> &'a str {
        self.tool.name
    }

    /// The tool's definition.
    pub fn tool(&self) -> &'a Tool<'a> {
        self.tool
    }

    /// The arguments (an empty object when none were sent). Never holds retry fields.
    pub fn arguments(&self) -> Object<'a> {
        self.arguments.unwrap_or(Object::EMPTY)
    }

    /// One argument.
    pub fn argument(&self, name: &str) -> Option<Value<'a>> {
        self.arguments.and_then(|a| a.get(name))
    }
}

call_plumbing!(ToolCall, ForTool, |call| {
    uri: None,
    rules: FinishRules {
        tool_errors: true,
        cacheable: false,
        output_schema: call.tool.output_schema,
    },
});

/// What a `resources/read` URI resolved to.
#[derive(Clone, Copy, Debug)]
pub enum ResourceTarget<'a> {
    /// A resource with exactly this URI.
    Fixed(&'a Resource<'a>),
    /// A template that matches the URI.
    Template(&'a ResourceTemplate<'a>),
}

/// Longest URI accepted when it arrives with JSON escapes (it is decoded into the call);
/// URIs without escapes are borrowed from the request and have no such limit.
pub const MAX_ESCAPED_URI_LEN: usize = 256;

/// A requested URI: borrowed when it needed no unescaping, decoded into the call otherwise.
// No heap in the core: a call lives on the stack for one round, unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub(crate) enum UriText<'a> {
    Plain(&'a str),
    Decoded([u8; MAX_ESCAPED_URI_LEN], usize),
}

impl<'a> UriText<'a> {
    /// The decoded URI, or `None` when it is too long to decode.
    pub(crate) fn new(uri: JsonStr<'a>) -> Option<Self> {
        if let Some(plain) = uri.as_plain() {
            return Some(UriText::Plain(plain));
        }
        let mut buf = [0u8; MAX_ESCAPED_URI_LEN];
        let len = uri.decode_into(&mut buf)?.len();
        Some(UriText::Decoded(buf, len))
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            UriText::Plain(s) => s,
            UriText::Decoded(buf, len) => buf
                .get(..*len)
                .and_then(|b| core::str::from_utf8(b).ok())
                .unwrap_or(""),
        }
    }
}

/// A `resources/read` of a URI that names a known resource or matches a template.
#[derive(Clone, Copy, Debug)]
pub struct ResourceRead<'a> {
    pub(crate) ctx: RequestContext<'a>,
    pub(crate) uri: UriText<'a>,
    pub(crate) uri_json: JsonStr<'a>,
    pub(crate) target: ResourceTarget<'a>,
}

impl<'a> ResourceRead<'a> {
    /// The requested URI (unescaped).
    pub fn uri(&self) -> &str {
        self.uri.as_str()
    }

    /// What it resolved to.
    pub fn target(&self) -> ResourceTarget<'a> {
        self.target
    }

    /// The value of a template variable (for a template match).
    pub fn var(&self, name: &str) -> Option<&str> {
        match self.target {
            ResourceTarget::Template(t) => {
                uri_template::variable(t.uri_template, self.uri.as_str(), name)
            }
            ResourceTarget::Fixed(_) => None,
        }
    }
}

call_plumbing!(ResourceRead, ForResource, |call| {
    uri: Some(call.uri_json),
    rules: FinishRules {
        tool_errors: false,
        cacheable: true,
        output_schema: None,
    },
});

/// A `prompts/get` of a known prompt with every required argument present.
#[derive(Clone, Copy, Debug)]
pub struct PromptGet<'a> {
    pub(crate) ctx: RequestContext<'a>,
    pub(crate) prompt: &'a Prompt<'a>,
    pub(crate) arguments: Option<Object<'a>>,
}

impl<'a> PromptGet<'a> {
    /// The prompt's name.
    pub fn name(&self) -> &'a str {
        self.prompt.name
    }

    /// The prompt's definition.
    pub fn prompt(&self) -> &'a Prompt<'a> {
        self.prompt
    }

    /// One argument (all arguments are strings).
    pub fn argument(&self, name: &str) -> Option<JsonStr<'a>> {
        self.arguments
            .and_then(|a| a.get(name))
            .and_then(|v| v.as_str())
    }
}

call_plumbing!(PromptGet, ForPrompt, |call| {
    uri: None,
    rules: FinishRules::PLAIN,
});

/// What a completion refers to.
#[derive(Clone, Copy, Debug)]
pub enum CompletionRef<'a> {
    /// `ref/prompt` with the prompt's name.
    Prompt(JsonStr<'a>),
    /// `ref/resource` with the template URI.
    Resource(JsonStr<'a>),
}

/// A `completion/complete` request.
#[derive(Clone, Copy, Debug)]
pub struct Completion<'a> {
    pub(crate) ctx: RequestContext<'a>,
    pub(crate) reference: CompletionRef<'a>,
    pub(crate) argument_name: JsonStr<'a>,
    pub(crate) argument_value: JsonStr<'a>,
    pub(crate) context_arguments: Option<Object<'a>>,
}

impl<'a> Completion<'a> {
    /// What is being completed.
    pub fn reference(&self) -> CompletionRef<'a> {
        self.reference
    }

    /// The argument's name.
    pub fn argument_name(&self) -> JsonStr<'a> {
        self.argument_name
    }

    /// The partial value typed so far.
    pub fn argument_value(&self) -> JsonStr<'a> {
        self.argument_value
    }

    /// Previously resolved arguments (`context.arguments`).
    pub fn context_arguments(&self) -> Option<Object<'a>> {
        self.context_arguments
    }
}

call_plumbing!(Completion, ForCompletion, |call| {
    uri: None,
    rules: FinishRules::PLAIN,
});

/// A call the application must run.
// No heap in the core: a call lives on the stack for one round, unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Call<'a> {
    /// `tools/call`
    Tool(ToolCall<'a>),
    /// `resources/read`
    Resource(ResourceRead<'a>),
    /// `prompts/get`
    Prompt(PromptGet<'a>),
    /// `completion/complete`
    Complete(Completion<'a>),
}

impl<'a> Call<'a> {
    /// The request this call serves.
    pub fn context(&self) -> &RequestContext<'a> {
        match self {
            Call::Tool(c) => &c.ctx,
            Call::Resource(c) => &c.ctx,
            Call::Prompt(c) => &c.ctx,
            Call::Complete(c) => &c.ctx,
        }
    }

    /// Makes this call the work of a task its host created from the same request (after
    /// its handler answered [`ToolReply::into_task`](super::ToolReply::into_task)): the
    /// handler then sees [`TaskPhase::Running`](crate::tasks::TaskPhase::Running). `false`,
    /// and nothing changes, unless the call was offered a task.
    #[cfg(feature = "tasks")]
    pub fn enter_task(&mut self) -> bool {
        match self {
            Call::Tool(c) if c.ctx.task.offer().is_some() => {
                c.ctx.task = crate::tasks::TaskPhase::Running;
                true
            }
            _ => false,
        }
    }

    /// Withdraws the offer of a task (a host whose store is full runs an optional task
    /// tool's call in its request instead): the handler then sees
    /// [`TaskPhase::Unavailable`](crate::tasks::TaskPhase::Unavailable).
    #[cfg(feature = "tasks")]
    pub fn decline_task(&mut self) {
        if let Call::Tool(c) = self {
            c.ctx.task = crate::tasks::TaskPhase::Unavailable;
        }
    }

    /// This call, or, for a retry, a copy of it in `copy` whose state opens and seals
    /// continue from `prefix` (this request's binding, absorbed once by the core's driver
    /// for the round). Only a retry pays the copy of the call.
    #[cfg(feature = "retry-prefix")]
    pub(crate) fn prefixed<'l>(
        &'l self,
        prefix: Option<&'l BindingPrefix>,
        copy: &'l mut Option<Call<'l>>,
    ) -> &'l Call<'l>
    where
        'a: 'l,
    {
        match prefix {
            None => self,
            Some(prefix) => copy.insert(self.with_prefix(prefix)),
        }
    }

    /// A copy of this call carrying `prefix`.
    #[cfg(feature = "retry-prefix")]
    fn with_prefix<'l>(&self, prefix: &'l BindingPrefix) -> Call<'l>
    where
        'a: 'l,
    {
        // Each variant is `Copy`; the call is not, so that it is finished once.
        #[allow(clippy::needless_match, reason = "copies the variant out of a borrow")]
        let mut call: Call<'l> = match *self {
            Call::Tool(c) => Call::Tool(c),
            Call::Resource(c) => Call::Resource(c),
            Call::Prompt(c) => Call::Prompt(c),
            Call::Complete(c) => Call::Complete(c),
        };
        let ctx = match &mut call {
            Call::Tool(c) => &mut c.ctx,
            Call::Resource(c) => &mut c.ctx,
            Call::Prompt(c) => &mut c.ctx,
            Call::Complete(c) => &mut c.ctx,
        };
        ctx.prefix = Some(prefix);
        call
    }

    /// Phase three: admits the handler's outcome and completes the response in the buffer
    /// the outcome's [`Done`] carries (the one its reply was started in). It consumes the
    /// call, so a call is finished once:
    ///
    /// ```compile_fail,E0382
    /// # use snodo_core::server::{Call, Done};
    /// fn run<'o>(call: Call<'_>, first: Done<'o>, second: Done<'o>) {
    ///     let _ = call.finish(Ok(first));
    ///     let _ = call.finish(Ok(second)); // error: `call` was moved by the first finish
    /// }
    /// ```
    ///
    /// A handler's error has no buffer with it: [`Finished::len`] writes its response (a
    /// whole message of its own) into the buffer given back to it then.
    pub fn finish(self, outcome: Result<Done<'_>, Error>) -> Finished<'a> {
        self.finish_in_place(outcome)
    }

    /// [`Call::finish`] without moving the call, for the core's own driver
    /// ([`Server::handle`](super::Server::handle)): a call is large, and a copy of it made to
    /// be moved would stay on the stack while the handler runs.
    pub(crate) fn finish_in_place(&self, outcome: Result<Done<'_>, Error>) -> Finished<'a> {
        let (ctx, rules) = match self {
            Call::Tool(c) => (&c.ctx, c.rules()),
            Call::Resource(c) => (&c.ctx, c.rules()),
            Call::Prompt(c) => (&c.ctx, c.rules()),
            Call::Complete(c) => (&c.ctx, c.rules()),
        };
        match outcome {
            #[cfg(feature = "tasks")]
            Ok(Done {
                shape: super::reply::Shape::Task,
                ..
            }) => Finished(Finish::Task),
            Ok(done) => Finished(Finish::Written(finish(ctx, done, rules))),
            Err(error) => Finished(Finish::Failed {
                ctx: *ctx,
                error,
                tool_errors: rules.tool_errors,
            }),
        }
    }
}

/// A finished call: the response's length (see [`Call::finish`]).
#[must_use = "the response is in the output buffer: send it"]
#[derive(Debug)]
pub struct Finished<'a>(Finish<'a>);

#[derive(Debug)]
enum Finish<'a> {
    /// Completed in the reply's buffer.
    Written(Result<usize, BufferTooSmall>),
    /// The handler failed: its response is still to be written.
    Failed {
        ctx: RequestContext<'a>,
        error: Error,
        tool_errors: bool,
    },
    /// The call became a task: nothing is written.
    #[cfg(feature = "tasks")]
    Task,
}

impl Finished<'_> {
    /// Whether the handler turned the call into a task
    /// ([`ToolReply::into_task`](super::ToolReply::into_task)): then there is no response
    /// here ([`Finished::len`] is 0), and the host answers the task's creation.
    #[cfg(feature = "tasks")]
    pub fn became_task(&self) -> bool {
        matches!(self.0, Finish::Task)
    }

    /// The response's length in `out`, the buffer the call's reply was started in (free
    /// again now that the reply is done); the response to a handler's error is written into
    /// it here. `Err` when not even an error response fits.
    pub fn len(self, out: &mut [u8]) -> Result<usize, BufferTooSmall> {
        match self.0 {
            Finish::Written(written) => written,
            #[cfg(feature = "tasks")]
            Finish::Task => Ok(0),
            Finish::Failed {
                ctx,
                error,
                tool_errors,
            } => {
                let mut w = Writer::new(out);
                write_failure(&mut w, &ctx, error, tool_errors);
                w.finish()
            }
        }
    }
}

/// How `finish` treats an outcome for a kind of call.
#[derive(Clone, Copy)]
struct FinishRules<'a> {
    /// Untyped failures become `isError` results (tools) rather than -32603.
    tool_errors: bool,
    /// Complete results carry `ttlMs` and `cacheScope`.
    cacheable: bool,
    /// The tool's output schema, which a final non-error result must satisfy.
    output_schema: Option<&'a str>,
}

impl FinishRules<'_> {
    const PLAIN: FinishRules<'static> = FinishRules {
        tool_errors: false,
        cacheable: false,
        output_schema: None,
    };
}

fn finish(
    ctx: &RequestContext<'_>,
    done: Done<'_>,
    rules: FinishRules<'_>,
) -> Result<usize, BufferTooSmall> {
    let Done { mut w, shape } = done;
    if !w.fits() {
        return internal(ctx, w, "the result does not fit in the output buffer");
    }
    match shape {
        Shape::Whole => w.finish(),
        #[cfg(feature = "tasks")]
        Shape::Task => Ok(0),
        Shape::Members {
            any,
            is_error,
            structured,
        } => {
            if let (Some(schema), false) = (rules.output_schema, is_error) {
                let written = w.written().unwrap_or_default();
                if let Err(message) = check_output(written, structured, schema, &ctx.config.limits)
                {
                    return internal(ctx, w, message);
                }
            }
            if any {
                w.raw(b",");
            }
            write_trailer(&mut w, ctx.config, rules.cacheable);
            w.raw(b"}");
            close(ctx, w)
        }
        Shape::InputRequired {
            requests,
            several,
            state,
            unmet,
        } => {
            if !ctx.method.allows_input_required() {
                return internal(
                    ctx,
                    w,
                    "input_required is allowed only for tools/call, resources/read and prompts/get",
                );
            }
            if requests.is_none() && !state {
                return internal(
                    ctx,
                    w,
                    "an input_required result needs inputRequests or requestState",
                );
            }
            if let (Some((start, end)), true) = (requests, several) {
                let unique = w
                    .written()
                    .and_then(|b| b.get(start..end))
                    .is_some_and(|b| crate::json::parse(b, &ctx.config.limits).is_ok());
                if !unique {
                    return internal(ctx, w, "inputRequests keys must be unique");
                }
            }
            if !unmet.is_empty() {
                whole_error(
                    &mut w,
                    Some(ctx.id),
                    ErrorCode::MISSING_CLIENT_CAPABILITY,
                    "Missing required client capability",
                    Some(&|w: &mut Writer<'_>| {
                        w.raw(b"{\"requiredCapabilities\":");
                        unmet.write(w);
                        w.raw(b"}");
                    }),
                );
                return w.finish();
            }
            w.raw(b",");
            write_trailer_as(&mut w, ctx.config, "input_required", false);
            w.raw(b"}");
            close(ctx, w)
        }
    }
}

/// Ends a completed result, or answers -32603 when it outgrew the buffer.
fn close(ctx: &RequestContext<'_>, w: Writer<'_>) -> Result<usize, BufferTooSmall> {
    if w.fits() {
        w.finish()
    } else {
        internal(ctx, w, "the result does not fit in the output buffer")
    }
}

/// The response to a handler's error: a tool error result (`isError`) for an untyped failure
/// of a tool, a JSON-RPC error otherwise (-32603 for an untyped failure).
fn write_failure(w: &mut Writer<'_>, ctx: &RequestContext<'_>, e: Error, tool_errors: bool) {
    if e.kind == ErrorKind::Failure && tool_errors {
        w.rewind(0);
        emit::result(w, ctx.id);
        w.raw(b"{\"content\":[{\"type\":\"text\",\"text\":");
        w.str(e.message);
        w.raw(b"}],\"isError\":true,");
        write_trailer(w, ctx.config, false);
        w.raw(b"}");
        return;
    }
    let code = if e.kind == ErrorKind::Failure {
        ErrorCode::INTERNAL_ERROR
    } else {
        e.code
    };
    whole_error(w, Some(ctx.id), code, e.message, None);
}

fn internal(
    ctx: &RequestContext<'_>,
    mut w: Writer<'_>,
    message: &str,
) -> Result<usize, BufferTooSmall> {
    whole_error(
        &mut w,
        Some(ctx.id),
        ErrorCode::INTERNAL_ERROR,
        message,
        None,
    );
    w.finish()
}

/// Checks `structuredContent` against the tool's output schema.
fn check_output(
    written: &[u8],
    structured: Option<(usize, usize)>,
    schema: &str,
    limits: &Limits,
) -> Result<(), &'static str> {
    let (start, end) = structured
        .ok_or("the tool's result lacks the structuredContent its outputSchema requires")?;
    let bytes = written
        .get(start..end)
        .ok_or("the result does not fit in the output buffer")?;
    let value = crate::json::parse(bytes, limits)
        .map_err(|_| "the tool wrote invalid structuredContent")?;
    let schema = crate::json::parse(schema.as_bytes(), limits)
        .map_err(|_| "the tool's outputSchema is not valid JSON")?;
    crate::schema::validate(schema, value)
        .map_err(|_| "the tool's structuredContent does not match its outputSchema")
}

/// Writes `"resultType":"complete"`, the cache hints when asked, and `_meta` with the server
/// identity; the result object is left open.
pub(crate) fn write_trailer(w: &mut Writer<'_>, config: &super::Config<'_>, cacheable: bool) {
    write_trailer_as(w, config, "complete", cacheable);
}

/// Writes the members every result ends with. Their keys and the result type are constants
/// that need no escaping, so they are copied as they are.
fn write_trailer_as(
    w: &mut Writer<'_>,
    config: &super::Config<'_>,
    result_type: &'static str,
    cacheable: bool,
) {
    w.raw(b"\"resultType\":\"");
    w.raw(result_type.as_bytes());
    w.raw(b"\",");
    if cacheable {
        w.raw(b"\"ttlMs\":");
        w.u64(config.ttl_ms);
        w.raw(b",\"cacheScope\":\"");
        w.raw(config.cache_scope.name().as_bytes());
        w.raw(b"\",");
    }
    w.raw(b"\"_meta\":{\"");
    w.raw(META_SERVER_INFO.as_bytes());
    w.raw(b"\":");
    config.info.write(w);
    w.raw(b"}}");
}
