//! The MRTR part of the example application: the preference flow as a tool, a resource and
//! a prompt, plus `reset_preview` and `url_preview`. Synchronous, so the same code serves the
//! tokio adapters on a host and the one-call path in tests.

use snodo_core::server::{
    Done, Error, Prompt, PromptArgument, PromptGet, PromptReply, Resource, ResourceRead,
    ResourceReply, Tool, ToolCall, ToolReply,
};

use super::flow::{self, Scratch, Step};

/// The tools of the flow.
pub const TOOLS: [Tool<'static>; 3] = [
    Tool::new("preference_preview")
        .description("Preview display preferences: asks for a color, then a style")
        .input_schema(r#"{"type":"object","properties":{"subject":{"type":"string"}},"required":["subject"]}"#),
    Tool::new("reset_preview")
        .description("Shows a state-only continuation, then a question without state"),
    Tool::new("url_preview").description("Asks for consent to open an external preview page"),
];

/// The resource of the flow.
pub const RESOURCE: Resource<'static> = Resource::new("preview://preferences", "preferences")
    .description("The preference preview, asked for interactively")
    .mime_type("application/json");

/// The prompt of the flow.
pub const PROMPT: Prompt<'static> = Prompt::new("preference_prompt")
    .description("A prompt built from interactively chosen preferences")
    .arguments(&[PromptArgument::optional("subject")]);

/// Runs a flow tool; `None` if `call` is not one of them.
pub fn call_tool<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Option<Result<Done<'o>, Error>> {
    let mut scratch = Scratch::default();
    let step = match call.name() {
        "preference_preview" => flow::preferences(call, &mut scratch),
        "reset_preview" => flow::reset(call, &mut scratch),
        "url_preview" => flow::url_consent(call, &mut scratch),
        _ => return None,
    };
    Some(step.and_then(|step| flow::write(reply, step, |r, text| r.text(text))))
}

/// Reads `preview://preferences` through the flow.
pub fn read_resource<'o>(
    call: &ResourceRead<'_>,
    reply: ResourceReply<'o>,
) -> Result<Done<'o>, Error> {
    let mut scratch = Scratch::default();
    let step: Step<'_> = flow::preferences(call, &mut scratch)?;
    flow::write(reply, step, |r, text| {
        r.text(Some("application/json"), text)
    })
}

/// Renders `preference_prompt` through the flow.
pub fn get_prompt<'o>(call: &PromptGet<'_>, reply: PromptReply<'o>) -> Result<Done<'o>, Error> {
    let mut scratch = Scratch::default();
    let step = flow::preferences(call, &mut scratch)?;
    flow::write(reply, step, |r, text| {
        r.messages(Some("Preferences chosen for the preview"), |m| {
            m.user(text);
        })
    })
}
