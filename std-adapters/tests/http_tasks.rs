//! Tasks (`io.modelcontextprotocol/tasks`) over Streamable HTTP, as a hostile or careless
//! client meets them: tasks kept per principal, ids that reveal nothing, input parked and
//! answered, status messages, cancellation seen by the work and enforced after its grace,
//! cancellation racing completion, and every bound holding under a flood.

mod http_client;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_client::tasks::{created, declaring, send_as};
use http_client::{PATIENCE, first_text, message, open, post, send, serve_service, tasks, with};
use serde_json::{Value, json};
use snodo_core::mrtr::{Elicitation, Response};
use snodo_core::server::{
    Config, Done, Error, Registry, Server, TaskSupport, Tool, ToolCall, ToolReply,
};
use snodo_core::tasks::TaskPhase;
use snodo_std::AsyncHandler;
use snodo_std::http::{HttpConfig, McpService};
use snodo_std::tasks::{MemoryTaskStore, TaskContext, TaskHost, TaskLimits};
use tokio::sync::Notify;

/// What the tests control in the tools.
#[derive(Clone, Default)]
struct Probes {
    /// `job`, running as a task, finishes when this is notified.
    gate: Arc<Notify>,
    /// `job`'s task work signals here when its future is dropped before finishing.
    dropped: Arc<Notify>,
    /// `polite` has set its status message and waits to be cancelled.
    waiting: Arc<Notify>,
    /// `polite` saw its cancellation.
    saw_cancel: Arc<Notify>,
    /// `racer`, running as a task, finishes when its task's gate is notified.
    gates: Arc<std::sync::Mutex<std::collections::HashMap<String, Arc<Notify>>>>,
}

impl Probes {
    /// The gate of task `task_id`'s `racer`.
    fn gate_of(&self, task_id: &str) -> Arc<Notify> {
        let mut gates = self.gates.lock().expect("not poisoned");
        Arc::clone(gates.entry(task_id.to_owned()).or_default())
    }
}

struct App {
    probes: Probes,
}

const CONFIRM: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("job").task_support(TaskSupport::Optional),
    Tool::new("ask").task_support(TaskSupport::Optional),
    Tool::new("must").task_support(TaskSupport::Required),
    Tool::new("polite").task_support(TaskSupport::Required),
    Tool::new("broken").task_support(TaskSupport::Required),
    Tool::new("racer").task_support(TaskSupport::Required),
];

impl Registry for App {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

/// Notifies when dropped unfinished.
struct OnDrop(Option<Arc<Notify>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(notify) = self.0.take() {
            notify.notify_one();
        }
    }
}

impl AsyncHandler for App {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        if let Some(offer) = call.task_phase().offer() {
            return Ok(reply.into_task(offer));
        }
        let in_task = call.task_phase() == TaskPhase::Running;
        match call.name() {
            "job" | "must" if in_task => {
                let mut guard = OnDrop(Some(Arc::clone(&self.probes.dropped)));
                self.probes.gate.notified().await;
                guard.0 = None;
                Ok(reply.text("done as a task"))
            }
            "job" => Ok(reply.text("done in the request")),
            "polite" => {
                let task = TaskContext::current().expect("runs as a task");
                assert!(task.status("halfway there").await);
                self.probes.waiting.notify_one();
                task.cancelled().await;
                assert!(task.is_cancelled());
                // Cancelled: neither a new status nor this answer is kept.
                assert!(!task.status("stopping").await);
                self.probes.saw_cancel.notify_one();
                Ok(reply.text("stopped politely"))
            }
            "racer" => {
                let task = TaskContext::current().expect("runs as a task");
                self.probes.gate_of(task.task_id()).notified().await;
                Ok(reply.text("done as a task"))
            }
            "broken" => Err(Error::invalid_params("The report's source is gone")),
            "ask" => {
                let ask = Elicitation::form("Go ahead?", CONFIRM)
                    .map_err(|_| Error::internal("bad form"))?;
                Ok(match call.response("go", &ask)? {
                    Response::Answered(a) => {
                        let ok = a.get("ok").and_then(|v| v.as_bool()) == Some(true);
                        reply.text(if ok { "went ahead" } else { "stopped" })
                    }
                    Response::Missing => reply.input_required().request("go", ask).done(),
                })
            }
            _ => Err(Error::invalid_params("Unknown tool")),
        }
    }
}

struct Endpoint {
    addr: SocketAddr,
    probes: Probes,
    store: Arc<MemoryTaskStore>,
    host: TaskHost,
}

/// Serves [`App`] with tasks in a store bounded by `limits`, the caller named by `x-user`.
async fn endpoint(limits: TaskLimits) -> Endpoint {
    let probes = Probes::default();
    let app = App {
        probes: probes.clone(),
    };
    let server = Server::new(Config::new("tasks", "1"), app).expect("valid definitions");
    let store = Arc::new(MemoryTaskStore::new(
        limits.max_tasks,
        limits.max_per_principal,
    ));
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    let host = TaskHost::new(store.clone(), limits);
    let service = McpService::new(Arc::new(server), config)
        .with_tasks(host.clone())
        .with_principal(|parts| {
            let user = parts.headers.get("x-user")?;
            user.to_str().ok().map(str::to_owned)
        });
    let running = serve_service(service).await;
    Endpoint {
        addr: running.addr,
        probes,
        store,
        host,
    }
}

impl Endpoint {
    /// Sends `method` with `params` (and the declaring `_meta`) as `user`: the response.
    async fn send(&self, user: &str, method: &str, params: Value) -> Value {
        send_as(self.addr, user, method, params).await
    }

    async fn call(&self, user: &str, tool: &str) -> Value {
        self.send(user, "tools/call", json!({"name": tool})).await
    }

    async fn get(&self, user: &str, task_id: &str) -> Value {
        tasks::get(self.addr, user, task_id).await
    }

    /// Polls `task_id` until its status is `status` (within [`PATIENCE`]).
    async fn until(&self, user: &str, task_id: &str, status: &str) -> Value {
        tasks::until(self.addr, user, task_id, status).await
    }
}

impl Endpoint {
    /// Waits (within [`PATIENCE`]) until no task's work runs in the server.
    async fn no_work_left(&self) {
        let idle = async {
            while self.host.running_work() > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(PATIENCE, idle)
            .await
            .expect("every task's work ended");
    }
}

fn is_unknown_task(response: &Value) {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert_eq!(response["error"]["message"], "Unknown task", "{response}");
}

#[tokio::test]
async fn a_task_is_seen_only_by_its_principal_and_an_id_reveals_nothing() {
    let at = endpoint(TaskLimits::default()).await;
    let task = created(&at.call("alice", "job").await);
    assert_eq!(task.len(), 32, "128 random bits as hex: {task}");
    assert_eq!(at.get("alice", &task).await["result"]["status"], "working");
    // Another principal, a forged id and a removed method get the same nothing.
    is_unknown_task(&at.get("bob", &task).await);
    is_unknown_task(&at.get("alice", "0123456789abcdef0123456789abcdef").await);
    is_unknown_task(
        &at.send("bob", "tasks/cancel", json!({"taskId": task}))
            .await,
    );
    assert_eq!(at.get("alice", &task).await["result"]["status"], "working");
    at.probes.gate.notify_one();
    let done = at.until("alice", &task, "completed").await;
    assert_eq!(
        first_text(&json!({"result": done["result"]["result"]})),
        "done as a task"
    );
    assert_eq!(done["result"]["resultType"], "complete");
    assert!(done["result"].get("requestState").is_none(), "{done}");
}

#[tokio::test]
async fn input_is_asked_on_tasks_get_and_answered_by_tasks_update() {
    let limits = TaskLimits {
        max_input_bytes: 256,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    let task = created(&at.call("alice", "ask").await);
    let parked = at.until("alice", &task, "input_required").await;
    let requests = parked["result"]["inputRequests"]
        .as_object()
        .expect("a map");
    let keys: Vec<&String> = requests.keys().collect();
    assert_eq!(keys.len(), 1, "{parked}");
    let key = keys[0].clone();
    assert_eq!(requests[&key]["method"], "elicitation/create");
    let update = |responses: Value| {
        at.send(
            "alice",
            "tasks/update",
            json!({"taskId": task, "inputResponses": responses}),
        )
    };
    // Too large to keep: refused, and the task still waits.
    let huge = json!({ key.clone(): {"action": "accept", "content": {"ok": true, "pad": "x".repeat(300)}} });
    assert_eq!(update(huge).await["error"]["code"], -32602);
    // Unknown keys are acknowledged and ignored.
    let ack = update(json!({"not-asked": {"action": "decline"}})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert_eq!(
        at.get("alice", &task).await["result"]["status"],
        "input_required"
    );
    // Another principal's answer does not reach the task.
    let foreign = at
        .send(
            "bob",
            "tasks/update",
            json!({"taskId": task, "inputResponses": {key.clone(): {"action": "accept", "content": {"ok": false}}}}),
        )
        .await;
    is_unknown_task(&foreign);
    let answer = json!({ key.clone(): {"action": "accept", "content": {"ok": true}} });
    assert_eq!(
        update(answer.clone()).await["result"]["resultType"],
        "complete"
    );
    let done = at.until("alice", &task, "completed").await;
    assert_eq!(done["result"]["result"]["content"][0]["text"], "went ahead");
    // Answering a finished task again changes nothing.
    assert_eq!(update(answer).await["result"]["resultType"], "complete");
    assert_eq!(
        at.get("alice", &task).await["result"]["status"],
        "completed"
    );
}

#[tokio::test]
async fn cancelling_drops_work_that_ignores_it_when_the_grace_ends_and_is_acknowledged_again() {
    let limits = TaskLimits {
        cancel_grace_ms: 20,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    let task = created(&at.call("alice", "job").await);
    let cancel = || at.send("alice", "tasks/cancel", json!({"taskId": task}));
    let dropped = at.probes.dropped.notified();
    assert_eq!(cancel().await["result"], json!({"resultType": "complete"}));
    tokio::time::timeout(PATIENCE, dropped)
        .await
        .expect("the work stopped");
    assert_eq!(
        at.get("alice", &task).await["result"]["status"],
        "cancelled"
    );
    assert_eq!(cancel().await["result"], json!({"resultType": "complete"}));
    // Released after the cancellation, the gate finishes no one: still cancelled.
    at.probes.gate.notify_one();
    let got = at.get("alice", &task).await;
    assert_eq!(got["result"]["status"], "cancelled");
    assert!(got["result"].get("result").is_none(), "{got}");
    at.no_work_left().await;
}

#[tokio::test]
async fn a_task_tells_its_status_and_sees_its_cancellation() {
    // A grace far longer than the test: the work ends because it saw the cancellation.
    let limits = TaskLimits {
        cancel_grace_ms: 3_600_000,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    let waiting = at.probes.waiting.notified();
    let task = created(&at.call("alice", "polite").await);
    tokio::time::timeout(PATIENCE, waiting)
        .await
        .expect("the work set its status");
    let got = at.get("alice", &task).await;
    assert_eq!(got["result"]["status"], "working", "{got}");
    assert_eq!(got["result"]["statusMessage"], "halfway there", "{got}");
    let saw = at.probes.saw_cancel.notified();
    let ack = at
        .send("alice", "tasks/cancel", json!({"taskId": task}))
        .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    tokio::time::timeout(PATIENCE, saw)
        .await
        .expect("the work saw the cancellation");
    at.no_work_left().await;
    let got = at.get("alice", &task).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert!(got["result"].get("result").is_none(), "{got}");
}

#[tokio::test]
async fn a_failed_task_says_why_in_its_error_and_status_message() {
    let at = endpoint(TaskLimits::default()).await;
    let task = created(&at.call("alice", "broken").await);
    let failed = at.until("alice", &task, "failed").await;
    assert_eq!(failed["result"]["error"]["code"], -32602, "{failed}");
    assert_eq!(
        failed["result"]["statusMessage"], "The report's source is gone",
        "{failed}"
    );
    assert!(failed["result"].get("result").is_none(), "{failed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_before_during_and_after_completion_ends_each_task_once() {
    let limits = TaskLimits {
        cancel_grace_ms: 0,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    let mut tasks = Vec::new();
    for _ in 0..30 {
        tasks.push(created(&at.call("alice", "racer").await));
    }
    let cancel = |task: &String| send_as(at.addr, "alice", "tasks/cancel", json!({"taskId": task}));
    let mut races = tokio::task::JoinSet::new();
    for (n, task) in tasks.iter().enumerate() {
        let gate = at.probes.gate_of(task);
        match n % 3 {
            // Cancelled before the work may finish.
            0 => {
                let ack = cancel(task).await;
                assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
                gate.notify_one();
            }
            // Cancelled as the work finishes: either may win.
            1 => {
                races.spawn(cancel(task));
                gate.notify_one();
            }
            // Cancelled after the work finished: still acknowledged, still completed.
            _ => {
                gate.notify_one();
                at.until("alice", task, "completed").await;
                let ack = cancel(task).await;
                assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
            }
        }
    }
    while let Some(ack) = races.join_next().await {
        let ack = ack.expect("the cancellation was sent");
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    }
    at.no_work_left().await;
    let mut raced = (0, 0);
    for (n, task) in tasks.iter().enumerate() {
        let first = at.get("alice", task).await;
        let status = first["result"]["status"].as_str().unwrap_or_default();
        match status {
            "completed" => {
                let result = json!({"result": first["result"]["result"]});
                assert_eq!(first_text(&result), "done as a task");
            }
            "cancelled" => assert!(first["result"].get("result").is_none(), "{first}"),
            _ => panic!("task {task} did not end: {first}"),
        }
        match n % 3 {
            0 => assert_eq!(status, "cancelled", "cancelled before it could finish"),
            1 if status == "completed" => raced.0 += 1,
            1 => raced.1 += 1,
            _ => assert_eq!(status, "completed", "finished before the cancellation"),
        }
        // Every later look agrees.
        let again = at.get("alice", task).await;
        assert_eq!(again["result"]["status"], first["result"]["status"]);
    }
    println!(
        "raced: {} completed first, {} cancelled first",
        raced.0, raced.1
    );
}

#[tokio::test]
async fn a_flood_of_tasks_meets_the_bounds_and_loses_no_call() {
    let limits = TaskLimits {
        max_tasks: 4,
        max_per_principal: 2,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    for _ in 0..2 {
        created(&at.call("alice", "job").await);
    }
    // Past alice's bound an optional task tool answers in the request, a required one says
    // why it cannot; other callers still get tasks until the server's bound.
    for _ in 0..5 {
        let answered = at.call("alice", "job").await;
        assert_eq!(first_text(&answered), "done in the request");
        let refused = at.call("alice", "must").await;
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
        assert_eq!(
            refused["error"]["message"],
            "This caller holds too many tasks"
        );
    }
    created(&at.call("bob", "job").await);
    created(&at.call("carol", "must").await);
    let refused = at.call("dave", "must").await;
    assert_eq!(
        refused["error"]["message"],
        "The server holds too many tasks"
    );
    assert_eq!(at.store.len(), 4);
}

#[tokio::test]
async fn a_2025_client_is_offered_no_tasks() {
    let at = endpoint(TaskLimits::default()).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}
    });
    let request = http::Request::post(format!("http://{}/mcp", at.addr))
        .header("host", at.addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(http_body_util::Full::new(bytes::Bytes::from(
            initialize.to_string(),
        )))
        .expect("a request");
    let opened = send(at.addr, request).await;
    let result = if opened.content_type().starts_with("text/event-stream") {
        opened
            .events()
            .into_iter()
            .find(|m| m.get("result").is_some())
    } else {
        Some(opened.json())
    }
    .expect("an initialize result");
    let capabilities = &result["result"]["capabilities"];
    assert!(capabilities.get("extensions").is_none(), "{capabilities}");
    assert!(capabilities.get("tasks").is_none(), "{capabilities}");
}

#[tokio::test]
async fn a_listen_stream_gets_the_changes_of_its_callers_watched_tasks_as_tasks_get_shows_them() {
    let at = endpoint(TaskLimits::default()).await;
    let mine = created(&at.call("alice", "racer").await);
    let theirs = created(&at.call("bob", "racer").await);
    let mut params =
        json!({"notifications": {"taskIds": [mine, theirs, "0123456789abcdef0123456789abcdef"]}});
    params["_meta"] = declaring();
    let listen = message(json!("watch"), "subscriptions/listen", params);
    let request = with(post(at.addr, &listen), "x-user", b"alice");
    let mut stream = open(at.addr, request).await;
    let ack = stream.next_event().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"]["taskIds"][0], mine.as_str());
    // First the watched tasks as they are: only alice's own exists for her.
    let first = stream.next_event().await.expect("the task as it is");
    assert_eq!(first["method"], "notifications/tasks", "{first}");
    assert_eq!(first["params"]["taskId"], mine.as_str());
    assert_eq!(first["params"]["status"], "working");
    assert_eq!(
        first["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "watch"
    );
    // Bob's task finishing is not alice's to see; hers is, with its result.
    at.probes.gate_of(&theirs).notify_one();
    at.until("bob", &theirs, "completed").await;
    at.probes.gate_of(&mine).notify_one();
    let done = stream.next_event().await.expect("the change");
    assert_eq!(done["params"]["taskId"], mine.as_str(), "{done}");
    assert_eq!(done["params"]["status"], "completed");
    let got = at.get("alice", &mine).await;
    let mut expected = got["result"].clone();
    expected.as_object_mut().unwrap().remove("resultType");
    let mut notified = done["params"].clone();
    notified.as_object_mut().unwrap().remove("_meta");
    assert_eq!(
        notified, expected,
        "the notification is what tasks/get answers"
    );
    stream.disconnect();
}

#[tokio::test]
async fn watching_tasks_without_declaring_the_extension_is_refused() {
    let at = endpoint(TaskLimits::default()).await;
    let params = json!({
        "notifications": {"taskIds": ["0123456789abcdef0123456789abcdef"]},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    });
    let listen = message(json!(7), "subscriptions/listen", params);
    let refused = send(at.addr, post(at.addr, &listen)).await.json();
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
}

#[tokio::test]
async fn past_the_running_bound_calls_answer_in_their_request_until_a_task_ends() {
    let limits = TaskLimits {
        max_running: 1,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    let running = created(&at.call("alice", "job").await);
    // Another caller is not held back by alice's bound, but by the server's running one.
    assert_eq!(
        first_text(&at.call("bob", "job").await),
        "done in the request"
    );
    let refused = at.call("bob", "must").await;
    assert_eq!(
        refused["error"]["message"], "The server runs too many tasks; retry later",
        "{refused}"
    );
    at.probes.gate.notify_one();
    at.until("alice", &running, "completed").await;
    at.no_work_left().await;
    created(&at.call("bob", "job").await);
}

/// Our client, as `user`, taking tasks when `tasks`, confirming every form.
fn client_of(at: &Endpoint, user: &'static str, tasks: bool) -> snodo_std::client::Client {
    use snodo_std::client::{Client, ElicitResult, Negotiation};
    Client::builder("tasks-tests", "0.1.0")
        .negotiation(Negotiation::Modern)
        .timeout(Some(PATIENCE))
        .tasks(tasks)
        .http_header(
            http::HeaderName::from_static("x-user"),
            http::HeaderValue::from_static(user),
        )
        .on_form(|_| async { Ok(ElicitResult::accept(json!({"ok": true}))) })
        .http(&format!("http://{}/mcp", at.addr))
        .expect("a client")
}

/// Limits under which our client polls often.
fn polled_often() -> TaskLimits {
    TaskLimits {
        poll_interval_ms: 10,
        cancel_grace_ms: 0,
        ..TaskLimits::default()
    }
}

#[tokio::test]
async fn our_client_follows_a_call_that_became_a_task_to_its_result() {
    let at = endpoint(polled_often()).await;
    let client = client_of(&at, "alice", true);
    // A permit given ahead: the task's work finishes as soon as it runs.
    at.probes.gate.notify_one();
    let done = client
        .call_tool("job", json!({}))
        .await
        .expect("the task's result");
    assert_eq!(first_text(&json!({ "result": done })), "done as a task");
    // Without the extension the same call answers in its request.
    let plain = client_of(&at, "alice", false);
    let done = plain.call_tool("job", json!({})).await.expect("a result");
    assert_eq!(
        first_text(&json!({ "result": done })),
        "done in the request"
    );
}

#[tokio::test]
async fn our_client_answers_a_tasks_input_with_its_handlers() {
    let at = endpoint(polled_often()).await;
    let client = client_of(&at, "alice", true);
    let done = client
        .call_tool("ask", json!({}))
        .await
        .expect("the task's result");
    assert_eq!(first_text(&json!({ "result": done })), "went ahead");
}

#[tokio::test]
async fn our_client_reports_a_failed_task_as_the_servers_error() {
    let at = endpoint(polled_often()).await;
    let client = client_of(&at, "alice", true);
    let failed = client.call_tool("broken", json!({})).await.unwrap_err();
    assert_eq!(failed.code(), Some(-32602), "{failed}");
    assert!(
        failed.to_string().contains("The report's source is gone"),
        "{failed}"
    );
}

#[tokio::test]
async fn dropping_our_clients_call_cancels_its_task() {
    let at = endpoint(polled_often()).await;
    let client = Arc::new(client_of(&at, "alice", true));
    let dropped = at.probes.dropped.notified();
    let calling = Arc::clone(&client);
    let call = tokio::spawn(async move { calling.call_tool("job", json!({})).await });
    // The task exists once its work runs; the call is dropped while it polls.
    let created = async {
        while at.host.running_work() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, created)
        .await
        .expect("the task started");
    call.abort();
    tokio::time::timeout(PATIENCE, dropped)
        .await
        .expect("tasks/cancel reached the server and the work was dropped");
    at.no_work_left().await;
}

#[tokio::test]
async fn a_task_past_its_ttl_is_forgotten_and_its_work_ends() {
    let limits = TaskLimits {
        ttl_ms: 50,
        max_running: 1,
        ..TaskLimits::default()
    };
    let at = endpoint(limits).await;
    // `job` waits for a gate no one opens: only the TTL ends it.
    let task = created(&at.call("alice", "job").await);
    at.no_work_left().await;
    is_unknown_task(&at.get("alice", &task).await);
    // Its running slot is free again.
    created(&at.call("alice", "job").await);
}
