//! Phase one of a round: parse, admit, route. The core answers what it can by itself
//! (errors, `server/discover`, lists, invalid tool arguments) and hands the rest to the
//! adapter as a typed [`Call`].

use super::call::{
    Call, Completion, CompletionRef, PromptGet, ResourceRead, ResourceTarget, ToolCall, UriText,
    write_trailer,
};
use super::context::RetryAt;
use super::definitions::Refused;
use super::plans::Plans;
use super::reply::whole_error;
use super::subscription::{Filter, Subscription};
use super::verified::Verified;
use super::{Config, Registry, RequestContext, Round, TaskSupport, Tool, lists, uri_template};
use crate::json::{BufferTooSmall, JsonStr, Key, Object, Value, Visitor, Writer};
use crate::protocol::{
    self, ClientCapabilities, MetaError, MetaFields, Method, SUPPORTED_VERSIONS,
};
use crate::rpc::emit;
use crate::rpc::{self, ErrorCode, Id, Incoming, Rejected, Request};
use crate::schema::{NotedMembers, Plan};

/// Admits and routes a parsed message, answering in the writer what the core answers
/// itself; `return`s the outcome. A macro rather than a function so that `accept` matches the
/// parse's result in place, as it did before it had an inspected twin (a function taking the
/// parsed message kept a copy of it on the device's stack).
macro_rules! admit {
    ($server:ident, $parsed:expr, $fields:ident, $round:ident, $w:ident) => {{
        let request = match $parsed {
            Err(rejected) => {
                whole_error(&mut $w, rejected.id, rejected.code, rejected.message, None);
                return $w.finish().map(Accepted::Replied);
            }
            Ok(Incoming::Response(_)) => return Ok(Accepted::Silent),
            Ok(Incoming::Notification(n)) => {
                if n.method.eq_str("notifications/cancelled") {
                    let id = n
                        .params
                        .and_then(|p| p.get("requestId"))
                        .and_then(rpc::Id::from_value);
                    if let Some(id) = id {
                        return Ok(Accepted::Cancelled(id));
                    }
                }
                return Ok(Accepted::Silent);
            }
            Ok(Incoming::Request(request)) => request,
        };
        $server.route(request, &$fields, $round, $w)
    }};
}

/// The outcome of [`Server::accept`].
// No heap in the core: a call lives on the stack for one round, unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Accepted<'a> {
    /// The core wrote the whole reply: `out[..n]`.
    Replied(usize),
    /// Nothing to send (a notification, or a response from the client).
    Silent,
    /// `notifications/cancelled`: stop the request with this id and send nothing for it.
    Cancelled(Id<'a>),
    /// The application must run this call, then give the outcome to its `finish`.
    Call(Call<'a>),
    /// `subscriptions/listen`: open a notification stream (see [`Subscription`]).
    Listen(Subscription<'a>),
    /// `tasks/get`, `tasks/update` or `tasks/cancel`, past the extension's gate (the
    /// request declared it): the host looks the task up for this round's principal and
    /// answers (feature `tasks`).
    #[cfg(feature = "tasks")]
    Task {
        /// The request's id.
        id: Id<'a>,
        /// What it asks.
        request: crate::tasks::TaskRequest<'a>,
    },
}

/// A server: configuration plus the application's registry, whose definitions passed
/// [`Server::check`] when it was made ([`Server::new`]), so that a bad definition is found at
/// start-up, never on the wire. It holds nothing of a round between rounds (only a memo of
/// which tool input schemas are known to parse); every round is independent.
#[derive(Debug)]
pub struct Server<'c, A> {
    pub(super) config: Config<'c>,
    pub(super) app: A,
    /// Which tools' input schemas are known to parse (a memo of the definitions, no
    /// request data).
    pub(super) verified: Verified,
    /// The tools' input schemas as read for validation (feature `schema-plans`).
    pub(super) plans: Plans,
}

impl<'c, A: Registry> Server<'c, A> {
    /// A server for `app`, once its definitions pass [`Server::check`]; otherwise the
    /// refusal, which names the definition and gives the application back.
    ///
    /// ```
    /// use snodo_core::server::{Config, Registry, Server, Tool};
    ///
    /// #[derive(Debug)]
    /// struct Bad;
    /// impl Registry for Bad {
    ///     fn tools(&self) -> &[Tool<'_>] {
    ///         const TOOLS: &[Tool<'static>] = &[Tool::new("x").input_schema("[]")];
    ///         TOOLS
    ///     }
    /// }
    /// let refused = Server::new(Config::new("s", "1.0"), Bad).unwrap_err();
    /// assert_eq!(refused.to_string(), "x: inputSchema must be a JSON object");
    /// ```
    pub fn new(config: Config<'c>, app: A) -> Result<Self, Refused<A>> {
        let server = Server::unchecked(config, app);
        match server.first_problem() {
            None => Ok(server),
            Some((definition, problem)) => Err(Refused::new(server.app, definition, problem)),
        }
    }

    /// A server whose definitions were not checked: only for the tests of what a round does
    /// with a definition that went bad after the check.
    pub(super) const fn unchecked(config: Config<'c>, app: A) -> Self {
        Server {
            config,
            app,
            verified: Verified::new(),
            plans: Plans::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config<'c> {
        &self.config
    }

    /// The application.
    pub fn app(&self) -> &A {
        &self.app
    }

    /// Phase one: reads one message from `input` and either answers it in `out` or returns
    /// the call the application must run.
    ///
    /// Never inlined: admission and routing need kilobytes of stack for a moment, and inlined
    /// into the caller (`Server::handle`, a serve loop) that room would stay taken while the
    /// application's handler runs.
    #[inline(never)]
    pub fn accept<'a>(
        &'a self,
        input: &'a [u8],
        round: Round<'a>,
        out: &mut [u8],
    ) -> Result<Accepted<'a>, BufferTooSmall> {
        let mut w = Writer::new(out);
        // The members of params (and of their _meta) that routing reads are noted while the
        // message is scanned, rather than found by walking it again.
        let mut fields = ParamsFields::default();
        admit!(
            self,
            rpc::parse_visiting(input, &self.config.limits, &mut fields),
            fields,
            round,
            w
        )
    }

    /// [`Server::accept`], with `inspect` shown the parsed message before it is routed, so
    /// that a transport with checks of its own parses the message once (the HTTP adapter
    /// compares a request's headers with it and notes its method). When `inspect` refuses
    /// the message, nothing is written and its refusal is returned instead.
    #[inline(never)]
    pub fn accept_inspected<'a, R>(
        &'a self,
        input: &'a [u8],
        round: Round<'a>,
        out: &mut [u8],
        inspect: impl FnOnce(&Result<Incoming<'a>, Rejected<'a>>) -> Result<(), R>,
    ) -> Result<Result<Accepted<'a>, R>, BufferTooSmall> {
        let mut w = Writer::new(out);
        let mut fields = ParamsFields::default();
        let parsed = rpc::parse_visiting(input, &self.config.limits, &mut fields);
        if let Err(refused) = inspect(&parsed) {
            return Ok(Err(refused));
        }
        let accepted: Result<Accepted<'a>, BufferTooSmall> =
            (|| admit!(self, parsed, fields, round, w))();
        accepted.map(Ok)
    }

    /// Routes `request`: the call the application must run, built where it is returned
    /// (a call is large, and each move of it costs a copy), or what the core answers itself,
    /// written in `w`.
    fn route<'a>(
        &'a self,
        request: Request<'a>,
        fields: &ParamsFields<'a>,
        round: Round<'a>,
        mut w: Writer<'_>,
    ) -> Result<Accepted<'a>, BufferTooSmall> {
        /// The value of `$result`, or a `break` out of the block `$answer` with its refusal.
        macro_rules! or_refuse {
            ($result:expr, $answer:lifetime) => {
                match $result {
                    Ok(value) => value,
                    Err(refusal) => break $answer Err(Refusal::from(refusal)),
                }
            };
        }
        let answered: Result<Answer<'a>, Refusal<'a>> = 'answer: {
            let admit_meta = || match protocol::admit_meta(fields.meta, Some(&fields.meta_fields)) {
                Ok(meta) => Ok(meta),
                Err(MetaError::Invalid(message)) => Err(Refusal::Invalid(message)),
                Err(MetaError::UnsupportedVersion(v)) => Err(Refusal::Version(v)),
            };
            let Some(method) = Method::from_name(request.method) else {
                #[cfg(feature = "tasks")]
                if let Some(task_method) =
                    crate::tasks::TaskMethod::of(request.method).filter(|_| self.serves_tasks())
                {
                    let meta = or_refuse!(admit_meta(), 'answer);
                    let read =
                        crate::tasks::read_request(task_method, request.params, meta.capabilities);
                    return match read {
                        Ok(task) => Ok(Accepted::Task {
                            id: request.id,
                            request: task,
                        }),
                        Err(refused) => {
                            crate::tasks::write_refusal(&mut w, Some(request.id), refused);
                            w.finish().map(Accepted::Replied)
                        }
                    };
                }
                break 'answer Err(Refusal::UnknownMethod(request.method));
            };
            let meta = or_refuse!(admit_meta(), 'answer);
            let caps = self.app.capabilities();
            let advertised = match method {
                Method::Discover => true,
                Method::ToolsList | Method::ToolsCall => caps.tools,
                Method::ResourcesList | Method::ResourceTemplatesList | Method::ResourcesRead => {
                    caps.resources
                }
                Method::PromptsList | Method::PromptsGet => caps.prompts,
                Method::Complete => caps.completions,
                Method::SubscriptionsListen => true,
            };
            if !advertised {
                break 'answer Err(Refusal::UnknownMethod(request.method));
            }
            let ctx = RequestContext {
                id: request.id,
                method,
                params: request.params,
                meta,
                round,
                config: &self.config,
                retry_at: RetryAt::new(
                    request.params,
                    fields.request_state,
                    fields.input_responses,
                ),
                #[cfg(feature = "retry-prefix")]
                prefix: None,
                #[cfg(feature = "tasks")]
                task: crate::tasks::TaskPhase::Unavailable,
            };
            let params = request.params.unwrap_or(Object::EMPTY);
            if method.allows_input_required() {
                or_refuse!(
                    check_retry_envelope(fields.request_state, fields.input_responses),
                    'answer
                );
            }
            let call = match method {
                Method::Discover => break 'answer Ok(Answer::Discover),
                Method::ToolsList
                | Method::ResourcesList
                | Method::ResourceTemplatesList
                | Method::PromptsList => {
                    let start = or_refuse!(lists::cursor(fields.cursor), 'answer);
                    if start > lists::len(&self.app, method) {
                        break 'answer Err(Refusal::Invalid("Invalid cursor"));
                    }
                    break 'answer Ok(Answer::List(method, start));
                }
                Method::ToolsCall => {
                    let (tool, index, arguments) = or_refuse!(self.tool_call(fields), 'answer);
                    let declared = ctx.meta.capabilities;
                    if tool.task_support == TaskSupport::Required
                        && !(cfg!(feature = "tasks")
                            && declared.contains(ClientCapabilities::TASKS))
                    {
                        break 'answer Err(Refusal::TaskRequired);
                    }
                    #[cfg(feature = "tasks")]
                    let ctx = RequestContext {
                        task: crate::tasks::TaskPhase::of(tool.task_support, declared),
                        ..ctx
                    };
                    if let Some(violation) =
                        self.invalid_arguments(tool, index, arguments, &fields.argument_members)
                    {
                        break 'answer Ok(Answer::InvalidArguments(violation));
                    }
                    // The common call, built in the result itself.
                    return Ok(Accepted::Call(Call::Tool(ToolCall {
                        ctx,
                        tool,
                        arguments,
                    })));
                }
                // Built in a frame of its own: a resource read carries a decoded URI and is
                // the largest call, and room for it in this frame would stay on the stack of
                // every round, a tool call's validation included.
                Method::ResourcesRead => {
                    return Ok(Accepted::Call(or_refuse!(
                        self.resource_read(ctx, fields),
                        'answer
                    )));
                }
                Method::PromptsGet => {
                    Call::Prompt(or_refuse!(self.prompt_get(ctx, fields), 'answer))
                }
                Method::Complete => Call::Complete(or_refuse!(completion(ctx, params), 'answer)),
                Method::SubscriptionsListen => {
                    let Some(filter) = Filter::read(params) else {
                        break 'answer Err(Refusal::Invalid(
                            "notifications must be a subscription filter",
                        ));
                    };
                    let serves_tasks = self.tasks_served();
                    // Asking for task notifications takes the extension's declaration in
                    // this request, as every task method does.
                    if filter.task_ids.is_some()
                        && serves_tasks
                        && !ctx.meta.capabilities.contains(ClientCapabilities::TASKS)
                    {
                        break 'answer Err(Refusal::TaskRequired);
                    }
                    return Ok(Accepted::Listen(Subscription {
                        id: request.id,
                        filter: filter.honoured(caps, serves_tasks),
                        info: &self.config.info,
                    }));
                }
            };
            return Ok(Accepted::Call(call));
        };
        match answered {
            Ok(answer) => answer.write(&mut w, self, request.id),
            Err(refusal) => {
                crate::log::debug!("request refused before any handler ran");
                refusal.write(&mut w, request.id, &self.config);
            }
        }
        w.finish().map(Accepted::Replied)
    }

    /// Whether any tool supports tasks: only then are the extension's methods served (to
    /// any other server they are unknown, -32601) and the extension advertised.
    #[cfg(feature = "tasks")]
    pub fn serves_tasks(&self) -> bool {
        self.app
            .tools()
            .iter()
            .any(|t| t.task_support != TaskSupport::Forbidden)
    }

    /// `Server::serves_tasks`, and `false` in a build without the extension.
    fn tasks_served(&self) -> bool {
        #[cfg(feature = "tasks")]
        return self.serves_tasks();
        #[cfg(not(feature = "tasks"))]
        return false;
    }

    /// The tool a `tools/call` names, its index, and its arguments.
    fn tool_call<'a>(
        &'a self,
        params: &ParamsFields<'a>,
    ) -> Result<(&'a Tool<'a>, usize, Option<Object<'a>>), Refusal<'a>> {
        let name = required_str(params.name, "tools/call needs a string name")?;
        let (index, tool) = self
            .app
            .tools()
            .iter()
            .enumerate()
            .find(|(_, t)| name.eq_str(t.name))
            .ok_or(Refusal::Invalid("Unknown tool"))?;
        let arguments = match params.arguments {
            None => None,
            Some(v) => Some(
                v.as_object()
                    .ok_or(Refusal::Invalid("arguments must be an object"))?,
            ),
        };
        Ok((tool, index, arguments))
    }

    /// Validates a tool call's arguments against the tool's input schema; a violation is
    /// answered as a tool error result the model can correct.
    fn invalid_arguments<'a>(
        &self,
        tool: &'a Tool<'a>,
        index: usize,
        arguments: Option<Object<'a>>,
        noted: &NotedMembers<'a>,
    ) -> Option<Result<crate::schema::Violation<'a>, &'static str>> {
        let text = tool.input_schema.as_bytes();
        let schema = if self.verified.input_schema(index, tool) {
            crate::json::view_accepted(text)
        } else {
            let Ok(schema) = crate::json::parse(text, &self.config.limits) else {
                return Some(Err("the tool's inputSchema is not valid JSON"));
            };
            self.verified.set_input_schema(index, tool);
            schema
        };
        let arguments = arguments.unwrap_or(Object::EMPTY).as_value();
        let mut kept = Plan::EMPTY;
        let plan = self.plans.get_into(index, tool, text, &mut kept);
        if !plan {
            self.plans.put(index, tool, text, || Plan::compile(schema));
        }
        let plan = plan.then_some(&kept);
        let verdict = crate::schema::validate_prepared(schema, plan, arguments, Some(noted));
        verdict.err().map(Ok)
    }

    #[inline(never)]
    fn resource_read<'a>(
        &'a self,
        ctx: RequestContext<'a>,
        params: &ParamsFields<'a>,
    ) -> Result<Call<'a>, Refusal<'a>> {
        let uri_json = required_str(params.uri, "resources/read needs a string uri")?;
        let unknown = Refusal::UnknownResource(uri_json);
        let uri_text = UriText::new(uri_json).ok_or(unknown)?;
        let uri = uri_text.as_str();
        let target = if let Some(r) = self.app.resources().iter().find(|r| r.uri == uri) {
            ResourceTarget::Fixed(r)
        } else if let Some(t) = self
            .app
            .resource_templates()
            .iter()
            .find(|t| uri_template::matches(t.uri_template, uri))
        {
            ResourceTarget::Template(t)
        } else {
            return Err(unknown);
        };
        Ok(Call::Resource(ResourceRead {
            ctx,
            uri: uri_text,
            uri_json,
            target,
        }))
    }

    fn prompt_get<'a>(
        &'a self,
        ctx: RequestContext<'a>,
        params: &ParamsFields<'a>,
    ) -> Result<PromptGet<'a>, Refusal<'a>> {
        let name = required_str(params.name, "prompts/get needs a string name")?;
        let prompt = self
            .app
            .prompts()
            .iter()
            .find(|p| name.eq_str(p.name))
            .ok_or(Refusal::Invalid("Unknown prompt"))?;
        let arguments = match params.arguments {
            None => None,
            Some(v) => {
                let args = v
                    .as_object()
                    .ok_or(Refusal::Invalid("arguments must be an object"))?;
                if args.iter().any(|(_, v)| v.as_str().is_none()) {
                    return Err(Refusal::Invalid("prompt arguments must be strings"));
                }
                Some(args)
            }
        };
        for arg in prompt.arguments.iter().filter(|a| a.required) {
            if arguments.and_then(|a| a.get(arg.name)).is_none() {
                return Err(Refusal::MissingPromptArgument(arg.name));
            }
        }
        Ok(PromptGet {
            ctx,
            prompt,
            arguments,
        })
    }
}

fn completion<'a>(
    ctx: RequestContext<'a>,
    params: Object<'a>,
) -> Result<Completion<'a>, Refusal<'a>> {
    const BAD_REF: Refusal<'static> = Refusal::Invalid("ref must be a ref/prompt or ref/resource");
    let reference = params
        .get("ref")
        .and_then(|r| r.as_object())
        .ok_or(BAD_REF)?;
    let kind = required_str(reference.get("type"), "ref.type must be a string")?;
    let reference = if kind.eq_str("ref/prompt") {
        CompletionRef::Prompt(required_str(
            reference.get("name"),
            "ref.name must be a string",
        )?)
    } else if kind.eq_str("ref/resource") {
        CompletionRef::Resource(required_str(
            reference.get("uri"),
            "ref.uri must be a string",
        )?)
    } else {
        return Err(BAD_REF);
    };
    let argument = params
        .get("argument")
        .and_then(|a| a.as_object())
        .ok_or(Refusal::Invalid("argument must be an object"))?;
    let context_arguments = match params.get("context") {
        None => None,
        Some(c) => {
            let c = c
                .as_object()
                .ok_or(Refusal::Invalid("context must be an object"))?;
            match c.get("arguments") {
                None => None,
                Some(a) => Some(
                    a.as_object()
                        .ok_or(Refusal::Invalid("context.arguments must be an object"))?,
                ),
            }
        }
    };
    Ok(Completion {
        ctx,
        reference,
        argument_name: required_str(argument.get("name"), "argument.name must be a string")?,
        argument_value: required_str(argument.get("value"), "argument.value must be a string")?,
        context_arguments,
    })
}

/// `requestState` must be a string and `inputResponses` an object of objects, checked before
/// any handler runs.
fn check_retry_envelope(
    request_state: Option<Value<'_>>,
    input_responses: Option<Value<'_>>,
) -> Result<(), Refusal<'static>> {
    if let Some(state) = request_state {
        if state.as_str().is_none() {
            return Err(Refusal::Invalid("requestState must be a string"));
        }
    }
    if let Some(responses) = input_responses {
        let all_objects = responses
            .as_object()
            .is_some_and(|r| r.iter().all(|(_, v)| v.as_object().is_some()));
        if !all_objects {
            return Err(Refusal::Invalid(
                "inputResponses must be an object of response objects",
            ));
        }
    }
    Ok(())
}

/// The string `value`, or a refusal with `message` when it is absent or not a string.
fn required_str<'a>(
    value: Option<Value<'a>>,
    message: &'static str,
) -> Result<JsonStr<'a>, Refusal<'a>> {
    value
        .and_then(|v| v.as_str())
        .ok_or(Refusal::Invalid(message))
}

/// The top-level members of `params` that routing reads, and the members of `params._meta`
/// that admission reads, noted while the message is scanned (each `get` would walk the
/// params again, and `arguments` can be most of the message).
#[derive(Clone, Copy, Default)]
struct ParamsFields<'a> {
    meta: Option<Value<'a>>,
    name: Option<Value<'a>>,
    arguments: Option<Value<'a>>,
    uri: Option<Value<'a>>,
    cursor: Option<Value<'a>>,
    request_state: Option<Value<'a>>,
    input_responses: Option<Value<'a>>,
    meta_fields: MetaFields<'a>,
    /// The members of `arguments`, for validating them without walking them again.
    argument_members: NotedMembers<'a>,
    /// Which member of params is being scanned.
    member: Field,
}

/// A member of params that routing reads.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Field {
    #[default]
    Other,
    Meta,
    Name,
    Arguments,
    Uri,
    Cursor,
    RequestState,
    InputResponses,
}

impl Field {
    /// The field named `key`: one match on its bytes (decoded first only if escaped).
    fn of(key: &Key<'_>) -> Field {
        let mut buf = [0u8; 16];
        match key.decoded(&mut buf) {
            Some(b"_meta") => Field::Meta,
            Some(b"name") => Field::Name,
            Some(b"arguments") => Field::Arguments,
            Some(b"uri") => Field::Uri,
            Some(b"cursor") => Field::Cursor,
            Some(b"requestState") => Field::RequestState,
            Some(b"inputResponses") => Field::InputResponses,
            _ => Field::Other,
        }
    }
}

impl<'a> Visitor<'a> for ParamsFields<'a> {
    /// Members of params (depth 1) and of an object directly in them (depth 2).
    const DEPTH: u16 = 2;

    fn enter(&mut self, depth: u16, key: &Key<'a>) {
        if depth == 1 {
            self.member = Field::of(key);
        }
    }

    fn leave(&mut self, depth: u16, key: &Key<'a>, value: Value<'a>) {
        if depth == 2 {
            match self.member {
                Field::Meta => self.meta_fields.note(key, value),
                Field::Arguments => self.argument_members.note(key.text(), value),
                _ => {}
            }
            return;
        }
        // Keys are unique (the scanner refuses duplicates), so this finds what `get` would.
        let slot = match core::mem::take(&mut self.member) {
            Field::Meta => &mut self.meta,
            Field::Name => &mut self.name,
            Field::Arguments => {
                self.argument_members.close(value);
                &mut self.arguments
            }
            Field::Uri => &mut self.uri,
            Field::Cursor => &mut self.cursor,
            Field::RequestState => &mut self.request_state,
            Field::InputResponses => &mut self.input_responses,
            Field::Other => return,
        };
        *slot = Some(value);
    }
}

/// Requests the core answers itself.
enum Answer<'a> {
    Discover,
    List(Method, usize),
    /// Tool arguments that fail the input schema: a tool error result the model can act on.
    InvalidArguments(Result<crate::schema::Violation<'a>, &'static str>),
}

impl Answer<'_> {
    fn write<A: Registry>(&self, w: &mut Writer<'_>, server: &Server<'_, A>, id: Id<'_>) {
        let config = &server.config;
        emit::result(w, id);
        w.raw(b"{");
        let cacheable = match self {
            Answer::Discover => {
                #[cfg(feature = "tasks")]
                let tasks = server.serves_tasks();
                #[cfg(not(feature = "tasks"))]
                let tasks = false;
                lists::discover(w, config, server.app.capabilities(), tasks);
                true
            }
            Answer::List(method, start) => {
                lists::page(w, config, &server.app, &server.verified, *method, *start);
                true
            }
            Answer::InvalidArguments(problem) => {
                w.raw(b"\"content\":[{\"type\":\"text\",\"text\":");
                match problem {
                    Ok(violation) => w.str_fmt(format_args!("Invalid arguments: {violation}")),
                    Err(message) => w.str(message),
                };
                w.raw(b"}],\"isError\":true,");
                false
            }
        };
        write_trailer(w, config, cacheable);
        w.raw(b"}");
    }
}

/// Why a request is refused before any handler runs.
#[derive(Clone, Copy)]
enum Refusal<'a> {
    UnknownMethod(JsonStr<'a>),
    Invalid(&'static str),
    Version(JsonStr<'a>),
    UnknownResource(JsonStr<'a>),
    MissingPromptArgument(&'a str),
    /// A tool that must run as a task, called by a request that did not declare the Tasks
    /// extension (or by a core built without it).
    TaskRequired,
}

impl From<lists::BadCursor> for Refusal<'_> {
    fn from(_: lists::BadCursor) -> Self {
        Refusal::Invalid("Invalid cursor")
    }
}

impl Refusal<'_> {
    fn write(&self, w: &mut Writer<'_>, id: Id<'_>, config: &Config<'_>) {
        let id = Some(id);
        match *self {
            Refusal::UnknownMethod(name) => {
                if name.eq_str("initialize") {
                    whole_error(
                        w,
                        id,
                        ErrorCode::METHOD_NOT_FOUND,
                        config.eras.initialize_refusal(),
                        Some(&|w: &mut Writer<'_>| {
                            w.object(|o| {
                                o.array("supported", |a| {
                                    for v in SUPPORTED_VERSIONS {
                                        a.str(v);
                                    }
                                });
                            });
                        }),
                    );
                } else {
                    whole_error(w, id, ErrorCode::METHOD_NOT_FOUND, "Method not found", None);
                }
            }
            Refusal::Invalid(message) => {
                whole_error(w, id, ErrorCode::INVALID_PARAMS, message, None);
            }
            Refusal::Version(requested) => whole_error(
                w,
                id,
                ErrorCode::UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                Some(&|w: &mut Writer<'_>| {
                    w.object(|o| {
                        o.array("supported", |a| {
                            for v in SUPPORTED_VERSIONS {
                                a.str(v);
                            }
                        });
                        o.key("requested").json_str(requested);
                    });
                }),
            ),
            Refusal::UnknownResource(uri) => whole_error(
                w,
                id,
                ErrorCode::INVALID_PARAMS,
                "Resource not found",
                Some(&|w: &mut Writer<'_>| {
                    w.object(|o| {
                        o.key("uri").json_str(uri);
                    });
                }),
            ),
            Refusal::TaskRequired => {
                w.rewind(0);
                super::reply::write_tasks_required(w, id);
            }
            Refusal::MissingPromptArgument(name) => whole_error(
                w,
                id,
                ErrorCode::INVALID_PARAMS,
                "Missing required prompt argument",
                Some(&|w: &mut Writer<'_>| {
                    w.object(|o| {
                        o.str("argument", name);
                    });
                }),
            ),
        }
    }
}
