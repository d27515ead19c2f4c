//! Following a call that became a task (the Tasks extension): `tasks/get` at the task's
//! `pollIntervalMs` until it ends, its input requests answered by the client's handlers with
//! `tasks/update`, and `tasks/cancel` sent when the caller drops the call.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Map, Value};
use snodo_core::client::{Exchange, Operation, read_input_request};
use snodo_core::json::parse;

use super::handlers::json_of;
use super::{Client, ClientError, Driven, Owned, Transport, grow};

/// The interval used when the server names none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// Bounds on a server's `pollIntervalMs`: no busier than this, no sleepier.
const FASTEST_POLL: Duration = Duration::from_millis(10);
const SLOWEST_POLL: Duration = Duration::from_secs(60);

impl Client {
    /// Follows the task `created` (a `CreateTaskResult`) to its end: the call's result.
    pub(super) async fn follow_task(&self, created: Value) -> Result<Value, ClientError> {
        let task_id = created
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::MalformedResponse("a task needs a taskId".into()))?
            .to_owned();
        let mut cancel = CancelOnDrop::new(self, &task_id);
        let followed = self.poll(&task_id, created).await;
        // A task that ended, or that the server no longer knows, needs no cancellation.
        if !matches!(followed, Err(ClientError::Timeout | ClientError::Closed)) {
            cancel.disarm();
        }
        followed
    }

    async fn poll(&self, task_id: &str, created: Value) -> Result<Value, ClientError> {
        let mut answered: HashSet<String> = HashSet::new();
        let mut rounds = 0u8;
        let mut task = created;
        loop {
            match task.get("status").and_then(Value::as_str) {
                Some("working") => {}
                Some("input_required") => {
                    let responses = self.answer_task(&task, &answered).await?;
                    if !responses.is_empty() {
                        rounds = rounds.saturating_add(1);
                        if rounds > self.max_rounds {
                            return Err(ClientError::ExhaustedRounds { rounds });
                        }
                        answered.extend(responses.keys().cloned());
                        let responses =
                            serde_json::to_vec(&responses).map_err(ClientError::transport)?;
                        self.task_request("tasks/update", task_id, Some(responses))
                            .await?;
                        // The answers may already have moved the task on: look at once.
                        task = self.get_task(task_id).await?;
                        continue;
                    }
                }
                Some("completed") => {
                    return task
                        .get_mut("result")
                        .map(Value::take)
                        .ok_or_else(|| malformed("a completed task needs its result"));
                }
                Some("failed") => {
                    let error = task.get("error").cloned().unwrap_or(Value::Null);
                    return Err(ClientError::Server {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        data: error.get("data").cloned(),
                    });
                }
                Some("cancelled") => return Err(ClientError::TaskCancelled),
                _ => return Err(malformed("a task needs a known status")),
            }
            tokio::time::sleep(poll_interval(&task)).await;
            task = self.get_task(task_id).await?;
        }
    }

    /// The answers to the input requests of `task` not `answered` yet, by key.
    async fn answer_task(
        &self,
        task: &Value,
        answered: &HashSet<String>,
    ) -> Result<Map<String, Value>, ClientError> {
        let Some(requests) = task.get("inputRequests") else {
            return Ok(Map::new());
        };
        let bytes = serde_json::to_vec(requests).map_err(ClientError::transport)?;
        let parsed = parse(&bytes, &self.limits)
            .map_err(|_| malformed("inputRequests is not JSON within the client's limits"))?;
        let requests = parsed
            .as_object()
            .ok_or_else(|| malformed("inputRequests must be an object"))?;
        let mut responses = Map::new();
        for (key, value) in requests {
            let key_text: String = key.chars().collect();
            if answered.contains(&key_text) {
                continue;
            }
            let request = read_input_request(key, value).map_err(|reason| {
                ClientError::MalformedInputRequest {
                    key: Some(key_text.clone()),
                    reason,
                }
            })?;
            let answer = self.handlers.answer(&request).await?;
            responses.insert(key_text, json_of(&answer));
        }
        Ok(responses)
    }

    async fn get_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.task_request("tasks/get", task_id, None).await
    }

    /// One of the extension's requests about `task_id`, declaring it (its result).
    async fn task_request(
        &self,
        method: &'static str,
        task_id: &str,
        input_responses: Option<Vec<u8>>,
    ) -> Result<Value, ClientError> {
        let op = Owned::Task(method, task_id.to_owned(), input_responses);
        match self.drive_request(&op, None).await? {
            Driven::Complete(result) => Ok(result),
            Driven::Task(_) => Err(malformed("a task request became a task")),
        }
    }
}

/// The `pollIntervalMs` of `task`, within bounds.
fn poll_interval(task: &Value) -> Duration {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(FASTEST_POLL, SLOWEST_POLL)
}

fn malformed(reason: &str) -> ClientError {
    ClientError::MalformedResponse(reason.to_owned())
}

/// Sends `tasks/cancel` for a task whose call was dropped before it ended: written when the
/// task is created (the request needs the client's configuration), sent by a task of its
/// own on the transport, which outlives the call.
struct CancelOnDrop {
    armed: Option<(Transport, i64, Vec<u8>, Option<Duration>)>,
}

impl CancelOnDrop {
    fn new(client: &Client, task_id: &str) -> Self {
        let config = client.config();
        let operation = Operation::task("tasks/cancel", task_id, None);
        let mut exchange = Exchange::new(&config, operation, client.capabilities());
        let id = client.next_id();
        let mut out = Vec::new();
        let armed = grow(&mut out, |buf| exchange.write_request(id, buf))
            .ok()
            .map(|len| {
                out.truncate(len);
                (client.transport.clone(), id, out, client.timeout)
            });
        CancelOnDrop { armed }
    }

    fn disarm(&mut self) {
        self.armed = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((transport, id, request, timeout)) = self.armed.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let sent = match &transport {
                Transport::Stdio(stdio) => stdio.round_trip(id, &request, timeout).await,
                Transport::Http(http) => http.round_trip(id, &request, None, timeout).await,
            };
            if let Err(e) = sent {
                tracing::debug!("the dropped call's task was not cancelled: {e}");
            }
        });
    }
}
