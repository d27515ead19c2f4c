//! The task shapes a server writes: `CreateTaskResult` and `DetailedTask`.

use crate::json::{ObjectWriter, Value, Writer};
use crate::rpc::emit::{self, WireId};

use super::Status;

/// What every task shape carries, borrowed from wherever the host keeps the task.
/// Timestamps are ISO 8601 text the host formats (the core has no clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task<'a> {
    /// The server-generated, unguessable identifier.
    pub task_id: &'a str,
    /// Where the task is.
    pub status: Status,
    /// What the status means right now, for the user or the model.
    pub status_message: Option<&'a str>,
    /// When the task was created.
    pub created_at: &'a str,
    /// When its status, message or payload last changed.
    pub last_updated_at: &'a str,
    /// How long after its creation the task may be discarded; `None` for no limit (`null`).
    pub ttl_ms: Option<u64>,
    /// How often the client should poll.
    pub poll_interval_ms: Option<u64>,
}

impl Task<'_> {
    /// Writes the members of a `Task` into an open object.
    fn write_members(&self, o: &mut ObjectWriter<'_, '_>) {
        o.str("taskId", self.task_id);
        o.str("status", self.status.name());
        if let Some(message) = self.status_message {
            o.str("statusMessage", message);
        }
        o.str("createdAt", self.created_at);
        o.str("lastUpdatedAt", self.last_updated_at);
        match self.ttl_ms {
            Some(ttl) => o.u64("ttlMs", ttl),
            None => o.raw("ttlMs", b"null"),
        };
        if let Some(interval) = self.poll_interval_ms {
            o.u64("pollIntervalMs", interval);
        }
    }
}

/// What a `DetailedTask` carries besides the task, which must be its status's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// Nothing: a `working` or `cancelled` task.
    None,
    /// The outstanding input requests of an `input_required` task (an object, as MRTR
    /// writes `inputRequests`).
    InputRequests(Value<'a>),
    /// The final result of a `completed` task (the original request's result object).
    Result(Value<'a>),
    /// The JSON-RPC error object of a `failed` task.
    Error(Value<'a>),
}

impl Payload<'_> {
    /// The one status this payload belongs to (`None` for both payload-free statuses).
    fn belongs_to(&self, status: Status) -> bool {
        matches!(
            (self, status),
            (Payload::None, Status::Working | Status::Cancelled)
                | (Payload::InputRequests(_), Status::InputRequired)
                | (Payload::Result(_), Status::Completed)
                | (Payload::Error(_), Status::Failed)
        )
    }
}

/// A payload given for a status it does not belong to (`result` on a `working` task, no
/// `inputRequests` on an `input_required` one): nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PayloadMismatch;

/// Writes the response to `id` that creates `task`: the flat `CreateTaskResult`
/// (`resultType: "task"` and the task's members; no `task` wrapper, no `requestState`).
/// Write it only once the task is stored: a `tasks/get` for it must already resolve.
pub fn write_created(w: &mut Writer<'_>, id: impl WireId, task: &Task<'_>) {
    emit::result(w, id);
    w.object(|o| {
        o.str("resultType", "task");
        task.write_members(o);
    });
    w.raw(b"}");
}

/// Writes `task` as a `DetailedTask` object (what `tasks/get` returns with
/// `resultType: "complete"` beside it, and what `notifications/tasks` carries) with its
/// status's payload; `extra` writes members of the enclosing result first (such as
/// `resultType`), or nothing.
pub fn write_detailed(
    w: &mut Writer<'_>,
    task: &Task<'_>,
    payload: Payload<'_>,
    extra: impl FnOnce(&mut ObjectWriter<'_, '_>),
) -> Result<(), PayloadMismatch> {
    if !payload.belongs_to(task.status) {
        return Err(PayloadMismatch);
    }
    w.object(|o| {
        extra(o);
        task.write_members(o);
        match payload {
            Payload::None => {}
            Payload::InputRequests(requests) => {
                o.value("inputRequests", requests);
            }
            Payload::Result(result) => {
                o.value("result", result);
            }
            Payload::Error(error) => {
                o.value("error", error);
            }
        }
    });
    Ok(())
}

/// Writes the response to `tasks/get` request `id`: `task` as a `DetailedTask` with its
/// payload and `resultType: "complete"` (the standard result shape of `tasks/get`).
pub fn write_got(
    w: &mut Writer<'_>,
    id: impl WireId,
    task: &Task<'_>,
    payload: Payload<'_>,
) -> Result<(), PayloadMismatch> {
    if !payload.belongs_to(task.status) {
        return Err(PayloadMismatch);
    }
    emit::result(w, id);
    write_detailed(w, task, payload, |o| {
        o.str("resultType", "complete");
    })?;
    w.raw(b"}");
    Ok(())
}

/// Writes the acknowledgement of `tasks/update` or `tasks/cancel` request `id`: an empty
/// result with `resultType: "complete"` (the task's state is read with `tasks/get`).
pub fn write_acknowledged(w: &mut Writer<'_>, id: impl WireId) {
    emit::result(w, id);
    w.raw(b"{\"resultType\":\"complete\"}}");
}
