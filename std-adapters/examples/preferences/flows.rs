//! The multi round-trip flows of the seed's example 20 on the typed layer: the read-only
//! preference flow (color, then style) as a tool, a resource and a prompt; `reset_preview`
//! (state only, then a question without state); `url_preview` (URL consent); and the flows
//! that ask the client's model and roots (`sampling_preview`, `roots_preview`,
//! `combined_preview`; sampling and roots are deprecated by the 2026-07-28 protocol but still
//! defined; prefer elicitation for new designs).
//!
//! Partial answers travel in typed sealed state, never in hidden argument keys. A sampled
//! message is model output the client chose to return and a root is a claim about the
//! client's file system: both are echoed into previews as data, bounded in size, and never
//! followed or used as an access grant.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use snodo_std::typed::{
    Ask, Cx, Elicited, Flow, Form, NoArgs, PromptEntry, PromptMessages, ResourceEntry,
    RootsRequest, Sampled, Sampling, ServerBuilder, Stop, ToolError, UrlConsent, prompt, questions,
    resource, tool,
};

/// Where `url_preview` sends the user (nothing is fetched by the server).
pub const PREVIEW_URL: &str = "https://example.com/preferences/preview";

/// At most this many root URIs are echoed into a preview (the count is always given).
pub const MAX_ROOTS_SHOWN: usize = 8;

/// Room for a final preview; a longer one (a very long sampled text or root URI) is a tool
/// error result rather than a truncated preview.
const PREVIEW_LEN: usize = 2048;

// ---------------------------------------------------------------------------------------
// Questions
// ---------------------------------------------------------------------------------------

#[derive(Deserialize, JsonSchema)]
struct Color {
    #[schemars(length(min = 1))]
    color: String,
}

#[derive(Deserialize, JsonSchema)]
struct Style {
    #[schemars(length(min = 1))]
    style: String,
}

#[derive(Deserialize, JsonSchema)]
struct Label {
    #[schemars(length(min = 1))]
    #[allow(
        dead_code,
        reason = "the label is asked for, not used: the flow shows the action"
    )]
    label: String,
}

questions! {
    static COLOR: Form<Color> = Form::new("color", "Choose a color for a read-only preview");
    static STYLE: Form<Style> = Form::new("style", "Choose a style for a read-only preview");
    static LABEL: Form<Label> = Form::new("label", "Name this preview");
    static CONSENT: UrlConsent =
        UrlConsent::new("consent", "Open the preview page to continue", PREVIEW_URL);
    static SUGGESTION: Sampling = Sampling::new(
        "suggestion",
        r#"{"messages":[{"role":"user","content":{"type":"text","text":"Suggest one color for a read-only display preview. Answer with the color's name only."}}],"maxTokens":16}"#,
    );
    static ROOTS: RootsRequest = RootsRequest::new("roots");
}

// ---------------------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------------------

/// The flow tools, added to `builder` in the order `tools/list` shows them.
pub fn definitions(builder: ServerBuilder) -> ServerBuilder {
    model_flows(form_flows(builder))
}

/// The tools of the elicitation flows: `preference_preview`, `reset_preview`, `url_preview`.
pub fn form_flows(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool("preference_preview")
                .description("Preview display preferences: asks for a color, then a style")
                .asks(&COLOR)
                .asks(&STYLE)
                .run(preference_preview),
        )
        .tool(
            tool("reset_preview")
                .description("Shows a state-only continuation, then a question without state")
                .asks(&LABEL)
                .run(reset_preview),
        )
        .tool(
            tool("url_preview")
                .description("Asks for consent to open an external preview page")
                .asks(&CONSENT)
                .run(url_preview),
        )
}

/// The tools that ask the client's model and roots: `sampling_preview`, `roots_preview`,
/// `combined_preview`.
pub fn model_flows(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            tool("sampling_preview")
                .description("Asks the client's model to suggest a color for a read-only preview")
                .asks(&SUGGESTION)
                .run(sampling_preview),
        )
        .tool(
            tool("roots_preview")
                .description("Asks for the client's roots to scope a preview")
                .asks(&ROOTS)
                .run(roots_preview),
        )
        .tool(
            tool("combined_preview")
                .description(
                    "Asks for a color, a model's suggestion and the client's roots in one round",
                )
                .asks(&COLOR)
                .asks(&SUGGESTION)
                .asks(&ROOTS)
                .run(combined_preview),
        )
}

/// `preview://preferences`: the preference flow as a resource.
pub fn preference_resource() -> ResourceEntry {
    resource("preview://preferences", "preferences")
        .description("The preference preview, asked for interactively")
        .mime_type("application/json")
        .asks(&COLOR)
        .asks(&STYLE)
        .read(preference_read)
}

/// `preference_prompt`: the preference flow as a prompt.
pub fn preference_prompt() -> PromptEntry {
    prompt("preference_prompt")
        .description("A prompt built from interactively chosen preferences")
        .asks(&COLOR)
        .asks(&STYLE)
        .render(preference_messages)
}

// ---------------------------------------------------------------------------------------
// The preference flow
// ---------------------------------------------------------------------------------------

/// What the preference flow keeps between legs: the color, once chosen.
#[derive(Default, Serialize, Deserialize)]
struct Chosen {
    #[serde(skip_serializing_if = "Option::is_none")]
    color: Option<String>,
}

#[derive(Serialize)]
struct Preview<'a> {
    color: &'a str,
    style: &'a str,
    status: &'static str,
}

#[derive(Serialize)]
struct Status {
    status: &'static str,
}

fn json(value: &impl Serialize) -> Result<String, Stop> {
    serde_json::to_string(value)
        .map_err(|_| Stop::from(snodo_std::typed::Error::internal("not JSON")))
}

/// Color, then style; a declined or cancelled answer ends with `{"status":<action>}`, a
/// chosen pair with `{"color":…,"style":…,"status":"preview"}`.
async fn preferences(cx: Cx<'_>) -> Result<String, Stop> {
    let mut flow = Flow::<Chosen>::open(cx)?;
    if flow.state().color.is_none() {
        match flow.ask(&COLOR)? {
            Elicited::Accepted(c) => flow.state_mut().color = Some(c.color),
            refused => {
                return json(&Status {
                    status: refused.action().name(),
                });
            }
        }
    }
    let style = match flow.ask(&STYLE)? {
        Elicited::Accepted(s) => s.style,
        refused => {
            return json(&Status {
                status: refused.action().name(),
            });
        }
    };
    let color = flow.state().color.as_deref().unwrap_or_default();
    json(&Preview {
        color,
        style: &style,
        status: "preview",
    })
}

#[derive(Deserialize, JsonSchema)]
struct Subject {
    #[allow(dead_code, reason = "the preview is the same for every subject")]
    subject: String,
}

async fn preference_preview(_: Subject, cx: Cx<'_>) -> Result<String, Stop> {
    preferences(cx).await
}

async fn preference_read(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    preferences(cx).await
}

#[derive(Deserialize, JsonSchema)]
struct MaybeSubject {
    #[allow(dead_code, reason = "the preview is the same for every subject")]
    subject: Option<String>,
}

async fn preference_messages(_: MaybeSubject, cx: Cx<'_>) -> Result<PromptMessages, Stop> {
    let text = preferences(cx).await?;
    Ok(PromptMessages::new()
        .description("Preferences chosen for the preview")
        .user(text))
}

// ---------------------------------------------------------------------------------------
// reset_preview and url_preview
// ---------------------------------------------------------------------------------------

#[derive(Serialize, Deserialize)]
struct Reset {
    stage: String,
}

#[derive(Serialize)]
struct Discarded {
    status: &'static str,
    #[serde(rename = "stateDiscarded")]
    state_discarded: bool,
}

/// A state-only result, then an input-only result asking `label` without state, then
/// `{"status":<action>,"stateDiscarded":true}`.
async fn reset_preview(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    if cx.state::<Reset>()?.is_some() {
        // Leg 2: the state did its job; ask without state, so the client must drop it.
        return Err(Ask::new().question(&LABEL).into());
    }
    match cx.answer(&LABEL)? {
        None => Err(Ask::new()
            .seal(&Reset {
                stage: "reset".into(),
            })
            .into()),
        Some(answer) => json(&Discarded {
            status: answer.action().name(),
            state_discarded: true,
        }),
    }
}

#[derive(Serialize)]
struct Consent {
    consent: &'static str,
    #[serde(rename = "externalStatus")]
    external_status: &'static str,
}

/// Consent to open [`PREVIEW_URL`]; consent is not completion, so the external status stays
/// `pending`.
async fn url_preview(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    match cx.answer(&CONSENT)? {
        None => Err(Ask::new().question(&CONSENT).into()),
        Some(action) => json(&Consent {
            consent: action.name(),
            external_status: "pending",
        }),
    }
}

// ---------------------------------------------------------------------------------------
// Sampling and roots
// ---------------------------------------------------------------------------------------

/// A preview as JSON text, or a tool error when it is longer than [`PREVIEW_LEN`].
fn bounded(value: &impl Serialize) -> Result<String, Stop> {
    let text = json(value)?;
    if text.len() > PREVIEW_LEN {
        return Err(ToolError::new("The client's answer is too long to preview.").into());
    }
    Ok(text)
}

fn no_text() -> Result<String, Stop> {
    Err(ToolError::new("The client's model returned no text to preview.").into())
}

#[derive(Serialize)]
struct Suggested<'a> {
    suggestion: &'a str,
    model: &'a str,
    status: &'static str,
}

/// One sampled suggestion: `{"suggestion":…,"model":…,"status":"preview"}`.
async fn sampling_preview(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let Some(message): Option<Sampled> = cx.answer(&SUGGESTION)? else {
        return Err(Ask::new().question(&SUGGESTION).into());
    };
    let Some(text) = message.text() else {
        return no_text();
    };
    bounded(&Suggested {
        suggestion: text,
        model: &message.model,
        status: "preview",
    })
}

#[derive(Serialize)]
struct Scoped<'a> {
    #[serde(rename = "rootCount")]
    root_count: usize,
    roots: Vec<&'a str>,
    status: &'static str,
}

/// The client's roots: `{"rootCount":N,"roots":[…],"status":"preview"}`.
async fn roots_preview(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let Some(roots) = cx.answer(&ROOTS)? else {
        return Err(Ask::new().question(&ROOTS).into());
    };
    bounded(&Scoped {
        root_count: roots.len(),
        roots: roots
            .iter()
            .take(MAX_ROOTS_SHOWN)
            .map(|r| r.uri.as_str())
            .collect(),
        status: "preview",
    })
}

#[derive(Serialize)]
struct Combined<'a> {
    color: &'a str,
    suggestion: &'a str,
    #[serde(rename = "rootCount")]
    root_count: usize,
    status: &'static str,
}

/// What `combined_preview` keeps between its two legs: nothing but the fact that it asked.
#[derive(Default, Serialize, Deserialize)]
struct Asked {}

/// A color (form), a suggestion (sampling) and the roots, asked for in one result that also
/// carries sealed state; a retry must carry the state and all three answers, or all three
/// are asked for again. Finishes with `{"color":…,"suggestion":…,"rootCount":N,
/// "status":"preview"}`, or `{"status":<action>}` when the color is declined or cancelled.
async fn combined_preview(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let flow = Flow::<Asked>::open(cx)?;
    let (color, message, roots) = flow.ask_all((&COLOR, &SUGGESTION, &ROOTS))?;
    let color = match color {
        Elicited::Accepted(c) => c.color,
        refused => {
            return bounded(&Status {
                status: refused.action().name(),
            });
        }
    };
    let Some(text) = message.text() else {
        return no_text();
    };
    bounded(&Combined {
        color: &color,
        suggestion: text,
        root_count: roots.len(),
        status: "preview",
    })
}
