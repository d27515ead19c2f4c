//! The read-only preference flow of the seed's example 20, as plain synchronous functions
//! over `snodo-core`, shared by the tool `preference_preview`, the resource
//! `preview://preferences` and the prompt `preference_prompt`, and by `reset_preview` and
//! `url_preview`. Each leg either asks for one more answer (`input_required`) or finishes;
//! partial answers travel in sealed state, never in hidden argument keys.

use std::sync::LazyLock;

use snodo_core::json::Writer;
use snodo_core::mrtr::{Action, BuildError, Elicitation, FormSchema, Response};
use snodo_core::server::{Done, Error, Reply, RequestContext};
use snodo_core::state::open_scratch_len;

/// The question of the first leg.
pub const COLOR_SCHEMA: &str = r#"{"type":"object","properties":{"color":{"type":"string","minLength":1}},"required":["color"]}"#;
/// The question of the second leg.
pub const STYLE_SCHEMA: &str = r#"{"type":"object","properties":{"style":{"type":"string","minLength":1}},"required":["style"]}"#;
/// The question of `reset_preview`'s second leg.
pub const LABEL_SCHEMA: &str = r#"{"type":"object","properties":{"label":{"type":"string","minLength":1}},"required":["label"]}"#;
/// Where `url_preview` sends the user (nothing is fetched by the server).
pub const PREVIEW_URL: &str = "https://example.com/preferences/preview";

/// A form schema checked once, on first use, rather than on every leg that asks with it.
pub type CheckedForm = LazyLock<Result<FormSchema<'static>, BuildError>>;

/// [`COLOR_SCHEMA`], checked.
pub static COLOR_FORM: CheckedForm = LazyLock::new(|| FormSchema::new(COLOR_SCHEMA));
static STYLE_FORM: CheckedForm = LazyLock::new(|| FormSchema::new(STYLE_SCHEMA));
static LABEL_FORM: CheckedForm = LazyLock::new(|| FormSchema::new(LABEL_SCHEMA));

/// A form elicitation asking `message` with a checked schema.
pub fn form(message: &'static str, schema: &CheckedForm) -> Result<Elicitation<'static>, Error> {
    let schema = schema
        .as_ref()
        .map_err(|_| Error::internal("invalid form"))?;
    Ok(Elicitation::with_form(message, *schema))
}

/// What one leg of a flow decided.
pub enum Step<'b> {
    /// Ask `request` under `key`, carrying `state` (JSON to seal) when given.
    Ask {
        key: &'static str,
        request: Elicitation<'static>,
        state: Option<&'b [u8]>,
    },
    /// Ask for URL consent under `consent`, without state.
    AskUrl(Elicitation<'static>),
    /// Carry only state, asking nothing (the client retries at once).
    StateOnly(&'b [u8]),
    /// Finish with this JSON text.
    Final(&'b str),
}

/// The most state data these flows seal: a stage name and a color.
const STATE_LEN: usize = 256;

/// Scratch space one leg needs: an open-state scratch, the state to seal, the final text.
/// The open scratch fits the state these flows seal, not any token's (a token this server
/// did not seal fails to open anyway), so a leg zeroes about 1 KiB rather than 3.
pub struct Scratch {
    open: [u8; open_scratch_len(STATE_LEN)],
    state: [u8; STATE_LEN],
    text: [u8; 512],
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            open: [0; open_scratch_len(STATE_LEN)],
            state: [0; STATE_LEN],
            text: [0; 512],
        }
    }
}

fn json(buf: &mut [u8], f: impl FnOnce(&mut Writer<'_>)) -> Result<&[u8], Error> {
    let mut w = Writer::new(buf);
    f(&mut w);
    let n = w
        .finish()
        .map_err(|_| Error::internal("scratch too small"))?;
    Ok(&buf[..n])
}

fn text(bytes: &[u8]) -> Result<&str, Error> {
    core::str::from_utf8(bytes).map_err(|_| Error::internal("not UTF-8"))
}

/// `color`, then `style`; a declined or cancelled answer ends with `{"status":<action>}`.
pub fn preferences<'b>(ctx: &RequestContext<'_>, s: &'b mut Scratch) -> Result<Step<'b>, Error> {
    let color_form = form("Choose a color for a read-only preview", &COLOR_FORM)?;
    let style_form = form("Choose a style for a read-only preview", &STYLE_FORM)?;
    let state = ctx.open_state(&mut s.open)?;
    let stage = state.and_then(|v| v.get("stage")).and_then(|v| v.as_str());
    let Some(stage) = stage else {
        // Leg 1: nothing yet. Ask for the color, marking where we are.
        let state = json(&mut s.state, |w| {
            w.object(|o| {
                o.str("stage", "color");
            });
        })?;
        return Ok(Step::Ask {
            key: "color",
            request: color_form,
            state: Some(state),
        });
    };
    if stage.eq_str("color") {
        return match ctx.response("color", &color_form)? {
            Response::Missing => {
                let state = json(&mut s.state, |w| {
                    w.object(|o| {
                        o.str("stage", "color");
                    });
                })?;
                Ok(Step::Ask {
                    key: "color",
                    request: color_form,
                    state: Some(state),
                })
            }
            Response::Answered(a) if a.accepted() => {
                let color = a.str("color")?;
                let state = json(&mut s.state, |w| {
                    w.object(|o| {
                        o.str("stage", "style");
                        o.key("color").json_str(color);
                    });
                })?;
                Ok(Step::Ask {
                    key: "style",
                    request: style_form,
                    state: Some(state),
                })
            }
            Response::Answered(a) => status(&mut s.text, a.action(), false),
        };
    }
    let color = state
        .and_then(|v| v.get("color"))
        .and_then(|v| v.as_str())
        .ok_or(snodo_core::server::INVALID_STATE)?;
    match ctx.response("style", &style_form)? {
        Response::Missing => {
            let state = json(&mut s.state, |w| {
                w.object(|o| {
                    o.str("stage", "style");
                    o.key("color").json_str(color);
                });
            })?;
            Ok(Step::Ask {
                key: "style",
                request: style_form,
                state: Some(state),
            })
        }
        Response::Answered(a) if a.accepted() => {
            let style = a.str("style")?;
            let done = json(&mut s.text, |w| {
                w.object(|o| {
                    o.key("color").json_str(color);
                    o.key("style").json_str(style);
                    o.str("status", "preview");
                });
            })?;
            Ok(Step::Final(text(done)?))
        }
        Response::Answered(a) => status(&mut s.text, a.action(), false),
    }
}

fn status(buf: &mut [u8], action: Action, discarded: bool) -> Result<Step<'_>, Error> {
    let done = json(buf, |w| {
        w.object(|o| {
            o.str("status", action.name());
            if discarded {
                o.bool("stateDiscarded", true);
            }
        });
    })?;
    Ok(Step::Final(text(done)?))
}

/// A state-only result, then an input-only result asking `label` without state, then
/// `{"status":<action>,"stateDiscarded":true}`.
pub fn reset<'b>(ctx: &RequestContext<'_>, s: &'b mut Scratch) -> Result<Step<'b>, Error> {
    let label_form = form("Name this preview", &LABEL_FORM)?;
    if ctx.open_state(&mut s.open)?.is_some() {
        // Leg 2: the state did its job; ask without state, so the client must drop it.
        return Ok(Step::Ask {
            key: "label",
            request: label_form,
            state: None,
        });
    }
    match ctx.response("label", &label_form)? {
        Response::Missing => {
            let state = json(&mut s.state, |w| {
                w.object(|o| {
                    o.str("stage", "reset");
                });
            })?;
            Ok(Step::StateOnly(state))
        }
        Response::Answered(a) => status(&mut s.text, a.action(), true),
    }
}

/// Consent to open [`PREVIEW_URL`]; consent is not completion, so the external status stays
/// `pending`.
pub fn url_consent<'b>(ctx: &RequestContext<'_>, s: &'b mut Scratch) -> Result<Step<'b>, Error> {
    let ask = Elicitation::url("Open the preview page to continue", PREVIEW_URL)
        .map_err(|_| Error::internal("invalid URL"))?;
    match ctx.response("consent", &ask)? {
        Response::Missing => Ok(Step::AskUrl(ask)),
        Response::Answered(a) => {
            let done = json(&mut s.text, |w| {
                w.object(|o| {
                    o.str("consent", a.action().name());
                    o.str("externalStatus", "pending");
                });
            })?;
            Ok(Step::Final(text(done)?))
        }
    }
}

/// Writes a step through any reply: input requests and sealed state, or the final text via
/// `finish` (which differs per kind of call).
pub fn write<'o, K>(
    reply: Reply<'o, K>,
    step: Step<'_>,
    finish: impl FnOnce(Reply<'o, K>, &str) -> Done<'o>,
) -> Result<Done<'o>, Error> {
    match step {
        Step::Ask {
            key,
            request,
            state,
        } => {
            let ir = reply.input_required().request(key, request);
            match state {
                Some(data) => ir.seal(data),
                None => Ok(ir.done()),
            }
        }
        Step::AskUrl(request) => Ok(reply.input_required().request("consent", request).done()),
        Step::StateOnly(data) => reply.input_required().seal(data),
        Step::Final(text) => Ok(finish(reply, text)),
    }
}
