//! The tools of the `tasks-*` scenarios (SEP-2663): each is an ordinary handler that, when
//! its call is offered a task, turns it into one, and does its work when it runs as the task
//! (or in the request, for a client that did not declare the extension).

use std::time::Duration;

use snodo_core::mrtr::Response;
use snodo_core::server::{Done, Error, ToolCall, ToolReply};
use snodo_core::tasks::TaskPhase;

use super::mrtr::{NAME_FORM, form, text_of};

/// A form with a required string `name` and an optional boolean `confirm` (the runner
/// answers both questions of `multi_input` with both).
const NAME_CONFIRM_FORM: &str = r#"{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}},"required":["name"]}"#;

/// A form with one required boolean property `confirm`.
const CONFIRM_FORM: &str =
    r#"{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}"#;

/// The longest `slow_compute` sleeps.
const MOST_SECONDS: f64 = 600.0;

/// `Ok(Done)` turning the call into a task when it is offered one.
macro_rules! task_when_offered {
    ($call:ident, $reply:ident) => {
        if let Some(offer) = $call.task_phase().offer() {
            return Ok($reply.into_task(offer));
        }
    };
}

/// A string argument, decoded (empty when absent).
fn string_argument(call: &ToolCall<'_>, name: &str) -> String {
    call.argument(name)
        .and_then(|v| v.as_str())
        .map(text_of)
        .unwrap_or_default()
}

/// `greet`: sync-only, `Hello, {name}!`.
pub(super) fn greet<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let name = string_argument(call, "name");
    Ok(reply.text_fmt(format_args!("Hello, {name}!")))
}

/// `slow_compute`: sleeps `seconds` (at most ten minutes), then names its label. A task of it
/// that is cancelled meanwhile is stopped by its host and settles `cancelled`.
pub(super) async fn slow_compute<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    task_when_offered!(call, reply);
    let seconds = call
        .argument("seconds")
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
        .clamp(0.0, MOST_SECONDS);
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    let label = string_argument(call, "label");
    Ok(reply.text_fmt(format_args!("Computed {label} in {seconds} s")))
}

/// `failing_job`: a tool execution error after about a second (a task of it is `completed`
/// with `isError`).
pub(super) async fn failing_job<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    task_when_offered!(call, reply);
    tokio::time::sleep(Duration::from_secs(1)).await;
    Ok(reply.error_text("The job failed: the input data is unavailable"))
}

/// `protocol_error_job`: fails with a JSON-RPC error (a task of it is `failed`).
pub(super) fn protocol_error_job<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    task_when_offered!(call, reply);
    Err(Error::internal("The job hit an internal failure"))
}

/// `confirm_delete`: asks to confirm, then deletes (nothing) or keeps the file.
pub(super) fn confirm_delete<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    task_when_offered!(call, reply);
    let filename = string_argument(call, "filename");
    let ask = form("Delete this file?", CONFIRM_FORM)?;
    Ok(match call.response("confirm", &ask)? {
        Response::Answered(a) if a.get("confirm").and_then(|v| v.as_bool()) == Some(true) => {
            reply.text_fmt(format_args!("Deleted {filename}"))
        }
        Response::Answered(_) => reply.text_fmt(format_args!("Kept {filename}")),
        Response::Missing => reply.input_required().request("confirm", ask).done(),
    })
}

/// `multi_input`: asks two questions at once, then names both answers.
pub(super) fn multi_input<'o>(
    call: &ToolCall<'_>,
    reply: ToolReply<'o>,
) -> Result<Done<'o>, Error> {
    task_when_offered!(call, reply);
    let first = form("First name?", NAME_CONFIRM_FORM)?;
    let second = form("Second name?", NAME_CONFIRM_FORM)?;
    match (
        call.response("first", &first)?,
        call.response("second", &second)?,
    ) {
        (Response::Answered(a), Response::Answered(b)) => {
            let name = |answer: &snodo_core::mrtr::ElicitAnswer<'_>| {
                if answer.accepted() {
                    answer.str("name").map(text_of)
                } else {
                    Ok("nobody".to_owned())
                }
            };
            Ok(reply.text_fmt(format_args!("Got {} and {}", name(&a)?, name(&b)?)))
        }
        _ => Ok(reply
            .input_required()
            .request("first", first)
            .request("second", second)
            .done()),
    }
}

/// `test_tool_with_task`: asks for the user's name in the request (MRTR), then, with the
/// answer, becomes a task whose result greets that name.
pub(super) fn with_task<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let ask = form("What is your name?", NAME_FORM)?;
    let answer = match call.response("user_name", &ask)? {
        Response::Missing => return Ok(reply.input_required().request("user_name", ask).done()),
        Response::Answered(answer) => answer,
    };
    match call.task_phase() {
        TaskPhase::Offered(offer) => Ok(reply.into_task(offer)),
        TaskPhase::Running | TaskPhase::Unavailable => {
            let name = if answer.accepted() {
                text_of(answer.str("name")?)
            } else {
                "stranger".to_owned()
            };
            Ok(reply.text_fmt(format_args!("Hello, {name}! Your task is done.")))
        }
    }
}
