//! The preference flows that ask for something other than a form: `sampling_preview` asks the
//! client's model for a color (`sampling/createMessage`), `roots_preview` asks for the
//! client's roots (`roots/list`), and `combined_preview` asks for a form answer, a sampled
//! message and the roots in one `input_required` result, with sealed state. Sampling and roots
//! are deprecated by the 2026-07-28 protocol but still defined; prefer elicitation for new
//! designs.
//!
//! A sampled message is model output the client chose to return and a root is a claim about
//! the client's file system: both are echoed into the preview as data, bounded in size, and
//! never followed or used as an access grant.

use snodo_core::json::{JsonStr, Writer};
use snodo_core::mrtr::{CreateMessage, Elicitation, ListRoots, Response, SampledMessage};
use snodo_core::server::{Done, Error, Tool, ToolCall, ToolReply};
use snodo_core::state::OPEN_SCRATCH_LEN;

use super::flow::{COLOR_FORM, form};

/// The tools of these flows.
pub const TOOLS: [Tool<'static>; 3] = [
    Tool::new("sampling_preview")
        .description("Asks the client's model to suggest a color for a read-only preview"),
    Tool::new("roots_preview").description("Asks for the client's roots to scope a preview"),
    Tool::new("combined_preview")
        .description("Asks for a color, a model's suggestion and the client's roots in one round"),
];

/// What `sampling_preview` and `combined_preview` ask the client's model.
pub const SUGGESTION_SAMPLING: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Suggest one color for a read-only display preview. Answer with the color's name only."}}],"maxTokens":16}"#;

/// At most this many root URIs are echoed into a preview (the count is always given).
pub const MAX_ROOTS_SHOWN: usize = 8;

/// Room for a final preview; a longer one (a very long sampled text or root URI) is a tool
/// error result rather than a truncated preview.
const PREVIEW_LEN: usize = 2048;

/// Runs one of these tools; `None` if `call` is not one of them.
pub fn call_tool<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Option<Result<Done<'o>, Error>> {
    Some(match call.name() {
        "sampling_preview" => sampling_preview(call, reply),
        "roots_preview" => roots_preview(call, reply),
        "combined_preview" => combined_preview(call, reply),
        _ => return None,
    })
}

fn suggestion_request() -> Result<CreateMessage<'static>, Error> {
    CreateMessage::new(SUGGESTION_SAMPLING).map_err(|_| Error::internal("invalid sampling request"))
}

fn color_form() -> Result<Elicitation<'static>, Error> {
    form("Choose a color for a read-only preview", &COLOR_FORM)
}

/// Finishes with the JSON object `fill` writes, or a tool error when it does not fit.
fn preview<'o>(reply: ToolReply<'o>, fill: impl FnOnce(&mut Writer<'_>)) -> Done<'o> {
    let mut buf = [0u8; PREVIEW_LEN];
    let mut w = Writer::new(&mut buf);
    fill(&mut w);
    match w.finish() {
        Ok(n) => match core::str::from_utf8(&buf[..n]) {
            Ok(text) => reply.text(text),
            Err(_) => reply.error_text("The preview is not UTF-8."),
        },
        Err(_) => reply.error_text("The client's answer is too long to preview."),
    }
}

/// The text of a sampled message, or `None` when it is not a single text block.
fn sampled_text<'a>(message: &SampledMessage<'a>) -> Option<JsonStr<'a>> {
    message.text()
}

/// One sampled suggestion: `{"suggestion":…,"model":…,"status":"preview"}`.
fn sampling_preview<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let ask = suggestion_request()?;
    let message = match call.response("suggestion", &ask)? {
        Response::Missing => return Ok(reply.input_required().request("suggestion", ask).done()),
        Response::Answered(message) => message,
    };
    let Some(text) = sampled_text(&message) else {
        return Ok(reply.error_text("The client's model returned no text to preview."));
    };
    Ok(preview(reply, |w| {
        w.object(|o| {
            o.key("suggestion").json_str(text);
            if let Some(model) = message.model() {
                o.key("model").json_str(model);
            }
            o.str("status", "preview");
        });
    }))
}

/// The client's roots: `{"rootCount":N,"roots":[…],"status":"preview"}`.
fn roots_preview<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let roots = match call.response("roots", &ListRoots)? {
        Response::Missing => return Ok(reply.input_required().request("roots", ListRoots).done()),
        Response::Answered(roots) => roots,
    };
    Ok(preview(reply, |w| {
        w.object(|o| {
            o.u64("rootCount", roots.len() as u64);
            o.array("roots", |a| {
                for uri in roots.uris().take(MAX_ROOTS_SHOWN) {
                    a.item().json_str(uri);
                }
            });
            o.str("status", "preview");
        });
    }))
}

/// A color (form), a suggestion (sampling) and the roots, asked for in one result that also
/// carries sealed state. A retry must carry the state and all three answers; otherwise all
/// three are asked for again (a compliant client answers every request of a round at once).
/// Finishes with `{"color":…,"suggestion":…,"rootCount":N,"status":"preview"}`, or
/// `{"status":<action>}` when the color is declined or cancelled.
fn combined_preview<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let color_ask = color_form()?;
    let suggestion_ask = suggestion_request()?;
    let mut open = [0u8; OPEN_SCRATCH_LEN];
    let started = call.open_state(&mut open)?.is_some();
    let answers = (
        call.response("color", &color_ask)?,
        call.response("suggestion", &suggestion_ask)?,
        call.response("roots", &ListRoots)?,
    );
    match answers {
        (Response::Answered(c), _, _) if started && !c.accepted() => Ok(preview(reply, |w| {
            w.object(|o| {
                o.str("status", c.action().name());
            });
        })),
        (Response::Answered(c), Response::Answered(s), Response::Answered(r)) if started => {
            let color = c.str("color")?;
            let Some(text) = sampled_text(&s) else {
                return Ok(reply.error_text("The client's model returned no text to preview."));
            };
            Ok(preview(reply, |w| {
                w.object(|o| {
                    o.key("color").json_str(color);
                    o.key("suggestion").json_str(text);
                    o.u64("rootCount", r.len() as u64);
                    o.str("status", "preview");
                });
            }))
        }
        _ => reply
            .input_required()
            .request("color", color_ask)
            .request("suggestion", suggestion_ask)
            .request("roots", ListRoots)
            .seal(br#"{"stage":"combined"}"#),
    }
}
