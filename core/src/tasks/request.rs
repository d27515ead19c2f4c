//! Reading `tasks/get`, `tasks/update` and `tasks/cancel`, in the extension's gate order.
//!
//! The HTTP transport checks `Mcp-Name` against `params.taskId` first (-32020, see
//! [`protocol::http`](crate::protocol::http)). Then, before anything is looked up, the
//! request itself must declare the extension (-32021, naming it in `requiredCapabilities`;
//! an earlier request's declaration does not count). Only then does the host look the task
//! up, and answers the same -32602 ([`write_unknown_task`]) for a task that never existed,
//! one that expired and one of another principal, so that an id reveals nothing.

use crate::json::{JsonStr, Object, Writer};
use crate::protocol::ClientCapabilities;
use crate::rpc::{ErrorCode, Id, write_error};

use super::method;

/// Which of the extension's methods a request calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskMethod {
    /// `tasks/get`.
    Get,
    /// `tasks/update`.
    Update,
    /// `tasks/cancel`.
    Cancel,
}

impl TaskMethod {
    /// The method `name` names, if it is one of the extension's.
    pub fn of(name: JsonStr<'_>) -> Option<TaskMethod> {
        [
            (method::GET, TaskMethod::Get),
            (method::UPDATE, TaskMethod::Update),
            (method::CANCEL, TaskMethod::Cancel),
        ]
        .into_iter()
        .find(|(m, _)| name.eq_str(m))
        .map(|(_, method)| method)
    }
}

/// A task request that passed the gate: what the host looks up and acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskRequest<'a> {
    /// What it asks.
    pub method: TaskMethod,
    /// The task it is about.
    pub task_id: JsonStr<'a>,
    /// With `tasks/update`: the responses, keyed as the task's `inputRequests` were (keys
    /// that are unknown, answered already or superseded are the host's to ignore).
    pub input_responses: Option<Object<'a>>,
}

/// Why a task request is answered before any lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Refusal {
    /// The request does not declare the extension: -32021.
    Undeclared,
    /// `params` lacks a string `taskId`, or `tasks/update` an object `inputResponses`:
    /// -32602 with this message.
    InvalidParams(&'static str),
}

/// Reads a task request of `method` with `params`, sent with the capabilities `declared` on
/// it; `Err` is answered with [`write_refusal`].
pub fn read_request<'a>(
    method: TaskMethod,
    params: Option<Object<'a>>,
    declared: ClientCapabilities,
) -> Result<TaskRequest<'a>, Refusal> {
    if !declared.contains(ClientCapabilities::TASKS) {
        return Err(Refusal::Undeclared);
    }
    let task_id = params
        .and_then(|p| p.get("taskId"))
        .and_then(|t| t.as_str())
        .ok_or(Refusal::InvalidParams("taskId must be a string"))?;
    let input_responses = match method {
        TaskMethod::Update => Some(
            params
                .and_then(|p| p.get("inputResponses"))
                .and_then(|r| r.as_object())
                .ok_or(Refusal::InvalidParams("inputResponses must be an object"))?,
        ),
        TaskMethod::Get | TaskMethod::Cancel => None,
    };
    Ok(TaskRequest {
        method,
        task_id,
        input_responses,
    })
}

/// Writes the error response to `id` that `refusal` calls for.
pub fn write_refusal(w: &mut Writer<'_>, id: Option<Id<'_>>, refusal: Refusal) {
    match refusal {
        Refusal::Undeclared => crate::server::reply::write_tasks_required(w, id),
        Refusal::InvalidParams(message) => {
            write_error(w, id, ErrorCode::INVALID_PARAMS, message, None);
        }
    }
}

/// Writes the one answer to a task id the host does not hold for this caller (never
/// created, expired, or another principal's): -32602, the same words for each.
pub fn write_unknown_task(w: &mut Writer<'_>, id: Option<Id<'_>>) {
    write_error(w, id, ErrorCode::INVALID_PARAMS, "Unknown task", None);
}
