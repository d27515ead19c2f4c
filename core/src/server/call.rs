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

/// What every call type shares: its request context (through `Deref`), `reply`, which starts
/// the reply a handler writes, and `finish`, which admits the handler's outcome. `$call`
/// names the call in the expressions for the URI the reply echoes and the finish rules.
macro_rules! call_plumbing {
    ($type:ident, $kind:ident, |$call:ident| { uri: $uri:expr, rules: $rules:expr $(,)? }) => {
        impl<'a> $type<'a> {
            /// Starts the reply in `out`. Progress and log notifications go to `notifier`.
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

            /// Admits the handler's outcome and completes the response in `out`; returns its
            /// length.
            pub fn finish(
                &self,
                out: &mut [u8],
                outcome: Result<Done, Error>,
            ) -> Result<usize, BufferTooSmall> {
                #[allow(unused_variables, reason = "not every call has rules of its own")]
                let $call = self;
                finish(&self.ctx, out, outcome, $rules)
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
#[derive(Clone, Copy, Debug)]
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

    /// Finishes whichever call this is.
    pub fn finish(
        &self,
        out: &mut [u8],
        outcome: Result<Done, Error>,
    ) -> Result<usize, BufferTooSmall> {
        match self {
            Call::Tool(c) => c.finish(out, outcome),
            Call::Resource(c) => c.finish(out, outcome),
            Call::Prompt(c) => c.finish(out, outcome),
            Call::Complete(c) => c.finish(out, outcome),
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
    out: &mut [u8],
    outcome: Result<Done, Error>,
    rules: FinishRules<'_>,
) -> Result<usize, BufferTooSmall> {
    let fits = |end: usize| end <= out.len();
    match outcome {
        Ok(Done {
            end,
            shape: Shape::Whole,
        }) if fits(end) => Ok(end),
        Ok(Done {
            end,
            shape:
                Shape::Members {
                    any,
                    is_error,
                    structured,
                },
        }) if fits(end) => {
            if let (Some(schema), false) = (rules.output_schema, is_error) {
                if let Err(message) = check_output(out, structured, schema, &ctx.config.limits) {
                    return internal(ctx, out, message);
                }
            }
            let mut w = Writer::resume(out, end);
            if any {
                w.raw(b",");
            }
            write_trailer(&mut w, ctx.config, rules.cacheable);
            w.raw(b"}");
            match w.finish() {
                Ok(n) => Ok(n),
                Err(_) => internal(ctx, out, "the result does not fit in the output buffer"),
            }
        }
        Ok(Done {
            end,
            shape:
                Shape::InputRequired {
                    requests,
                    state,
                    unmet,
                },
        }) if fits(end) => {
            if !ctx.method.allows_input_required() {
                return internal(
                    ctx,
                    out,
                    "input_required is allowed only for tools/call, resources/read and prompts/get",
                );
            }
            if requests.is_none() && !state {
                return internal(
                    ctx,
                    out,
                    "an input_required result needs inputRequests or requestState",
                );
            }
            if let Some((start, end)) = requests {
                let unique = out
                    .get(start..end)
                    .is_some_and(|b| crate::json::parse(b, &ctx.config.limits).is_ok());
                if !unique {
                    return internal(ctx, out, "inputRequests keys must be unique");
                }
            }
            if !unmet.is_empty() {
                let mut w = Writer::new(out);
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
            let mut w = Writer::resume(out, end);
            w.raw(b",");
            write_trailer_as(&mut w, ctx.config, "input_required", false);
            w.raw(b"}");
            match w.finish() {
                Ok(n) => Ok(n),
                Err(_) => internal(ctx, out, "the result does not fit in the output buffer"),
            }
        }
        Ok(_) => internal(ctx, out, "the result does not fit in the output buffer"),
        Err(e) if e.kind == ErrorKind::Failure && rules.tool_errors => {
            let mut w = Writer::new(out);
            w.raw(b"{\"jsonrpc\":\"2.0\",\"id\":");
            ctx.id.write(&mut w);
            w.raw(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
            w.str(e.message);
            w.raw(b"}],\"isError\":true,");
            write_trailer(&mut w, ctx.config, false);
            w.raw(b"}");
            w.finish()
        }
        Err(e) => {
            let code = if e.kind == ErrorKind::Failure {
                ErrorCode::INTERNAL_ERROR
            } else {
                e.code
            };
            let mut w = Writer::new(out);
            whole_error(&mut w, Some(ctx.id), code, e.message, None);
            w.finish()
        }
    }
}

fn internal(
    ctx: &RequestContext<'_>,
    out: &mut [u8],
    message: &str,
) -> Result<usize, BufferTooSmall> {
    let mut w = Writer::new(out);
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
    out: &[u8],
    structured: Option<(usize, usize)>,
    schema: &str,
    limits: &Limits,
) -> Result<(), &'static str> {
    let (start, end) = structured
        .ok_or("the tool's result lacks the structuredContent its outputSchema requires")?;
    let bytes = out
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

fn write_trailer_as(
    w: &mut Writer<'_>,
    config: &super::Config<'_>,
    result_type: &str,
    cacheable: bool,
) {
    w.raw(b"\"resultType\":");
    w.str(result_type);
    w.raw(b",");
    if cacheable {
        w.raw(b"\"ttlMs\":");
        w.u64(config.ttl_ms);
        w.raw(b",\"cacheScope\":");
        w.str(config.cache_scope.name());
        w.raw(b",");
    }
    w.raw(b"\"_meta\":{");
    w.str(META_SERVER_INFO);
    w.raw(b":");
    config.info.write(w);
    w.raw(b"}}");
}
