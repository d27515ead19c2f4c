//! The tools only the runner's 2025-11-25 scenarios call: logging during a call, sampling and
//! elicitation (written once in the MRTR style; a legacy session gets them as
//! `sampling/createMessage` and `elicitation/create` requests through the bridge), the two
//! SEP elicitation schemas, and `test_reconnection` for `server-sse-polling`.

use std::time::Duration;

use snodo_core::mrtr::{Action, CreateMessage, ElicitAnswer, Elicitation, Response};
use snodo_core::protocol::LogLevel;
use snodo_core::server::{Done, Error, ToolCall, ToolReply};

use super::mrtr::text_of;

/// `test_elicitation`'s form: a username and an email address.
const USER_FORM: &str = r#"{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}"#;

/// SEP-1034: a default for every primitive type.
const DEFAULTS_FORM: &str = r#"{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}"#;

/// SEP-1330: the five enum shapes, the deprecated `enumNames` one included.
const ENUMS_FORM: &str = concat!(
    r#"{"type":"object","properties":{"#,
    r#""untitledSingle":{"type":"string","enum":["option1","option2","option3"]},"#,
    r#""titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"#,
    r#""legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"#,
    r#""untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},"#,
    r#""titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}"#,
    r#"},"required":[]}"#,
);

/// `test_tool_with_logging`: three `info` messages about 50 ms apart (sent only when the
/// request asked for a log level).
pub(super) async fn logging<'o>(reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let mut reply = reply;
    let steps = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, step) in steps.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        reply
            .log(LogLevel::Info, Some("conformance"), format_args!("{step}"))
            .map_err(|_| Error::internal("the log message does not fit"))?;
    }
    Ok(reply.text("Logging tool completed"))
}

/// `test_sampling`: the `prompt` argument sampled once.
pub(super) fn sampling<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let prompt = call
        .argument("prompt")
        .and_then(|p| p.as_str())
        .map_or_else(String::new, text_of);
    let params = serde_json::json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100,
    })
    .to_string();
    let ask = CreateMessage::new(&params)
        .map_err(|_| Error::internal("the fixture built an invalid request"))?;
    Ok(match call.response("sample", &ask)? {
        Response::Answered(m) => {
            let text = m.text().map_or_else(|| "no text".to_owned(), text_of);
            reply.text_fmt(format_args!("LLM response: {text}"))
        }
        Response::Missing => reply.input_required().request("sample", ask).done(),
    })
}

/// `test_elicitation`: a username and an email, asked with the `message` argument.
pub(super) fn elicitation<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    let message = call
        .argument("message")
        .and_then(|p| p.as_str())
        .map_or_else(String::new, text_of);
    form_round(call, reply, &message, USER_FORM, "User response")
}

/// `test_elicitation_sep1034_defaults`.
pub(super) fn defaults<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let message = "Test client default value handling - please accept with defaults";
    form_round(call, reply, message, DEFAULTS_FORM, "Elicitation completed")
}

/// `test_elicitation_sep1330_enums`.
pub(super) fn enums<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let message = "Choose from the enum variants";
    form_round(call, reply, message, ENUMS_FORM, "Elicitation completed")
}

/// One form, then its answer described as `{lead}: action=…, content=…`.
fn form_round<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
    message: &str,
    schema: &str,
    lead: &str,
) -> Result<Done<'o>, Error> {
    let ask = Elicitation::form(message, schema)
        .map_err(|_| Error::internal("the fixture built an invalid elicitation"))?;
    Ok(match call.response("form", &ask)? {
        Response::Answered(answer) => {
            let (action, content) = describe(&answer);
            reply.text_fmt(format_args!("{lead}: action={action}, content={content}"))
        }
        Response::Missing => reply.input_required().request("form", ask).done(),
    })
}

fn describe(answer: &ElicitAnswer<'_>) -> (&'static str, String) {
    let action = match answer.action() {
        Action::Accept => "accept",
        Action::Decline => "decline",
        Action::Cancel => "cancel",
    };
    let content = answer.content().map_or_else(
        || "{}".to_owned(),
        |c| String::from_utf8_lossy(c.as_value().raw()).into_owned(),
    );
    (action, content)
}

/// `test_reconnection`: half a second without a word, then a text. The fixture polls a
/// legacy request that is quiet for 200 ms, so its POST stream closes after the priming
/// event and the client resumes with `Last-Event-ID` to get the response.
pub(super) async fn reconnection<'o>(reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(reply.text("Reconnection test completed successfully"))
}
