//! Fixtures for the multi round-trip (MRTR) acceptance suite.
//!
//! - [`Preferences`]: the preference flow of the seed's example 20, exactly as the byte-level
//!   example ships it (its `flow.rs` and `mrtr_app.rs` are included from
//!   `std-adapters/examples/preferences_bytes/`; the `preferences` example serves the same
//!   flow through the typed layer), counting handler runs; [`typed_preferences`]: that typed
//!   flow, which the preference suite runs on every boundary ([`typed_preferences_server`]
//!   in-process).
//! - [`MrtrFixture`]: an application for the rules the example does not reach: several inputs
//!   at once, sampling, roots, one result asking all three kinds with signed partial
//!   progress, a tool that asks only for what the client declared, a tool with an output
//!   schema that asks first, a completion that tries `input_required`, the three ways a
//!   handler can fail after a retry, malformed `input_required` outcomes, and tools and a
//!   prompt that report what their arguments and retry fields look like from the inside.
//! - [`Guard`] and [`AsksForSampling`]: middleware that refuses a principal and counts calls,
//!   and middleware that answers by itself with an input request.
//! - Helpers to build MRTR requests with chosen client capabilities, to write the expected
//!   `input_required` results and errors, and to run a round at a chosen time and principal.
//!
//! Expected values are written in the tests from the specification and the seed; nothing here
//! computes an expected value from the code under test.

use core::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value, json};
use snodo_core::json::{JsonStr, Object, Writer};
use snodo_core::mrtr::{Action, CreateMessage, Elicitation, ListRoots, Response};
use snodo_core::rpc::ErrorCode;
use snodo_core::server::{
    Completion, CompletionReply, Config, Done, Error, Handler, Middleware, Principal, Prompt,
    PromptArgument, PromptGet, PromptReply, Reply, RequestContext, Resource, ResourceRead,
    ResourceReply, ResourceTarget, ResourceTemplate, Role, Round, Server, Tool, ToolCall,
    ToolReply,
};
use snodo_core::state::{Keys, OPEN_SCRATCH_LEN, StateOptions, Ttl};

use snodo_std::AsyncHandler;
use snodo_std::typed::TypedApp;

use crate::boundary::{Counted, StateKeys};
use crate::catalogue::{Catalogue, Runs};
use crate::harness::{ANY_STRING, NOW, PROTOCOL_VERSION, round_async, server_info};

#[path = "../../std-adapters/examples/preferences_bytes/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences_bytes/mrtr_app.rs"]
mod mrtr_app;
#[path = "../../std-adapters/examples/preferences/flows.rs"]
pub mod typed_flows;

// ---------------------------------------------------------------------------------------
// State keys
// ---------------------------------------------------------------------------------------

/// The 32-byte secret every MRTR fixture server seals its state with.
pub const SECRET: [u8; 32] = *b"snodo-tests mrtr secret 32 bytes";

/// Another secret, for a server that must not open the first one's tokens.
pub const OTHER_SECRET: [u8; 32] = *b"another secret, also of 32 bytes";

/// The state TTL of [`state_options`] (the protocol helper's default), in seconds.
pub const STATE_TTL_SECS: u64 = 300;

/// State options with [`SECRET`] and the default TTL. Each call builds them anew, the way a
/// fresh process would from the same configured secret.
pub fn state_options() -> StateOptions {
    StateOptions::new(Keys::secret(&SECRET).expect("a 32-byte secret is valid"))
}

/// State options with [`OTHER_SECRET`].
pub fn other_state_options() -> StateOptions {
    StateOptions::new(Keys::secret(&OTHER_SECRET).expect("a 32-byte secret is valid"))
}

/// State options with [`SECRET`] and a TTL of `secs`.
pub fn state_options_with_ttl(secs: u64) -> StateOptions {
    state_options().with_ttl(Ttl::from_secs(secs).expect("a TTL from 1 to 900 s"))
}

/// The fixtures' configuration (identity of [`crate::fixture`]) with these state keys.
pub fn config(state: &StateOptions) -> Config<'_> {
    crate::fixture::config().with_state(state)
}

/// A server for a fresh [`Preferences`] sealing with `state`.
pub fn preferences_server(state: &StateOptions) -> Server<'_, Preferences> {
    Server::new(config(state), Preferences::new()).expect("valid definitions")
}

/// The `preferences` example's typed form flows (the tools `preference_preview`,
/// `reset_preview` and `url_preview`, the resource and the prompt, from its `flows.rs`) with
/// the fixtures' identity, for `mrtr-fixture-server --app preferences`. Add the state keys
/// and build.
pub fn typed_preferences() -> snodo_std::typed::ServerBuilder {
    use crate::fixture::{INSTRUCTIONS, SERVER_NAME, SERVER_TITLE, SERVER_VERSION};
    let builder = snodo_std::typed::server(SERVER_NAME, SERVER_VERSION)
        .title(SERVER_TITLE)
        .instructions(INSTRUCTIONS);
    typed_flows::form_flows(builder)
        .resource(typed_flows::preference_resource())
        .prompt(typed_flows::preference_prompt())
}

/// The `preferences` example's typed flows in-process ([`typed_preferences`]), sealing with
/// `keys` ([`StateKeys::Own`]: [`SECRET`]), with its handler runs counted.
pub fn typed_preferences_server(keys: &StateKeys) -> Server<'static, Counted<TypedApp>> {
    let builder = typed_preferences();
    let builder = match keys {
        StateKeys::Own => builder.state(
            Keys::secret(&SECRET).expect("a 32-byte secret is valid"),
            Ttl::DEFAULT,
        ),
        StateKeys::None => builder.stateless(),
        keys => builder.state(keys.keys().expect("chosen keys"), Ttl::DEFAULT),
    };
    let built = builder
        .build()
        .expect("the example's definitions are valid");
    Server::new(*built.config(), Counted::new(built.app().clone())).expect("valid definitions")
}

/// A server for a fresh [`MrtrFixture`] sealing with `state`.
pub fn mrtr_server(state: &StateOptions) -> Server<'_, MrtrFixture> {
    Server::new(config(state), MrtrFixture::new()).expect("valid definitions")
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/// Every input-request capability a client can declare.
pub fn all_caps() -> Value {
    json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {"tools": {}, "context": {}},
        "roots": {}
    })
}

/// Form elicitation only (`elicitation: {}` means form).
pub fn form_caps() -> Value {
    json!({"elicitation": {}})
}

/// The request `_meta` with `caps` as the client capabilities.
pub fn meta_with(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "snodo-tests", "version": "0.0.0"}
    })
}

/// A request for `method` whose params are `params` plus a `_meta` declaring `caps`.
pub fn send(id: impl Into<Value>, method: &str, params: Value, caps: Value) -> String {
    let mut params = match params {
        Value::Object(map) => map,
        other => panic!("params must be an object, not {other}"),
    };
    params.insert("_meta".into(), meta_with(caps));
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}).to_string()
}

/// `params` with the retry fields added: `requestState` when `state` is given and
/// `inputResponses` when `responses` is given.
pub fn retry(params: Value, state: Option<&str>, responses: Option<Value>) -> Value {
    let mut params: Map<String, Value> = match params {
        Value::Object(map) => map,
        other => panic!("params must be an object, not {other}"),
    };
    if let Some(state) = state {
        params.insert("requestState".into(), json!(state));
    }
    if let Some(responses) = responses {
        params.insert("inputResponses".into(), responses);
    }
    Value::Object(params)
}

/// An elicitation answer that accepts with `content`.
pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// An elicitation answer with `action` and no content.
pub fn answer(action: &str) -> Value {
    json!({"action": action})
}

/// A sampling answer: an assistant text message from `model`.
pub fn sampled(text: &str, model: &str) -> Value {
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model,
        "stopReason": "endTurn"
    })
}

/// A roots answer listing `uris`.
pub fn roots_answer(uris: &[&str]) -> Value {
    let roots: Vec<Value> = uris.iter().map(|u| json!({"uri": u})).collect();
    json!({"roots": roots})
}

// ---------------------------------------------------------------------------------------
// Expected values
// ---------------------------------------------------------------------------------------

/// An `input_required` result response with `members` (`inputRequests` and/or
/// `requestState`), `resultType: "input_required"` and the server's `_meta`, and no cache
/// hints.
pub fn input_required(id: impl Into<Value>, members: Value) -> Value {
    input_required_from(&server_info(), id, members)
}

/// [`input_required`] for a server whose `serverInfo` is `info`.
pub fn input_required_from(info: &Value, id: impl Into<Value>, members: Value) -> Value {
    let mut result = members
        .as_object()
        .cloned()
        .expect("result members are an object");
    result.insert("resultType".into(), json!("input_required"));
    result.insert(
        "_meta".into(),
        json!({"io.modelcontextprotocol/serverInfo": info}),
    );
    json!({"jsonrpc": "2.0", "id": id.into(), "result": result})
}

/// The opaque `requestState` in an expected value: any non-empty string.
pub const SOME_STATE: &str = ANY_STRING;

/// An `elicitation/create` input request in form mode.
pub fn form_request(message: &str, schema: Value) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema}
    })
}

/// An `elicitation/create` input request in URL mode.
pub fn url_request(message: &str, url: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {"mode": "url", "message": message, "url": url}
    })
}

/// A `sampling/createMessage` input request with `params`.
pub fn sampling_request(params: Value) -> Value {
    json!({"method": "sampling/createMessage", "params": params})
}

/// A `roots/list` input request.
pub fn roots_request() -> Value {
    json!({"method": "roots/list", "params": {}})
}

/// The -32021 error whose `data.requiredCapabilities` is `required`.
pub fn missing_capability(id: impl Into<Value>, required: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.into(),
        "error": {
            "code": -32021,
            "message": ANY_STRING,
            "data": {"requiredCapabilities": required}
        }
    })
}

/// The one error for state that does not open: -32602 "Invalid request state", no data.
pub fn invalid_state(id: impl Into<Value>) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.into(),
        "error": {"code": -32602, "message": "Invalid request state"}
    })
}

/// The `requestState` of an `input_required` reply.
#[track_caller]
pub fn state_of(reply: &Value) -> String {
    match reply.pointer("/result/requestState") {
        Some(Value::String(s)) => s.clone(),
        _ => panic!("the reply carries no requestState: {reply:#}"),
    }
}

/// Parses a text that is JSON, failing the test otherwise.
#[track_caller]
pub fn parse_text(text: &Value) -> Value {
    let Value::String(text) = text else {
        panic!("expected a text, got {text}");
    };
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the text is not JSON ({e}): {text}"))
}

// ---------------------------------------------------------------------------------------
// Rounds
// ---------------------------------------------------------------------------------------

/// Runs one message at `round` (time and principal) through the asynchronous round;
/// `None` when the server sends nothing.
pub fn round_at<A: AsyncHandler>(
    server: &Server<'_, A>,
    input: &str,
    round: Round<'_>,
) -> Option<Value> {
    round_async(server, input.as_bytes(), round).1
}

/// Runs one message at [`NOW`] as `principal`.
pub fn round_as<A: AsyncHandler>(
    server: &Server<'_, A>,
    input: &str,
    principal: &str,
) -> Option<Value> {
    round_at(
        server,
        input,
        Round {
            now: NOW.now,
            principal: Principal::Id(principal),
        },
    )
}

/// Runs one message anonymously `secs` seconds after [`NOW`].
pub fn round_later<A: AsyncHandler>(
    server: &Server<'_, A>,
    input: &str,
    secs: u64,
) -> Option<Value> {
    round_at(server, input, Round::anonymous(NOW.now + secs))
}

// ---------------------------------------------------------------------------------------
// The preference flow of example 20
// ---------------------------------------------------------------------------------------

/// The example application's MRTR part, with a counter of handler runs.
#[derive(Debug, Default)]
pub struct Preferences {
    runs: Runs,
}

impl Preferences {
    /// A fresh application whose handlers have not run.
    pub const fn new() -> Self {
        Preferences { runs: Runs::new() }
    }

    /// How many times any handler has run.
    pub fn handler_runs(&self) -> usize {
        self.runs.count()
    }

    fn ran(&self) {
        self.runs.ran();
    }
}

/// What [`Preferences`] lists: the byte-level example's catalogue.
pub const PREFERENCES_CATALOGUE: Catalogue = Catalogue::new()
    .tools(&mrtr_app::TOOLS)
    .resources(core::slice::from_ref(&mrtr_app::RESOURCE))
    .prompts(core::slice::from_ref(&mrtr_app::PROMPT));

crate::registry!(Preferences => PREFERENCES_CATALOGUE);

impl Handler for Preferences {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        self.ran();
        mrtr_app::call_tool(call, reply)
            .unwrap_or(Err(Error::internal("the core routes known tools only")))
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        mrtr_app::read_resource(call, reply)
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        mrtr_app::get_prompt(call, reply)
    }
}

// ---------------------------------------------------------------------------------------
// The MRTR fixture application
// ---------------------------------------------------------------------------------------

/// `book_trip`'s input schema.
pub const TRIP_SCHEMA: &str =
    r#"{"type":"object","properties":{"traveller":{"type":"string"}},"required":["traveller"]}"#;
/// The form `origin` and `destination` ask with.
pub const CITY_FORM: &str = r#"{"type":"object","properties":{"city":{"type":"string","minLength":1}},"required":["city"]}"#;
/// The form `date` asks with.
pub const DATE_FORM: &str = r#"{"type":"object","properties":{"day":{"type":"string","format":"date"}},"required":["day"]}"#;
/// The form `approval` asks with.
pub const APPROVAL_FORM: &str =
    r#"{"type":"object","properties":{"approve":{"type":"boolean"}},"required":["approve"]}"#;
/// The form `name` asks with.
pub const NAME_FORM: &str = r#"{"type":"object","properties":{"name":{"type":"string","maxLength":20}},"required":["name"]}"#;
/// The form `go` asks with (nothing required).
pub const GO_FORM: &str = r#"{"type":"object","properties":{"note":{"type":"string"}}}"#;

/// `summarize`'s input schema: which sampling request to send.
pub const SUMMARIZE_SCHEMA: &str = r#"{"type":"object","properties":{"variant":{"type":"string","enum":["plain","tools","tool_choice","context","no_context"]}}}"#;
/// Sampling params: one user message and a token bound.
pub const SAMPLING_PLAIN: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the release notes in one sentence"}}],"maxTokens":60}"#;
/// Sampling params with a tool (needs `sampling.tools`).
pub const SAMPLING_TOOLS: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the release notes in one sentence"}}],"maxTokens":60,"tools":[{"name":"lookup","inputSchema":{"type":"object"}}]}"#;
/// Sampling params with a tool choice (needs `sampling.tools`).
pub const SAMPLING_TOOL_CHOICE: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the release notes in one sentence"}}],"maxTokens":60,"toolChoice":{"mode":"none"}}"#;
/// Sampling params including context (needs `sampling.context`).
pub const SAMPLING_CONTEXT: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the release notes in one sentence"}}],"maxTokens":60,"includeContext":"thisServer"}"#;
/// Sampling params with `includeContext: "none"` (needs only `sampling`).
pub const SAMPLING_NO_CONTEXT: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the release notes in one sentence"}}],"maxTokens":60,"includeContext":"none"}"#;

/// `forecast`'s output schema.
pub const FORECAST_OUTPUT: &str = r#"{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"integer"}},"required":["city","temperature"],"additionalProperties":false}"#;
/// `outcome`'s input schema.
pub const OUTCOME_SCHEMA: &str = r#"{"type":"object","properties":{"kind":{"type":"string","enum":["typed","failure","tool_error"]}},"required":["kind"]}"#;
/// `misplaced`'s input schema.
pub const MISPLACED_SCHEMA: &str = r#"{"type":"object","properties":{"kind":{"type":"string","enum":["empty","duplicate"]}},"required":["kind"]}"#;

/// The code of the typed error `outcome` returns (an application code).
pub const CONFLICT_CODE: i32 = 4009;
/// Its message.
pub const CONFLICT_MESSAGE: &str = "Outcome conflict";
/// The message of `outcome`'s untyped failure.
pub const UNAVAILABLE_MESSAGE: &str = "Outcome unavailable";
/// The text of `outcome`'s explicit tool error result.
pub const REFUSED_TEXT: &str = "Outcome refused by policy";
/// The plain (unsealed) application state `outcome` and `inspect` carry.
pub const PLAIN_STATE: &str = "plain-application-state";

/// The fixture's tools.
pub const MRTR_TOOLS: &[Tool<'static>] = &[
    Tool::new("book_trip")
        .description("Asks origin, destination and date at once, keeping answers in sealed state")
        .input_schema(TRIP_SCHEMA),
    Tool::new("summarize")
        .description("Asks the client's model for a summary (sampling)")
        .input_schema(SUMMARIZE_SCHEMA),
    Tool::new("scan_roots").description("Asks for the client's roots"),
    Tool::new("audit")
        .description("Asks for an approval, a sampled summary and the roots in one result"),
    Tool::new("adaptive").description("Asks only for the kinds of input the client declared"),
    Tool::new("forecast")
        .description("Asks for a city, then returns structured content")
        .output_schema(FORECAST_OUTPUT),
    Tool::new("broken_forecast")
        .description("Asks for a city, then returns structured content that breaks its schema")
        .output_schema(FORECAST_OUTPUT),
    Tool::new("outcome")
        .description("Asks to go on, then fails in the way its argument names")
        .input_schema(OUTCOME_SCHEMA),
    Tool::new("misplaced")
        .description("Returns a malformed input_required result")
        .input_schema(MISPLACED_SCHEMA),
    Tool::new("inspect").description("Reports what it sees of its arguments and retry fields"),
];

/// The fixture's fixed resources.
pub const MRTR_RESOURCES: &[Resource<'static>] =
    &[Resource::new("mrtr://roots", "roots").mime_type("application/json")];

/// The fixture's resource templates.
pub const MRTR_TEMPLATES: &[ResourceTemplate<'static>] =
    &[ResourceTemplate::new("outcome://{kind}", "outcome")];

const KIND_ARGUMENT: &[PromptArgument<'static>] = &[PromptArgument::required("kind")];
const TOPIC_ARGUMENT: &[PromptArgument<'static>] = &[PromptArgument::optional("topic")];

/// The fixture's prompts.
pub const MRTR_PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("sampled_prompt").description("A prompt drafted by the client's model"),
    Prompt::new("outcome_prompt").arguments(KIND_ARGUMENT),
    Prompt::new("inspect_prompt").arguments(TOPIC_ARGUMENT),
];

/// The MRTR fixture application. Counts handler runs, and how often a handler saw a retry
/// field among its arguments (which must never happen).
#[derive(Debug, Default)]
pub struct MrtrFixture {
    runs: Runs,
    leaks: Runs,
}

impl MrtrFixture {
    /// A fresh fixture whose handlers have not run.
    pub const fn new() -> Self {
        MrtrFixture {
            runs: Runs::new(),
            leaks: Runs::new(),
        }
    }

    /// How many times any handler has run.
    pub fn handler_runs(&self) -> usize {
        self.runs.count()
    }

    /// How many times a handler found `requestState` or `inputResponses` among its
    /// arguments.
    pub fn argument_leaks(&self) -> usize {
        self.leaks.count()
    }

    fn ran(&self) {
        self.runs.ran();
    }

    fn check_arguments(&self, arguments: Option<Object<'_>>) {
        let leaked =
            arguments.is_some_and(|a| a.contains("requestState") || a.contains("inputResponses"));
        if leaked {
            self.leaks.ran();
        }
    }
}

/// What [`MrtrFixture`] lists.
pub const MRTR_CATALOGUE: Catalogue = Catalogue::new()
    .tools(MRTR_TOOLS)
    .resources(MRTR_RESOURCES)
    .templates(MRTR_TEMPLATES)
    .prompts(MRTR_PROMPTS)
    .with_completions();

crate::registry!(MrtrFixture => MRTR_CATALOGUE);

impl Handler for MrtrFixture {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        self.ran();
        self.check_arguments(Some(call.arguments()));
        match call.name() {
            "book_trip" => book_trip(call, reply),
            "summarize" => summarize(call, reply),
            "scan_roots" => scan_roots(call, reply),
            "audit" => audit(call, reply),
            "adaptive" => adaptive(call, reply),
            "forecast" => forecast(call, reply, false),
            "broken_forecast" => forecast(call, reply, true),
            "outcome" => outcome(call, reply),
            "misplaced" => misplaced(call, reply),
            "inspect" => inspect_tool(call, reply),
            _ => Err(Error::internal("the core routes known tools only")),
        }
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        match call.target() {
            ResourceTarget::Fixed(_) => roots_resource(call, reply),
            ResourceTarget::Template(_) => go_then(call, reply, |reply| match call.var("kind") {
                Some("typed") => Err(Error::rpc(ErrorCode(CONFLICT_CODE), CONFLICT_MESSAGE)),
                Some("failure") => Err(Error::failure(UNAVAILABLE_MESSAGE)),
                _ => Ok(reply.text(None, "fine")),
            }),
        }
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        self.check_arguments(prompt_arguments(call));
        match call.name() {
            "sampled_prompt" => sampled_prompt(call, reply),
            "outcome_prompt" => go_then(call, reply, |_reply| {
                match call.argument("kind").map(|k| k.eq_str("typed")) {
                    Some(true) => Err(Error::rpc(ErrorCode(CONFLICT_CODE), CONFLICT_MESSAGE)),
                    _ => Err(Error::failure(UNAVAILABLE_MESSAGE)),
                }
            }),
            _ => inspect_prompt(call, reply),
        }
    }

    fn complete<'o>(
        &self,
        _call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        let ask = form("Which value?", NAME_FORM)?;
        Ok(reply.input_required().request("name", ask).done())
    }
}

/// A prompt's arguments as the handler sees them (the whole `arguments` object).
fn prompt_arguments<'a>(call: &PromptGet<'a>) -> Option<Object<'a>> {
    call.request_params()
        .and_then(|p| p.get("arguments"))
        .and_then(|a| a.as_object())
}

fn form(message: &'static str, schema: &'static str) -> Result<Elicitation<'static>, Error> {
    Elicitation::form(message, schema).map_err(|_| Error::internal("invalid fixture form"))
}

fn sampling(params: &'static str) -> Result<CreateMessage<'static>, Error> {
    CreateMessage::new(params).map_err(|_| Error::internal("invalid fixture sampling params"))
}

/// Writes JSON into `buf` and returns the text.
fn json_text(buf: &mut [u8], f: impl FnOnce(&mut Writer<'_>)) -> Result<&str, Error> {
    let mut w = Writer::new(&mut *buf);
    f(&mut w);
    let n = w
        .finish()
        .map_err(|_| Error::internal("fixture scratch too small"))?;
    let bytes = buf.get(..n).ok_or(Error::internal("fixture scratch"))?;
    core::str::from_utf8(bytes).map_err(|_| Error::internal("fixture wrote non-UTF-8"))
}

fn status<'o>(reply: ToolReply<'o>, action: Action) -> Done<'o> {
    reply.text_fmt(format_args!("{{\"status\":\"{}\"}}", action.name()))
}

/// One question of `book_trip`.
struct Question {
    key: &'static str,
    message: &'static str,
    schema: &'static str,
    field: &'static str,
}

const TRIP: [Question; 3] = [
    Question {
        key: "origin",
        message: "Where do you leave from?",
        schema: CITY_FORM,
        field: "city",
    },
    Question {
        key: "destination",
        message: "Where are you going?",
        schema: CITY_FORM,
        field: "city",
    },
    Question {
        key: "date",
        message: "When do you leave?",
        schema: DATE_FORM,
        field: "day",
    },
];

/// Asks the three questions at once; answers already given travel in sealed state (the
/// state wins over a repeated answer); what is still missing is asked again.
fn book_trip<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let traveller = call
        .argument("traveller")
        .and_then(|v| v.as_str())
        .ok_or(Error::invalid_params("traveller is required"))?;
    let mut open = [0u8; OPEN_SCRATCH_LEN];
    let state = call.open_state(&mut open)?;
    let asks = [
        form(TRIP[0].message, TRIP[0].schema)?,
        form(TRIP[1].message, TRIP[1].schema)?,
        form(TRIP[2].message, TRIP[2].schema)?,
    ];
    let mut known: [Option<JsonStr<'_>>; 3] = [None; 3];
    for ((q, ask), slot) in TRIP.iter().zip(&asks).zip(&mut known) {
        if let Some(kept) = state.and_then(|s| s.get(q.key)).and_then(|v| v.as_str()) {
            *slot = Some(kept);
            continue;
        }
        match call.response(q.key, ask)? {
            Response::Missing => {}
            Response::Answered(a) if a.accepted() => *slot = Some(a.str(q.field)?),
            Response::Answered(a) => return Ok(status(reply, a.action())),
        }
    }
    if let [Some(origin), Some(destination), Some(day)] = known {
        let mut buf = [0u8; 512];
        let text = json_text(&mut buf, |w| {
            w.object(|o| {
                o.key("traveller").json_str(traveller);
                o.key("origin").json_str(origin);
                o.key("destination").json_str(destination);
                o.key("date").json_str(day);
            });
        })?;
        return Ok(reply.text(text));
    }
    let mut data = [0u8; 512];
    let data = json_text(&mut data, |w| {
        w.object(|o| {
            for (q, v) in TRIP.iter().zip(known) {
                if let Some(v) = v {
                    o.key(q.key).json_str(v);
                }
            }
        });
    })?;
    let mut ir = reply.input_required();
    for ((q, ask), v) in TRIP.iter().zip(asks).zip(known) {
        if v.is_none() {
            ir = ir.request(q.key, ask);
        }
    }
    ir.seal(data.as_bytes())
}

/// Asks for a sampled summary (no state); the request's shape follows `variant`.
fn summarize<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let variant = call.argument("variant").and_then(|v| v.as_str());
    let params = match variant {
        Some(v) if v.eq_str("tools") => SAMPLING_TOOLS,
        Some(v) if v.eq_str("tool_choice") => SAMPLING_TOOL_CHOICE,
        Some(v) if v.eq_str("context") => SAMPLING_CONTEXT,
        Some(v) if v.eq_str("no_context") => SAMPLING_NO_CONTEXT,
        _ => SAMPLING_PLAIN,
    };
    let ask = sampling(params)?;
    match call.response("summary", &ask)? {
        Response::Missing => Ok(reply.input_required().request("summary", ask).done()),
        Response::Answered(m) => {
            let mut buf = [0u8; 1024];
            let text = json_text(&mut buf, |w| {
                w.object(|o| {
                    match m.text() {
                        Some(t) => o.key("summary").json_str(t),
                        None => o.key("summary").null(),
                    };
                    if let Some(model) = m.model() {
                        o.key("model").json_str(model);
                    }
                });
            })?;
            Ok(reply.text(text))
        }
    }
}

/// Asks for the roots (no state); lists their URIs.
fn scan_roots<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    match call.response("roots", &ListRoots)? {
        Response::Missing => Ok(reply.input_required().request("roots", ListRoots).done()),
        Response::Answered(roots) => {
            let mut buf = [0u8; 1024];
            let text = json_text(&mut buf, |w| {
                w.object(|o| {
                    o.array("roots", |a| {
                        for uri in roots.uris() {
                            a.item().json_str(uri);
                        }
                    });
                });
            })?;
            Ok(reply.text(text))
        }
    }
}

/// Asks for an approval (form), a summary (sampling) and the roots in one result; each answer
/// is kept in sealed state (signed partial progress) and only what is missing is asked again.
fn audit<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let approval = form("Approve the audit?", APPROVAL_FORM)?;
    let summary = sampling(SAMPLING_PLAIN)?;
    let mut open = [0u8; OPEN_SCRATCH_LEN];
    let state = call.open_state(&mut open)?;
    let kept = |key: &str| state.and_then(|s| s.get(key));

    let approve = match kept("approve").and_then(|v| v.as_bool()) {
        Some(b) => Some(b),
        None => match call.response("approval", &approval)? {
            Response::Missing => None,
            Response::Answered(a) if a.accepted() => Some(
                a.get("approve")
                    .and_then(|v| v.as_bool())
                    .ok_or(snodo_core::mrtr::INVALID_RESPONSE)?,
            ),
            Response::Answered(a) => return Ok(status(reply, a.action())),
        },
    };
    let text = match kept("summary").and_then(|v| v.as_str()) {
        Some(t) => Some(t),
        None => match call.response("summary", &summary)? {
            Response::Missing => None,
            Response::Answered(m) => Some(m.text().ok_or(Error::invalid_params(
                "the summary must be a single text block",
            ))?),
        },
    };
    let roots = match kept("roots").and_then(|v| v.as_u64()) {
        Some(n) => Some(n),
        None => match call.response("workspace", &ListRoots)? {
            Response::Missing => None,
            Response::Answered(r) => Some(r.len() as u64),
        },
    };
    let mut buf = [0u8; 1024];
    if let (Some(approve), Some(text), Some(roots)) = (approve, text, roots) {
        let done = json_text(&mut buf, |w| {
            w.object(|o| {
                o.bool("approve", approve);
                o.key("summary").json_str(text);
                o.u64("roots", roots);
            });
        })?;
        return Ok(reply.text(done));
    }
    let data = json_text(&mut buf, |w| {
        w.object(|o| {
            if let Some(b) = approve {
                o.bool("approve", b);
            }
            if let Some(t) = text {
                o.key("summary").json_str(t);
            }
            if let Some(n) = roots {
                o.u64("roots", n);
            }
        });
    })?;
    let mut ir = reply.input_required();
    if approve.is_none() {
        ir = ir.request("approval", approval);
    }
    if text.is_none() {
        ir = ir.request("summary", summary);
    }
    if roots.is_none() {
        ir = ir.request("workspace", ListRoots);
    }
    ir.seal(data.as_bytes())
}

/// Asks for a name (form), a draft (sampling) and the roots, but only those the client
/// declared; without any, it finishes at once with `{}`.
fn adaptive<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let name = form("What is your name?", NAME_FORM)?;
    let draft = sampling(SAMPLING_PLAIN)?;
    let name_answer = if call.client_supports(&name) {
        Some(call.response("name", &name)?)
    } else {
        None
    };
    let draft_answer = if call.client_supports(&draft) {
        Some(call.response("draft", &draft)?)
    } else {
        None
    };
    let roots_answer = if call.client_supports(&ListRoots) {
        Some(call.response("roots", &ListRoots)?)
    } else {
        None
    };
    let name_missing = matches!(name_answer, Some(Response::Missing));
    let draft_missing = matches!(draft_answer, Some(Response::Missing));
    let roots_missing = matches!(roots_answer, Some(Response::Missing));
    if name_missing || draft_missing || roots_missing {
        let mut ir = reply.input_required();
        if name_missing {
            ir = ir.request("name", name);
        }
        if draft_missing {
            ir = ir.request("draft", draft);
        }
        if roots_missing {
            ir = ir.request("roots", ListRoots);
        }
        return Ok(ir.done());
    }
    let mut buf = [0u8; 1024];
    let text = json_text(&mut buf, |w| {
        w.object(|o| {
            if let Some(Response::Answered(a)) = name_answer {
                match a.get("name").and_then(|v| v.as_str()) {
                    Some(n) => o.key("name").json_str(n),
                    None => o.key("name").null(),
                };
            }
            if let Some(Response::Answered(m)) = draft_answer {
                match m.text() {
                    Some(t) => o.key("draft").json_str(t),
                    None => o.key("draft").null(),
                };
            }
            if let Some(Response::Answered(r)) = roots_answer {
                o.u64("roots", r.len() as u64);
            }
        });
    })?;
    Ok(reply.text(text))
}

/// Asks for a city, then answers with structured content (valid, or breaking the output
/// schema when `broken`); a declined city is an explicit tool error.
fn forecast<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
    broken: bool,
) -> Result<Done<'o>, Error> {
    let city = form("Which city?", CITY_FORM)?;
    match call.response("city", &city)? {
        Response::Missing => Ok(reply.input_required().request("city", city).done()),
        Response::Answered(a) if a.accepted() => {
            let name = a.str("city")?;
            Ok(reply.structured(|w| {
                w.object(|o| {
                    o.key("city").json_str(name);
                    if broken {
                        o.str("temperature", "mild");
                    } else {
                        o.i64("temperature", 21);
                    }
                });
            }))
        }
        Response::Answered(_) => Ok(reply.error_text("No city, no forecast")),
    }
}

/// First leg: asks `go` with plain application state. Any answer: `then`.
fn go_then<'o, K>(
    call: &RequestContext<'_>,
    reply: Reply<'o, K>,
    then: impl FnOnce(Reply<'o, K>) -> Result<Done<'o>, Error>,
) -> Result<Done<'o>, Error> {
    let go = form("Go on?", GO_FORM)?;
    match call.response("go", &go)? {
        Response::Missing => Ok(reply.input_required().request("go", go).state(PLAIN_STATE)),
        Response::Answered(_) => then(reply),
    }
}

/// After a `go` round, fails as `kind` says.
fn outcome<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let kind = call.argument("kind").and_then(|v| v.as_str());
    go_then(call, reply, |reply| match kind {
        Some(k) if k.eq_str("typed") => Err(Error::rpc(ErrorCode(CONFLICT_CODE), CONFLICT_MESSAGE)),
        Some(k) if k.eq_str("failure") => Err(Error::failure(UNAVAILABLE_MESSAGE)),
        _ => Ok(reply.error_text(REFUSED_TEXT)),
    })
}

/// An `input_required` result with nothing in it, or with the same key twice.
fn misplaced<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let ask = form("Go on?", GO_FORM)?;
    let duplicate = call
        .argument("kind")
        .and_then(|v| v.as_str())
        .is_some_and(|k| k.eq_str("duplicate"));
    if duplicate {
        Ok(reply
            .input_required()
            .request("go", ask)
            .request("go", ask)
            .done())
    } else {
        Ok(reply.input_required().done())
    }
}

/// Writes what a handler sees: its argument keys, the keys of `inputResponses`, whether a
/// `requestState` came, and the method it may bind to.
fn report<'b>(
    buf: &'b mut [u8],
    arguments: Option<Object<'_>>,
    ctx: &RequestContext<'_>,
) -> Result<&'b str, Error> {
    json_text(buf, |w| {
        w.object(|o| {
            o.array("argumentKeys", |a| {
                for (k, _) in arguments.into_iter().flatten() {
                    a.item().json_str(k);
                }
            });
            o.array("responseKeys", |a| {
                for (k, _) in ctx.input_responses().into_iter().flatten() {
                    a.item().json_str(k);
                }
            });
            o.bool("hasState", ctx.request_state().is_some());
            o.str("method", ctx.request_method());
        });
    })
}

/// First leg: asks `ok` with plain state; any retry: reports what the handler sees.
fn inspect_tool<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    if call.input_responses().is_none() && call.request_state().is_none() {
        let ok = form("OK?", GO_FORM)?;
        return Ok(reply.input_required().request("ok", ok).state(PLAIN_STATE));
    }
    let mut buf = [0u8; 1024];
    let text = report(&mut buf, Some(call.arguments()), call)?;
    Ok(reply.text(text))
}

/// Like `inspect`, as a prompt.
fn inspect_prompt<'o>(call: &PromptGet<'_>, reply: PromptReply<'o>) -> Result<Done<'o>, Error> {
    if call.input_responses().is_none() && call.request_state().is_none() {
        let ok = form("OK?", GO_FORM)?;
        return Ok(reply.input_required().request("ok", ok).state(PLAIN_STATE));
    }
    let mut buf = [0u8; 1024];
    let text = report(&mut buf, prompt_arguments(call), call)?;
    Ok(reply.messages(None, |m| {
        m.user(text);
    }))
}

/// `mrtr://roots`: asks for the roots, then counts them.
fn roots_resource<'o>(
    call: &ResourceRead<'_>,
    reply: ResourceReply<'o>,
) -> Result<Done<'o>, Error> {
    match call.response("roots", &ListRoots)? {
        Response::Missing => Ok(reply.input_required().request("roots", ListRoots).done()),
        Response::Answered(roots) => Ok(reply.text_fmt(
            Some("application/json"),
            format_args!("{{\"roots\":{}}}", roots.len()),
        )),
    }
}

/// `sampled_prompt`: asks for a draft, then renders it as the assistant's message.
fn sampled_prompt<'o>(call: &PromptGet<'_>, reply: PromptReply<'o>) -> Result<Done<'o>, Error> {
    let draft = sampling(SAMPLING_PLAIN)?;
    match call.response("draft", &draft)? {
        Response::Missing => Ok(reply.input_required().request("draft", draft).done()),
        Response::Answered(m) => {
            let mut buf = [0u8; 512];
            let text = m
                .text()
                .and_then(|t| t.decode_into(&mut buf))
                .ok_or(Error::invalid_params("the draft must be a short text"))?;
            Ok(reply.messages(Some("A drafted prompt"), |msgs| {
                msgs.user("Use this draft:");
                msgs.text(Role::Assistant, format_args!("{text}"));
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Middleware
// ---------------------------------------------------------------------------------------

/// The code [`Guard`] refuses with (an application code).
pub const FORBIDDEN_CODE: i32 = 4003;
/// Its message.
pub const FORBIDDEN_MESSAGE: &str = "Forbidden";

/// Middleware that counts every call it sees and refuses one principal with a typed error,
/// on first calls and retries alike.
#[derive(Debug)]
pub struct Guard {
    refused: &'static str,
    calls: AtomicUsize,
}

impl Guard {
    /// A guard that refuses `refused`.
    pub const fn refusing(refused: &'static str) -> Self {
        Guard {
            refused,
            calls: AtomicUsize::new(0),
        }
    }

    /// How many calls it has seen.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn admit(&self, principal: Principal<'_>) -> Result<(), Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if principal == Principal::Id(self.refused) {
            return Err(Error::rpc(ErrorCode(FORBIDDEN_CODE), FORBIDDEN_MESSAGE));
        }
        Ok(())
    }
}

impl Middleware for Guard {
    fn call_tool<'o, H: Handler>(
        &self,
        next: &H,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.admit(call.principal())?;
        next.call_tool(call, reply)
    }

    fn read_resource<'o, H: Handler>(
        &self,
        next: &H,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.admit(call.principal())?;
        next.read_resource(call, reply)
    }

    fn get_prompt<'o, H: Handler>(
        &self,
        next: &H,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.admit(call.principal())?;
        next.get_prompt(call, reply)
    }

    fn complete<'o, H: Handler>(
        &self,
        next: &H,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.admit(call.principal())?;
        next.complete(call, reply)
    }
}

/// Middleware that answers every tool call by itself with a sampling input request (the
/// handler never runs): the core still admits it against the request's own capabilities.
#[derive(Debug, Default)]
pub struct AsksForSampling;

impl Middleware for AsksForSampling {
    fn call_tool<'o, H: Handler>(
        &self,
        _next: &H,
        _call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let ask = sampling(SAMPLING_PLAIN)?;
        Ok(reply.input_required().request("summary", ask).done())
    }
}

// ---------------------------------------------------------------------------------------
// Forging state
// ---------------------------------------------------------------------------------------

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let v = BASE64URL.iter().position(|&b| b == c)? as u32;
        bits = (bits << 6) | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(BASE64URL[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The readable payload of a sealed token (`s2.<key id>.<payload>.<mac>`), as JSON.
#[track_caller]
pub fn state_payload(token: &str) -> Value {
    let payload = token.split('.').nth(2).expect("a token has a payload part");
    let bytes = base64url_decode(payload).expect("the payload is base64url");
    serde_json::from_slice(&bytes).expect("the payload is JSON")
}

/// `token` with its readable payload edited by `edit` and its MAC kept: what a client that
/// tampers with the state it was given would send.
#[track_caller]
pub fn forge_state(token: &str, edit: impl FnOnce(&mut Value)) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 4, "a token has four parts: {token}");
    let mut payload = state_payload(token);
    edit(&mut payload);
    let payload = base64url_encode(payload.to_string().as_bytes());
    format!("{}.{}.{}.{}", parts[0], parts[1], payload, parts[3])
}
