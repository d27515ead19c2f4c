//! The application the `preferences` example serves: its catalogue and its handlers.
//!
//! Everything the server offers is listed once, in the `const` catalogue below, and routed by
//! name in the [`AsyncHandler`] impl. The multi round-trip preference flow (`flow.rs`,
//! `mrtr_app.rs`) joins each family: tools `preference_preview`, `reset_preview` and
//! `url_preview`, the resource `preview://preferences` and the prompt `preference_prompt`;
//! `more_flows.rs` adds the sampling, roots and all-kinds-at-once tools `sampling_preview`,
//! `roots_preview` and `combined_preview`.
//! Its sealed request state uses a secret drawn at start-up ([`config`]).

use std::time::Duration;

use snodo_core::json::{JsonStr, Value};
use snodo_core::server::{
    Completion, CompletionRef, CompletionReply, Config, Done, Error, Prompt, PromptArgument,
    PromptGet, PromptReply, Registry, Resource, ResourceRead, ResourceReply, ResourceTemplate,
    Role, Tool, ToolCall, ToolReply,
};
use snodo_std::AsyncHandler;

use super::{more_flows, mrtr_app};

/// The server's identity and the hints every result carries.
pub fn config() -> Config<'static> {
    let mut config = Config::new("snodo-preferences", env!("CARGO_PKG_VERSION"))
        .with_instructions(INSTRUCTIONS)
        .with_state(snodo_std::process_state_options());
    config.info.title = Some("Snodo preferences example");
    config
}

const INSTRUCTIONS: &str = "A demonstration server: echo and add numbers, count slowly with \
progress, read the about page or a greeting, render a greeting prompt, and preview display \
preferences chosen interactively (preference_preview, preview://preferences, \
preference_prompt, reset_preview, url_preview), or from the client's model and roots \
(sampling_preview, roots_preview, combined_preview).";

// ---------------------------------------------------------------------------------------
// Catalogue
// ---------------------------------------------------------------------------------------

/// Tools, in the order `tools/list` returns them.
pub const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo")
        .title("Echo")
        .description("Returns the text it is given.")
        .input_schema(
            r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"],"additionalProperties":false}"#,
        )
        .annotations(r#"{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}"#),
    Tool::new("add")
        .title("Add")
        .description("Adds two numbers and returns the sum as structured content.")
        .input_schema(
            r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}"#,
        )
        .output_schema(
            r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}"#,
        )
        .annotations(r#"{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}"#),
    Tool::new("slow_count")
        .title("Slow count")
        .description(
            "Counts to `count`, pausing `delayMs` between steps, and reports each step as \
             progress when the request carries a progress token.",
        )
        .input_schema(
            r#"{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":100},"delayMs":{"type":"integer","minimum":0,"maximum":10000}},"required":["count"],"additionalProperties":false}"#,
        )
        .annotations(r#"{"readOnlyHint":true,"openWorldHint":false}"#),
    Tool::new("fail")
        .title("Fail")
        .description("Always fails, with a tool error result the model can read.")
        .input_schema(
            r#"{"type":"object","properties":{"reason":{"type":"string"}},"additionalProperties":false}"#,
        )
        .annotations(r#"{"readOnlyHint":true,"openWorldHint":false}"#),
    mrtr_app::TOOLS[0],
    mrtr_app::TOOLS[1],
    mrtr_app::TOOLS[2],
    more_flows::TOOLS[0],
    more_flows::TOOLS[1],
    more_flows::TOOLS[2],
];

/// Resources with fixed URIs.
pub const RESOURCES: &[Resource<'static>] = &[
    Resource::new("preview://about", "about")
        .description("What this server is and what it offers.")
        .mime_type("text/plain"),
    mrtr_app::RESOURCE,
];

/// Resource templates.
pub const RESOURCE_TEMPLATES: &[ResourceTemplate<'static>] =
    &[ResourceTemplate::new("greeting://{name}", "greeting")
        .description("A greeting for the person named in the URI.")
        .mime_type("text/plain")];

const GREETING_ARGUMENTS: &[PromptArgument<'static>] = &[
    PromptArgument::required("name").description("Who to greet"),
    PromptArgument::optional("style").description("casual, formal or pirate"),
];

/// Prompts.
pub const PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("greeting_prompt")
        .description("Asks the model to write a greeting.")
        .arguments(GREETING_ARGUMENTS),
    mrtr_app::PROMPT,
];

/// What `completion/complete` suggests for a greeting's `name`.
const NAMES: &[&str] = &[
    "Ada", "Alan", "Barbara", "Edsger", "Grace", "Ken", "Margaret",
];
/// What it suggests for a greeting's `style`.
const STYLES: &[&str] = &["casual", "formal", "pirate"];

const ABOUT: &str = "snodo-preferences: an MCP 2026-07-28 server built on snodo-core and \
snodo-std. Tools: echo, add, slow_count, fail, preference_preview, reset_preview, \
url_preview, sampling_preview, roots_preview, combined_preview. Resources: preview://about, \
preview://preferences and greeting://{name}. Prompts: greeting_prompt, preference_prompt.";

// ---------------------------------------------------------------------------------------
// The application
// ---------------------------------------------------------------------------------------

/// The application: stateless; what a flow needs between rounds travels in sealed state.
#[derive(Debug, Default)]
pub struct App {}

impl App {
    /// The application with its start-up configuration.
    pub fn new() -> Self {
        App {}
    }
}

impl Registry for App {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        RESOURCES
    }

    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        RESOURCE_TEMPLATES
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        PROMPTS
    }

    fn completions(&self) -> bool {
        true
    }
}

impl AsyncHandler for App {
    async fn call_tool(&self, call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
        match call.name() {
            "echo" => echo(call, reply),
            "add" => add(call, reply),
            "slow_count" => slow_count(call, reply).await,
            "fail" => fail(call, reply),
            "sampling_preview" | "roots_preview" | "combined_preview" => {
                more_flows::call_tool(call, reply)
                    .unwrap_or(Err(Error::invalid_params("Unknown tool")))
            }
            _ => mrtr_app::call_tool(call, reply)
                .unwrap_or(Err(Error::invalid_params("Unknown tool"))),
        }
    }

    async fn read_resource(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'_>,
    ) -> Result<Done, Error> {
        match call.uri() {
            "preview://about" => Ok(reply.text(Some("text/plain"), ABOUT)),
            "preview://preferences" => mrtr_app::read_resource(call, reply),
            _ => match call.var("name") {
                Some(name) => {
                    Ok(reply.text_fmt(Some("text/plain"), format_args!("Hello, {name}!")))
                }
                None => Err(Error::invalid_params("Resource not found")),
            },
        }
    }

    async fn get_prompt(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'_>,
    ) -> Result<Done, Error> {
        match call.name() {
            "greeting_prompt" => greeting_prompt(call, reply),
            "preference_prompt" => mrtr_app::get_prompt(call, reply),
            _ => Err(Error::invalid_params("Unknown prompt")),
        }
    }

    async fn complete(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'_>,
    ) -> Result<Done, Error> {
        let candidates: &[&str] = match (call.reference(), text(call.argument_name()).as_str()) {
            (CompletionRef::Prompt(p), "name") if p.eq_str("greeting_prompt") => NAMES,
            (CompletionRef::Prompt(p), "style") if p.eq_str("greeting_prompt") => STYLES,
            (CompletionRef::Resource(t), "name") if t.eq_str("greeting://{name}") => NAMES,
            _ => &[],
        };
        let typed = text(call.argument_value()).to_lowercase();
        let matching: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|c| c.to_lowercase().starts_with(&typed))
            .collect();
        Ok(reply.values(&matching, false))
    }
}

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

fn echo(call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
    // The input schema guarantees a string `text`.
    let said = call
        .argument("text")
        .and_then(|v| v.as_str())
        .ok_or(Error::invalid_params("text must be a string"))?;
    Ok(reply.text(&text(said)))
}

fn add(call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
    let number = |name| call.argument(name).as_ref().and_then(Value::as_f64);
    let (Some(a), Some(b)) = (number("a"), number("b")) else {
        return Err(Error::invalid_params("a and b must be numbers"));
    };
    let sum = a + b;
    if !sum.is_finite() {
        return Ok(reply.error_text("The sum is too large to represent."));
    }
    Ok(reply.structured(|w| {
        w.object(|o| {
            o.key("sum").f64(sum);
        });
    }))
}

async fn slow_count(call: &ToolCall<'_>, mut reply: ToolReply<'_>) -> Result<Done, Error> {
    let count = call.argument("count").and_then(|v| v.as_u64()).unwrap_or(1);
    let delay = call
        .argument("delayMs")
        .and_then(|v| v.as_u64())
        .unwrap_or(100);
    for step in 1..=count {
        tokio::time::sleep(Duration::from_millis(delay)).await;
        reply
            .progress(step as f64, Some(count as f64), Some("counting"))
            .map_err(|_| Error::internal("progress does not fit in the output buffer"))?;
    }
    Ok(reply.text_fmt(format_args!("Counted to {count}.")))
}

fn fail(call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
    match call.argument("reason").and_then(|v| v.as_str()) {
        Some(reason) => Ok(reply.error_fmt(format_args!("Failed as asked: {}", text(reason)))),
        None => Ok(reply.error_text("Failed as asked.")),
    }
}

// ---------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------

fn greeting_prompt(call: &PromptGet<'_>, reply: PromptReply<'_>) -> Result<Done, Error> {
    // `prompts/get` is refused by the core when the required `name` is missing.
    let name = call.argument("name").map(text).unwrap_or_default();
    let style = call
        .argument("style")
        .map_or_else(|| "casual".to_owned(), text);
    Ok(reply.messages(Some("A greeting to write"), |m| {
        m.text(
            Role::User,
            format_args!("Write a short {style} greeting for {name}."),
        );
    }))
}

/// The decoded text of a JSON string.
fn text(s: JsonStr<'_>) -> String {
    s.chars().collect()
}
