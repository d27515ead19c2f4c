//! Fixture applications for the wire tests.
//!
//! [`Fixture`] offers every kind of thing a 2026-07-28 server can serve: tools whose input
//! schemas exercise the core's validator, a tool with an output schema, tools that fail in each
//! of the ways a handler can fail, a tool that reports progress, fixed resources, resource
//! templates, prompts with a required argument, and completions. Every handler counts its runs
//! in [`Fixture::handler_runs`], so a test can prove that the core refused a request before
//! any handler ran.
//!
//! [`ToolsOnly`] advertises tools and nothing else, for the rule that methods of a capability
//! the server does not advertise answer -32601.
//!
//! Handlers never allocate: the allocation-counting test runs them.

use core::sync::atomic::{AtomicUsize, Ordering};

use snodo_core::json::Limits;
use snodo_core::rpc::ErrorCode;
use snodo_core::server::{
    CacheScope, Completion, CompletionRef, CompletionReply, Config, Done, Error, Handler, Prompt,
    PromptArgument, PromptGet, PromptReply, Registry, Resource, ResourceRead, ResourceReply,
    ResourceTarget, ResourceTemplate, Role, Server, ServerInfo, Tool, ToolCall, ToolReply,
};

/// The server name written in `_meta["io.modelcontextprotocol/serverInfo"]`.
pub const SERVER_NAME: &str = "snodo-fixture";
/// The server version written in `serverInfo`.
pub const SERVER_VERSION: &str = "1.2.3";
/// The server title written in `serverInfo`.
pub const SERVER_TITLE: &str = "Snodo fixture";
/// `instructions` of `server/discover`.
pub const INSTRUCTIONS: &str = "A fixture server for the acceptance suite.";

/// `search`: a schema with `required`, `enum`, `minimum`/`maximum`, `minLength`/`maxLength`,
/// `items` and `additionalProperties: false`.
pub const SEARCH_SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":32},"mode":{"type":"string","enum":["fast","deep"]},"limit":{"type":"integer","minimum":1,"maximum":10},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"],"additionalProperties":false}"#;
/// `weather`'s input schema.
pub const WEATHER_SCHEMA: &str =
    r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#;
/// `weather`'s output schema.
pub const WEATHER_OUTPUT_SCHEMA: &str = r#"{"type":"object","properties":{"temperature":{"type":"integer"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}"#;
/// `count`'s input schema.
pub const COUNT_SCHEMA: &str = r#"{"type":"object","properties":{"to":{"type":"integer","minimum":1,"maximum":5}},"required":["to"]}"#;
/// Schema of the tools that take no arguments.
pub const NO_ARGUMENTS: &str = r#"{"type":"object","additionalProperties":false}"#;

/// `search`'s icons.
pub const SEARCH_ICONS: &str =
    r#"[{"src":"https://example.com/search.svg","mimeType":"image/svg+xml","sizes":["any"]}]"#;
/// The fixture's tools, in list order.
pub const TOOLS: &[Tool<'static>] = &[
    Tool::new("search")
        .title("Search")
        .description("Searches the fixture's index")
        .input_schema(SEARCH_SCHEMA)
        .icons(SEARCH_ICONS)
        .meta(r#"{"example.com/category":"lookup"}"#),
    Tool::new("weather")
        .description("Current weather as structured data")
        .input_schema(WEATHER_SCHEMA)
        .output_schema(WEATHER_OUTPUT_SCHEMA),
    Tool::new("bad_weather")
        .description("Structured data that breaks its own output schema")
        .input_schema(NO_ARGUMENTS)
        .output_schema(WEATHER_OUTPUT_SCHEMA),
    Tool::new("overdrawn")
        .description("Reports a tool execution error")
        .input_schema(NO_ARGUMENTS),
    Tool::new("quota")
        .description("Fails with a typed JSON-RPC error")
        .input_schema(NO_ARGUMENTS),
    Tool::new("crash")
        .description("Fails with an untyped failure")
        .input_schema(NO_ARGUMENTS),
    Tool::new("count")
        .description("Counts, reporting progress")
        .input_schema(COUNT_SCHEMA)
        .annotations(r#"{"readOnlyHint":true}"#),
];

/// The application error code `quota` answers with (outside the JSON-RPC reserved range).
pub const QUOTA_CODE: i32 = 4001;
/// The message of `quota`'s error.
pub const QUOTA_MESSAGE: &str = "Quota exceeded";
/// The text of `overdrawn`'s tool error result.
pub const OVERDRAWN_TEXT: &str = "Account overdrawn: add funds and retry";
/// The message of `crash`'s failure.
pub const CRASH_MESSAGE: &str = "Sensor offline";

/// The fixture's fixed resources.
pub const RESOURCES: &[Resource<'static>] = &[
    Resource::new("fixture://readme", "readme")
        .title("Read me")
        .description("The fixture's read-me")
        .mime_type("text/plain")
        .size(README_TEXT.len() as u64)
        .annotations(r#"{"audience":["user"],"priority":0.5}"#),
    Resource::new("fixture://logo", "logo").mime_type("image/png"),
    Resource::new("fixture://broken", "broken").description("Fails to read"),
];

/// The text of `fixture://readme`.
pub const README_TEXT: &str = "Snodo fixture: nothing to see here.";
/// The base64 content of `fixture://logo`.
pub const LOGO_BASE64: &str = "iVBORw0KGgo=";
/// The failure message of `fixture://broken`.
pub const BROKEN_MESSAGE: &str = "Storage unavailable";

/// The fixture's resource templates.
pub const TEMPLATES: &[ResourceTemplate<'static>] = &[
    ResourceTemplate::new("fixture://users/{id}", "user")
        .title("User")
        .description("A user by id")
        .mime_type("application/json")
        .annotations(r#"{"audience":["assistant"]}"#),
    ResourceTemplate::new("fixture://files/{+path}", "file").mime_type("text/plain"),
    ResourceTemplate::new("fixture://logs/{day}/{hour}", "log"),
];

const GREET_ARGUMENTS: &[PromptArgument<'static>] = &[
    PromptArgument::required("name")
        .title("Name")
        .description("Who to greet"),
    PromptArgument::optional("style"),
];

/// The fixture's prompts.
pub const PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("greet")
        .title("Greeting")
        .description("Greets someone")
        .arguments(GREET_ARGUMENTS)
        .meta(r#"{"example.com/tone":"warm"}"#),
    Prompt::new("summarize"),
    Prompt::new("broken_prompt").description("Fails to render"),
];

/// Completion values for `greet`'s `style` argument.
pub const STYLES: &[&str] = &["formal", "friendly", "funny", "terse"];
/// Completion values for the `id` of `fixture://users/{id}`.
pub const USER_IDS: &[&str] = &["1", "12", "2"];

/// The full fixture application.
#[derive(Debug, Default)]
pub struct Fixture {
    runs: AtomicUsize,
}

impl Fixture {
    /// A fresh fixture whose handlers have not run.
    pub const fn new() -> Self {
        Fixture {
            runs: AtomicUsize::new(0),
        }
    }

    /// How many times any handler has run.
    pub fn handler_runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }

    fn ran(&self) {
        self.runs.fetch_add(1, Ordering::SeqCst);
    }
}

/// The fixture's configuration: default page size (everything on one page), `ttlMs` 60000,
/// `cacheScope` public, with a title and instructions.
pub const fn config() -> Config<'static> {
    let mut config = Config::new(SERVER_NAME, SERVER_VERSION).with_instructions(INSTRUCTIONS);
    config.info = ServerInfo::new(SERVER_NAME, SERVER_VERSION).title(SERVER_TITLE);
    config
}

/// Page size of [`paged_config`].
pub const SMALL_PAGE: usize = 2;
/// `ttlMs` of [`paged_config`].
pub const PAGED_TTL_MS: u64 = 5000;

/// Like [`config`] with pages of [`SMALL_PAGE`] items, `ttlMs` [`PAGED_TTL_MS`] and
/// `cacheScope` private.
pub const fn paged_config() -> Config<'static> {
    let mut config = config();
    config.page_size = SMALL_PAGE;
    config.ttl_ms = PAGED_TTL_MS;
    config.cache_scope = CacheScope::Private;
    config
}

/// Like [`config`] with a maximum message size of `max_size` bytes.
pub const fn small_message_config(max_size: usize) -> Config<'static> {
    let limits = Limits {
        max_size,
        ..Limits::HOST
    };
    config().with_limits(limits)
}

/// A server for a fresh [`Fixture`] with [`config`].
pub fn server() -> Server<'static, Fixture> {
    Server::new(config(), Fixture::new()).expect("valid definitions")
}

/// A server for a fresh [`Fixture`] with the given configuration.
pub fn server_with(config: Config<'static>) -> Server<'static, Fixture> {
    Server::new(config, Fixture::new()).expect("valid definitions")
}

impl Registry for Fixture {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        RESOURCES
    }

    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        TEMPLATES
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        PROMPTS
    }

    fn completions(&self) -> bool {
        true
    }
}

const PROGRESS_MESSAGES: [&str; 5] = ["one", "two", "three", "four", "five"];

impl Handler for Fixture {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        match call.name() {
            "search" => {
                let query = call
                    .argument("query")
                    .and_then(|v| v.as_str())
                    .ok_or(Error::invalid_params("query is required"))?;
                let mut buf = [0u8; 128];
                let query = query
                    .decode_into(&mut buf)
                    .ok_or(Error::failure("query too long"))?;
                let limit = call.argument("limit").and_then(|v| v.as_i64()).unwrap_or(3);
                Ok(reply.text_fmt(format_args!("{limit} results for {query}")))
            }
            "weather" => Ok(reply.structured(|w| {
                w.object(|o| {
                    o.i64("temperature", 22).str("conditions", "sunny");
                });
            })),
            "bad_weather" => Ok(reply.structured(|w| {
                w.object(|o| {
                    o.str("temperature", "warm");
                });
            })),
            "overdrawn" => Ok(reply.error_text(OVERDRAWN_TEXT)),
            "quota" => Err(Error::rpc(ErrorCode(QUOTA_CODE), QUOTA_MESSAGE)),
            "crash" => Err(Error::failure(CRASH_MESSAGE)),
            "count" => {
                let to = call.argument("to").and_then(|v| v.as_i64()).unwrap_or(1);
                let to = to.clamp(1, 5);
                for (step, message) in PROGRESS_MESSAGES.iter().enumerate().take(to as usize) {
                    reply
                        .progress((step + 1) as f64, Some(to as f64), Some(message))
                        .map_err(|_| Error::failure("no room for progress"))?;
                }
                Ok(reply.text_fmt(format_args!("counted to {to}")))
            }
            _ => Err(Error::internal(
                "unreachable: the core routes known tools only",
            )),
        }
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        match call.target() {
            ResourceTarget::Fixed(r) => match r.name {
                "readme" => Ok(reply.text(Some("text/plain"), README_TEXT)),
                "logo" => Ok(reply.blob(Some("image/png"), LOGO_BASE64)),
                _ => Err(Error::failure(BROKEN_MESSAGE)),
            },
            ResourceTarget::Template(t) => match t.name {
                "user" if call.var("id") == Some("nobody") => Ok(reply.not_found()),
                "user" => {
                    let id = call.var("id").unwrap_or("");
                    Ok(reply.text_fmt(
                        Some("application/json"),
                        format_args!("{{\"id\":\"{id}\"}}"),
                    ))
                }
                "file" => {
                    let path = call.var("path").unwrap_or("");
                    Ok(reply.text_fmt(Some("text/plain"), format_args!("contents of {path}")))
                }
                _ => {
                    let day = call.var("day").unwrap_or("");
                    let hour = call.var("hour").unwrap_or("");
                    Ok(reply.text_fmt(None, format_args!("log of {day} at {hour}")))
                }
            },
        }
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        match call.name() {
            "greet" => {
                let mut name_buf = [0u8; 64];
                let name = call
                    .argument("name")
                    .and_then(|n| n.decode_into(&mut name_buf))
                    .ok_or(Error::invalid_params("name is too long"))?;
                let formal = call.argument("style").is_some_and(|s| s.eq_str("formal"));
                Ok(reply.messages(Some("A greeting"), |m| {
                    if formal {
                        m.text(Role::User, format_args!("Good day, {name}."));
                    } else {
                        m.text(Role::User, format_args!("Hello, {name}!"));
                    }
                    m.assistant("Hello! How can I help?");
                }))
            }
            "summarize" => Ok(reply.messages(None, |m| {
                m.user("Summarize the conversation so far.");
            })),
            _ => Err(Error::failure("the prompt store is unavailable")),
        }
    }

    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.ran();
        let (candidates, argument): (&[&str], &str) = match call.reference() {
            CompletionRef::Prompt(name) if name.eq_str("greet") => (STYLES, "style"),
            CompletionRef::Resource(uri) if uri.eq_str("fixture://users/{id}") => (USER_IDS, "id"),
            CompletionRef::Prompt(_) => return Err(Error::invalid_params("Unknown prompt")),
            CompletionRef::Resource(_) => {
                return Err(Error::invalid_params("Unknown resource template"));
            }
        };
        if !call.argument_name().eq_str(argument) {
            return Ok(reply.values(&[], false));
        }
        let mut typed_buf = [0u8; 64];
        let typed = call
            .argument_value()
            .decode_into(&mut typed_buf)
            .unwrap_or("\u{0}");
        let mut found = [""; 8];
        let mut n = 0;
        for candidate in candidates {
            if candidate.starts_with(typed) && n < found.len() {
                found[n] = candidate;
                n += 1;
            }
        }
        Ok(reply.values(&found[..n], false))
    }
}

/// An application that offers tools only: no resources, prompts or completions.
#[derive(Debug, Default)]
pub struct ToolsOnly;

/// The tools of [`ToolsOnly`].
pub const TOOLS_ONLY_TOOLS: &[Tool<'static>] = &[Tool::new("noop").input_schema(NO_ARGUMENTS)];

impl Registry for ToolsOnly {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS_ONLY_TOOLS
    }
}

impl Handler for ToolsOnly {
    fn call_tool<'o>(&self, _call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        Ok(reply.text("done"))
    }
}

/// A server for [`ToolsOnly`], named like the fixture.
pub fn tools_only_server() -> Server<'static, ToolsOnly> {
    Server::new(config(), ToolsOnly).expect("valid definitions")
}
