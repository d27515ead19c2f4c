//! The multi round-trip (MRTR) tools and prompt of the `input-required-result-*` scenarios,
//! plus the two `server-stateless` tools that ask through `input_required`.
//!
//! Each handler reads the client's answers by key with `call.response(key, &ask)` (missing,
//! valid, or the generic -32602) and either completes or returns `input_required` again.
//! Partial progress that must survive a round is sealed into `requestState`; a token that does
//! not open is -32602 before anything else happens.

use snodo_core::json::JsonStr;
use snodo_core::mrtr::{CreateMessage, ElicitAnswer, Elicitation, ListRoots, Response};
use snodo_core::server::{
    Done, Error, PromptGet, PromptReply, RequestContext, ToolCall, ToolReply,
};
use snodo_core::state::OPEN_SCRATCH_LEN;

/// A form with one required string property `name`.
pub(super) const NAME_FORM: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
/// A form with one required boolean property `ok`.
const CONFIRM_FORM: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;
/// A form with one required string property `color`.
const COLOR_FORM: &str =
    r#"{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}"#;
/// A form with one required string property `context`.
const CONTEXT_FORM: &str =
    r#"{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}"#;
/// A form with one required string property `value`.
const VALUE_FORM: &str =
    r#"{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}"#;

const CAPITAL_SAMPLING: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}"#;
const GREETING_SAMPLING: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}"#;
const SAMPLE_REQUEST_SAMPLING: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Sample request"}}],"maxTokens":50}"#;

/// A form elicitation from constant text (a definition error is the fixture's bug: -32603).
pub(super) fn form(
    message: &'static str,
    schema: &'static str,
) -> Result<Elicitation<'static>, Error> {
    Elicitation::form(message, schema)
        .map_err(|_| Error::internal("the fixture built an invalid elicitation"))
}

/// A sampling request from constant params.
fn sampling(params: &'static str) -> Result<CreateMessage<'static>, Error> {
    CreateMessage::new(params).map_err(|_| Error::internal("the fixture built an invalid request"))
}

/// The decoded text of a JSON string.
pub(super) fn text_of(s: JsonStr<'_>) -> String {
    s.chars().collect()
}

/// One string field of an accepted form answer (`unknown` when the user did not accept).
fn field(answer: &ElicitAnswer<'_>, name: &str) -> Result<String, Error> {
    if answer.accepted() {
        Ok(text_of(answer.str(name)?))
    } else {
        Ok("unknown".to_owned())
    }
}

/// Opens this request's `requestState`: `None` on a first call, the sealed data when the
/// token verifies, -32602 otherwise. The data is returned as owned JSON.
fn open_state(ctx: &RequestContext<'_>) -> Result<Option<serde_json::Value>, Error> {
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    let Some(data) = ctx.open_state(&mut scratch)? else {
        return Ok(None);
    };
    serde_json::from_slice(data.raw())
        .map(Some)
        .map_err(|_| Error::internal("sealed state is not JSON"))
}

/// `test_input_required_result_elicitation`: a name, with no state; unknown answer keys are
/// ignored, so the first call may already carry the answer.
pub(super) fn elicitation<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let ask = form("What is your name?", NAME_FORM)?;
    Ok(match call.response("user_name", &ask)? {
        Response::Answered(a) => reply.text_fmt(format_args!("Hello, {}!", field(&a, "name")?)),
        Response::Missing => reply.input_required().request("user_name", ask).done(),
    })
}

/// `test_input_required_result_sampling`: one sampled message.
pub(super) fn sampling_tool<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let ask = sampling(CAPITAL_SAMPLING)?;
    Ok(match call.response("capital_question", &ask)? {
        Response::Answered(m) => {
            let text = m.text().map_or_else(|| "no text".to_owned(), text_of);
            reply.text_fmt(format_args!("Sampling result: {text}"))
        }
        Response::Missing => reply
            .input_required()
            .request("capital_question", ask)
            .done(),
    })
}

/// `test_input_required_result_list_roots`: the client's roots.
pub(super) fn list_roots<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    Ok(match call.response("client_roots", &ListRoots)? {
        Response::Answered(roots) => reply.text_fmt(format_args!("Found {} root(s)", roots.len())),
        Response::Missing => reply
            .input_required()
            .request("client_roots", ListRoots)
            .done(),
    })
}

/// `test_input_required_result_request_state`: a confirmation whose retry must echo the
/// sealed state.
pub(super) fn request_state<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    confirm_with_state(call, reply, "state-ok: requestState validated")
}

/// `test_input_required_result_tampered_state`: the same, so that a tampered token is -32602.
pub(super) fn tampered_state<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    confirm_with_state(call, reply, "integrity-ok: state verified")
}

fn confirm_with_state<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
    done: &str,
) -> Result<Done<'o>, Error> {
    let state = open_state(call)?;
    let ask = form("Please confirm", CONFIRM_FORM)?;
    if let (Some(_), Response::Answered(_)) = (&state, call.response("confirm", &ask)?) {
        return Ok(reply.text(done));
    }
    reply
        .input_required()
        .request("confirm", ask)
        .seal(br#"{"step":"confirm"}"#)
}

/// `test_input_required_result_multiple_inputs`: three kinds of input at once, with state.
pub(super) fn multiple_inputs<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let state = open_state(call)?;
    let name = form("What is your name?", NAME_FORM)?;
    let greeting = sampling(GREETING_SAMPLING)?;
    let answers = (
        call.response("user_name", &name)?,
        call.response("greeting", &greeting)?,
        call.response("client_roots", &ListRoots)?,
    );
    if let (Some(_), (Response::Answered(n), Response::Answered(g), Response::Answered(r))) =
        (&state, answers)
    {
        let greeting = g.text().map_or_else(|| "no text".to_owned(), text_of);
        return Ok(reply.text_fmt(format_args!(
            "Name: {}; Greeting: {greeting}; Roots: {}",
            field(&n, "name")?,
            r.len()
        )));
    }
    reply
        .input_required()
        .request("user_name", name)
        .request("greeting", greeting)
        .request("client_roots", ListRoots)
        .seal(br#"{"step":"all"}"#)
}

/// `test_input_required_result_multi_round`: a name, then a color; the name travels in the
/// second round's sealed state, so the two states differ.
pub(super) fn multi_round<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let state = open_state(call)?;
    let step1 = form("Step 1: What is your name?", NAME_FORM)?;
    let step2 = form("Step 2: What is your favorite color?", COLOR_FORM)?;
    let round = state
        .as_ref()
        .and_then(|s| s.get("round"))
        .and_then(serde_json::Value::as_u64);
    match round {
        Some(1) => {
            if let Response::Answered(a) = call.response("step1", &step1)? {
                let data = serde_json::json!({ "round": 2, "name": field(&a, "name")? });
                return reply
                    .input_required()
                    .request("step2", step2)
                    .seal(data.to_string().as_bytes());
            }
        }
        Some(2) => {
            let name = state
                .as_ref()
                .and_then(|s| s.get("name"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or("unknown");
            match call.response("step2", &step2)? {
                Response::Answered(a) => {
                    return Ok(reply.text_fmt(format_args!(
                        "Multi-round complete for {name} who likes {}",
                        field(&a, "color")?
                    )));
                }
                Response::Missing => {
                    let data = serde_json::json!({ "round": 2, "name": name });
                    return reply
                        .input_required()
                        .request("step2", step2)
                        .seal(data.to_string().as_bytes());
                }
            }
        }
        _ => {}
    }
    reply
        .input_required()
        .request("step1", step1)
        .seal(br#"{"round":1}"#)
}

/// `test_input_required_result_capabilities`: asks only for what this request declared.
pub(super) fn capabilities<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let elicit = form("Elicitation input", VALUE_FORM)?;
    let sample = sampling(SAMPLE_REQUEST_SAMPLING)?;
    if let Some(responses) = call.input_responses().filter(|r| !r.is_empty()) {
        let keys: Vec<String> = responses.iter().map(|(k, _)| text_of(k)).collect();
        return Ok(reply.text_fmt(format_args!("capabilities-ok: received {}", keys.join(","))));
    }
    let (can_elicit, can_sample) = (call.client_supports(&elicit), call.client_supports(&sample));
    if !can_elicit && !can_sample {
        return Ok(reply.text("No supported capabilities declared"));
    }
    let mut ir = reply.input_required();
    if can_elicit {
        ir = ir.request("elicit_input", elicit);
    }
    if can_sample {
        ir = ir.request("sample_input", sample);
    }
    Ok(ir.done())
}

/// `test_missing_capability`: needs sampling. Without it, the `input_required` outcome that
/// asks for sampling is refused by the core with -32021 and
/// `data.requiredCapabilities = {"sampling":{}}`.
pub(super) fn missing_capability<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let ask = sampling(CAPITAL_SAMPLING)?;
    if call.client_supports(&ask) {
        return Ok(reply.text("Success"));
    }
    Ok(reply
        .input_required()
        .request("capital_question", ask)
        .done())
}

/// `test_streaming_elicitation`: asks through `input_required` (one JSON line), never with a
/// server-to-client request on the response stream.
pub(super) fn streaming_elicitation<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let ask = form("Please confirm", CONFIRM_FORM)?;
    Ok(match call.response("confirm", &ask)? {
        Response::Answered(_) => reply.text("Streaming complete"),
        Response::Missing => reply.input_required().request("confirm", ask).done(),
    })
}

/// `test_input_required_result_prompt`: a prompt that needs context first; no state.
pub(super) fn prompt<'o>(call: &PromptGet<'_>, reply: PromptReply<'o>) -> Result<Done<'o>, Error> {
    let ask = form("What context should the prompt use?", CONTEXT_FORM)?;
    Ok(match call.response("user_context", &ask)? {
        Response::Answered(a) => {
            let context = field(&a, "context")?;
            reply.messages(None, |m| {
                m.text(
                    snodo_core::server::Role::User,
                    format_args!("Prompt with context: {context}"),
                );
            })
        }
        Response::Missing => reply.input_required().request("user_context", ask).done(),
    })
}
