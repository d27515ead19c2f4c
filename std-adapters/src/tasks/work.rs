//! A task's work: the request run again, in the background, as the task (its handler sees
//! [`TaskPhase::Running`](snodo_core::tasks::TaskPhase::Running)), round after round until
//! it completes or fails. The handler finds its [`TaskContext`] there.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Map, Value};
use snodo_core::server::{Accepted, Handled, Principal, Round, Server};
use snodo_core::tasks::Status;
use tokio::sync::{Notify, OwnedSemaphorePermit};
use tokio::time::Instant;

use super::{StoreFuture, StoreResult, TaskContext, TaskHost, TaskStore, time};
use crate::clock::unix_seconds;
use crate::handler::{AppRunner, AsyncHandler};

/// The work of one task.
pub(super) struct Work<A: 'static> {
    pub(super) host: TaskHost,
    pub(super) server: Arc<Server<'static, A>>,
    pub(super) context: TaskContext,
    pub(super) task_id: Arc<str>,
    pub(super) principal: Option<String>,
    /// Notified when every pending input request is answered.
    pub(super) wake: Arc<Notify>,
    /// However the work ends (finished, dropped by the grace before or after it started,
    /// or a handler's panic), the host forgets it and its running slot is given back.
    pub(super) _ending: Ending,
}

/// What one round of the work came to.
enum Came {
    /// The task's final status and payload (JSON text).
    Finished(Status, String),
    /// `input_required`: its `inputRequests` (or none) and `requestState`.
    Input(Option<Map<String, Value>>, Option<Value>),
}

impl<A: AsyncHandler + 'static> Work<A> {
    /// Runs the rounds to the end, or to the task's TTL, and records it. After a
    /// cancellation, what it comes to is not recorded (the task is `cancelled` already);
    /// past the grace it is dropped.
    pub(super) async fn run(self, request: Bytes) {
        // The store forgets a task at its TTL: work still running then ends too, so that it
        // cannot hold a running slot for ever.
        let ttl = Duration::from_millis(self.host.inner.limits.ttl_ms);
        let (status, payload) = tokio::time::timeout(ttl, self.rounds(request))
            .await
            .unwrap_or_else(|_| failed("the task outlived its time to live"));
        // A failure's message is the task's statusMessage too, as the extension suggests.
        let message = (status == Status::Failed)
            .then(|| serde_json::from_str::<Value>(&payload).ok())
            .flatten()
            .and_then(|e| e.get("message")?.as_str().map(str::to_owned));
        let finished = self
            .steady(|store| {
                let (payload, message) = (payload.clone(), message.clone());
                store.finish(&self.task_id, status, payload, message, time::now_ms())
            })
            .await
            .unwrap_or(false);
        if finished {
            self.host.changed(&self.task_id);
        }
        tracing::debug!(task = %self.task_id, ?status, finished, "task ended");
    }

    async fn rounds(&self, first: Bytes) -> (Status, String) {
        let limits = self.host.inner.limits;
        // A copy of its own size: the request's bytes may be a slice of a larger buffer,
        // which a task parked on input for minutes would otherwise keep alive.
        let mut body = first.to_vec();
        drop(first);
        let mut request: Value = match serde_json::from_slice(&body) {
            Ok(request) => request,
            Err(_) => return failed("the task's request is not JSON"),
        };
        for round in 1..=limits.max_rounds {
            // What a parked task keeps is this loop's state: the request as a value and what
            // the round asked. The round (boxed), its bytes and its reply's go first.
            let sent = std::mem::take(&mut body);
            let reply = Box::pin(self.round(&sent)).await;
            drop(sent);
            let came = read_reply(&reply);
            drop(reply);
            let came = match came {
                Ok(came) => came,
                Err(why) => return failed(why),
            };
            let (requests, state) = match came {
                Came::Finished(status, payload) => return (status, payload),
                Came::Input(requests, state) => (requests, state),
            };
            let answers = match requests {
                Some(requests) if !requests.is_empty() => match self.ask(round, requests).await {
                    Some(answers) => answers,
                    None => return failed("the task stopped waiting for input"),
                },
                // Only a state to carry: the next round runs at once.
                _ => Map::new(),
            };
            let Some(params) = request.get_mut("params").and_then(Value::as_object_mut) else {
                return failed("the task's request has no params");
            };
            params.insert("inputResponses".into(), Value::Object(answers));
            match state {
                Some(state) => params.insert("requestState".into(), state),
                None => params.remove("requestState"),
            };
            body = match serde_json::to_vec(&request) {
                Ok(body) => body,
                Err(_) => return failed("the task's request could not be written"),
            };
        }
        failed("the task asked for input too many times")
    }

    /// Parks the task on `requests` (keyed `r{round}.{key}`, unique over the task's life),
    /// waits until all are answered, and gives the answers back under the handler's keys.
    async fn ask(&self, round: u32, requests: Map<String, Value>) -> Option<Map<String, Value>> {
        let prefix = format!("r{round}.");
        let wire: Map<String, Value> = requests
            .into_iter()
            .map(|(key, request)| (format!("{prefix}{key}"), request))
            .collect();
        let keys: Vec<String> = wire.keys().cloned().collect();
        let text = Value::Object(wire).to_string();
        let parked = self
            .steady(|store| store.park(&self.task_id, text.clone(), keys.clone(), time::now_ms()));
        if parked.await != Some(true) {
            return None;
        }
        self.host.changed(&self.task_id);
        loop {
            // Registered before the check, so an answer between the two is not missed.
            let woken = self.wake.notified();
            let resumed = self.steady(|store| store.resume(&self.task_id, time::now_ms()));
            if let Some(answers) = resumed.await? {
                self.host.changed(&self.task_id);
                let mut responses = Map::new();
                for (key, response) in answers {
                    let Some(key) = key.strip_prefix(&prefix) else {
                        continue;
                    };
                    let value = serde_json::from_str(&response).unwrap_or(Value::Null);
                    responses.insert(key.to_owned(), value);
                }
                return Some(responses);
            }
            let principal = self.principal.as_deref();
            let task = self.steady(|store| store.get(&self.task_id, principal, time::now_ms()));
            if task
                .await
                .flatten()
                .is_none_or(|t| t.status != Status::InputRequired)
            {
                return None;
            }
            // A store other processes share may have been answered there: look again now
            // and then, in case its notification was missed.
            match self.host.inner.poll_every {
                Some(every) => drop(tokio::time::timeout(every, woken).await),
                None => woken.await,
            }
        }
    }

    /// Runs a store step again while the store is out of reach (waiting 50 ms, doubling to
    /// 2 s), for up to the task's TTL: an outage of a database delays the work and loses
    /// nothing of it. `None` when it stayed out of reach.
    async fn steady<'s, T>(
        &'s self,
        mut step: impl FnMut(&'s dyn TaskStore) -> StoreFuture<'s, StoreResult<T>>,
    ) -> Option<T> {
        let store = &self.host.inner.store;
        let give_up = Instant::now() + Duration::from_millis(self.host.inner.limits.ttl_ms);
        let mut wait = Duration::from_millis(50);
        loop {
            match step(store).await {
                Ok(done) => return Some(done),
                Err(_) if Instant::now() + wait < give_up => {
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
                Err(_) => {
                    tracing::warn!(task = %self.task_id, "the task store stayed out of reach");
                    return None;
                }
            }
        }
    }

    /// One round of the request `body`, run as the task's work: the reply's bytes, in a
    /// vector of their own size (a task parked on input keeps its reply, not the round's
    /// buffer, which goes back to the host's pool).
    async fn round(&self, body: &[u8]) -> Vec<u8> {
        let server = &*self.server;
        let buffers = &self.host.inner.buffers;
        let mut out = buffers.take();
        let round = Round {
            now: unix_seconds(),
            principal: self
                .principal
                .as_deref()
                .map_or(Principal::Anonymous, Principal::Id),
        };
        let len = match server.accept(body, round, &mut out) {
            Ok(Accepted::Call(mut call)) => {
                call.enter_task();
                let mut runner = AppRunner {
                    app: server.app(),
                    notifier: None,
                };
                let driven = server.drive_call(call, &mut out, &mut runner);
                match self.context.clone().scope(driven).await {
                    Some(Ok(Handled::Reply(len))) => len,
                    _ => 0,
                }
            }
            Ok(Accepted::Replied(len)) => len,
            _ => 0,
        };
        let reply = out.get(..len).unwrap_or_default().to_vec();
        buffers.give(out);
        reply
    }
}

/// Forgets a task's work when dropped, its running slot given back first: once the work is
/// gone from [`TaskHost::running_work`], a new task can start.
pub(super) struct Ending {
    pub(super) host: TaskHost,
    pub(super) task_id: Arc<str>,
    pub(super) slot: Option<OwnedSemaphorePermit>,
}

impl Drop for Ending {
    fn drop(&mut self) {
        drop(self.slot.take());
        self.host.ended(&self.task_id);
    }
}

/// What a round's reply says: finished (a result, a JSON-RPC error) or asking for input.
fn read_reply(reply: &[u8]) -> Result<Came, &'static str> {
    if reply.is_empty() {
        return Err("the task's work gave no reply (it does not fit, or it became a task again)");
    }
    let mut reply: Value = serde_json::from_slice(reply).map_err(|_| "the reply is not JSON")?;
    if let Some(error) = reply.get("error") {
        return Ok(Came::Finished(Status::Failed, error.to_string()));
    }
    let Some(result) = reply.get_mut("result").and_then(Value::as_object_mut) else {
        return Err("the reply has neither result nor error");
    };
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        let requests = match result.remove("inputRequests") {
            Some(Value::Object(requests)) => Some(requests),
            _ => None,
        };
        return Ok(Came::Input(requests, result.remove("requestState")));
    }
    Ok(Came::Finished(
        Status::Completed,
        Value::Object(std::mem::take(result)).to_string(),
    ))
}

/// A `failed` outcome with a -32603 error saying `why`.
fn failed(why: &str) -> (Status, String) {
    let error = serde_json::json!({"code": -32603, "message": why});
    (Status::Failed, error.to_string())
}
