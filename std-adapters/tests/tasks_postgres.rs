//! Tasks in PostgreSQL (feature `postgres`), on a database cluster the test makes: two
//! servers share one database, so a task created on one is seen, answered and cancelled
//! through the other; a task whose server stopped ends `failed` within its lease; the
//! bounds hold across servers; two finishes of one task never both win; a database outage
//! is a clear error, and the servers recover when it ends, without a restart; the schema is
//! migrated once; the password is never logged.

mod http_client;
mod postgres;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use http_client::{PATIENCE, serve_service, tasks};
use postgres::TempPostgres;
use serde_json::{Value, json};
use snodo_core::mrtr::{Elicitation, Response};
use snodo_core::server::{
    Config, Done, Error, Registry, Server, TaskSupport, Tool, ToolCall, ToolReply,
};
use snodo_core::tasks::{Status, TaskPhase};
use snodo_std::AsyncHandler;
use snodo_std::http::ops::Metrics;
use snodo_std::http::{HttpConfig, McpService};
use snodo_std::tasks::{
    PostgresConfig, PostgresTaskStore, TaskContext, TaskHost, TaskLimits, TaskRecord, TaskStore,
};
use tokio::sync::Notify;

/// Every log line of this test binary, to look for the password in.
fn logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: OnceLock<&'static Mutex<Vec<u8>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs: &'static Mutex<Vec<u8>> = Box::leak(Box::new(Mutex::new(Vec::new())));
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(move || LogWriter(logs))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the first subscriber");
        logs
    })
}

struct LogWriter(&'static Mutex<Vec<u8>>);

impl Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("not poisoned")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct App {
    /// `hold` has started as a task's work.
    holding: Arc<Notify>,
    /// `hold` saw its cancellation.
    saw_cancel: Arc<Notify>,
}

const CONFIRM: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("ask").task_support(TaskSupport::Required),
    Tool::new("hold").task_support(TaskSupport::Required),
];

impl Registry for App {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
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
        assert_eq!(call.task_phase(), TaskPhase::Running);
        match call.name() {
            "hold" => {
                let task = TaskContext::current().expect("runs as a task");
                self.holding.notify_one();
                task.cancelled().await;
                self.saw_cancel.notify_one();
                Ok(reply.text("stopped"))
            }
            _ => {
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
        }
    }
}

/// One server of the cluster: its address, its host and what its tools signal.
struct Node {
    addr: SocketAddr,
    host: TaskHost,
    metrics: Metrics,
    holding: Arc<Notify>,
    saw_cancel: Arc<Notify>,
}

fn limits() -> TaskLimits {
    TaskLimits {
        cancel_grace_ms: 60_000,
        ..TaskLimits::default()
    }
}

async fn store(url: &str, node: &str, limits: &TaskLimits) -> Arc<PostgresTaskStore> {
    let config = PostgresConfig::new(url)
        .with_node(node)
        .with_lease_ms(900)
        .with_timeout_ms(1_000);
    let store = PostgresTaskStore::connect(config, limits).await;
    Arc::new(store.expect("the store connects"))
}

/// A server named `name` keeping its tasks in `pg`, the caller named by `x-user`.
async fn node(pg: &TempPostgres, name: &str, limits: TaskLimits) -> Node {
    node_at(&pg.url(), name, limits).await
}

/// A server named `name` keeping its tasks in the database at `url`.
async fn node_at(url: &str, name: &str, limits: TaskLimits) -> Node {
    let holding = Arc::new(Notify::new());
    let saw_cancel = Arc::new(Notify::new());
    let app = App {
        holding: Arc::clone(&holding),
        saw_cancel: Arc::clone(&saw_cancel),
    };
    let server = Server::new(Config::new("tasks", "1"), app).expect("valid definitions");
    let host = TaskHost::new(store(url, name, &limits).await, limits);
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    let metrics = Metrics::new();
    let service = McpService::new(Arc::new(server), config)
        .with_metrics(metrics.clone())
        .with_tasks(host.clone())
        .with_principal(|parts| {
            let user = parts.headers.get("x-user")?;
            user.to_str().ok().map(str::to_owned)
        });
    let running = serve_service(service).await;
    Node {
        addr: running.addr,
        host,
        metrics,
        holding,
        saw_cancel,
    }
}

impl Node {
    async fn send(&self, user: &str, method: &str, params: Value) -> Value {
        tasks::send_as(self.addr, user, method, params).await
    }

    async fn create(&self, user: &str, tool: &str) -> String {
        tasks::created(&self.send(user, "tools/call", json!({"name": tool})).await)
    }

    /// Creates a `hold` task as `user` and waits until its work runs here: its id.
    async fn hold(&self, user: &str) -> String {
        let holding = self.holding.notified();
        let task = self.create(user, "hold").await;
        tokio::time::timeout(PATIENCE, holding)
            .await
            .expect("the work runs on this server");
        task
    }

    async fn get(&self, user: &str, task_id: &str) -> Value {
        tasks::get(self.addr, user, task_id).await
    }

    async fn until(&self, user: &str, task_id: &str, status: &str) -> Value {
        tasks::until(self.addr, user, task_id, status).await
    }

    /// Waits (within [`PATIENCE`]) until the metrics show the line `line`.
    async fn metric_shows(&self, line: &str) {
        let seen = async {
            while !self.metrics.encode().lines().any(|l| l == line) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(PATIENCE, seen)
            .await
            .unwrap_or_else(|_| panic!("no `{line}` in the metrics:\n{}", self.metrics.encode()));
    }

    /// Waits (within [`PATIENCE`]) until the host reports its store `reachable` or not.
    async fn reachable_becomes(&self, reachable: bool) {
        let seen = async {
            while self.host.store_reachable() != reachable {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(PATIENCE, seen)
            .await
            .unwrap_or_else(|_| panic!("the store never became reachable: {reachable}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_created_on_one_server_is_answered_on_another_and_ends_alike_on_both() {
    logs();
    let pg = TempPostgres::start();
    let (a, b) = (
        node(&pg, "a", limits()).await,
        node(&pg, "b", limits()).await,
    );
    let task = a.create("alice", "ask").await;
    let parked = b.until("alice", &task, "input_required").await;
    let requests = parked["result"]["inputRequests"]
        .as_object()
        .expect("input requests");
    let key = requests.keys().next().expect("one request").clone();
    // Another caller sees nothing on either server.
    assert_eq!(b.get("bob", &task).await["error"]["code"], -32602);
    let update = json!({"taskId": task, "inputResponses": {key: {"action": "accept", "content": {"ok": true}}}});
    let acked = b.send("alice", "tasks/update", update).await;
    assert_eq!(acked["result"]["resultType"], "complete", "{acked}");
    // The work on `a` hears of the answer given to `b` and finishes.
    let done = a.until("alice", &task, "completed").await;
    assert_eq!(done["result"]["result"]["content"][0]["text"], "went ahead");
    let seen = b.get("alice", &task).await;
    assert_eq!(
        seen["result"], done["result"],
        "both servers report it alike"
    );
    // Both count the cluster's tasks; `a` timed its store's creation.
    a.metric_shows(r#"mcp_tasks{status="completed"} 1"#).await;
    b.metric_shows(r#"mcp_tasks{status="completed"} 1"#).await;
    b.metric_shows(r#"mcp_tasks{status="working"} 0"#).await;
    a.metric_shows(r#"mcp_task_store_duration_seconds_count{operation="create"} 1"#)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_on_another_server_reaches_the_running_work() {
    logs();
    let pg = TempPostgres::start();
    let (a, b) = (
        node(&pg, "a", limits()).await,
        node(&pg, "b", limits()).await,
    );
    let task = a.hold("alice").await;
    let saw = a.saw_cancel.notified();
    let acked = b
        .send("alice", "tasks/cancel", json!({"taskId": task}))
        .await;
    assert_eq!(acked["result"]["resultType"], "complete", "{acked}");
    tokio::time::timeout(PATIENCE, saw)
        .await
        .expect("the work on a sees the cancel made on b");
    assert_eq!(a.get("alice", &task).await["result"]["status"], "cancelled");
    let idle = async {
        while a.host.running_work() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(PATIENCE, idle)
        .await
        .expect("its work ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_stopped_ends_failed_within_its_lease() {
    logs();
    let pg = TempPostgres::start();
    // `a` runs in a runtime of its own, which the test ends as a process would end.
    let (runtime, a) = {
        let url = pg.url();
        let apart = move || {
            let runtime = tokio::runtime::Runtime::new().expect("a runtime");
            let a = runtime.block_on(node_at(&url, "a", limits()));
            (runtime, a)
        };
        std::thread::spawn(apart).join().expect("a starts")
    };
    let b = node(&pg, "b", limits()).await;
    let task = a.hold("alice").await;
    // Everything of `a` stops at once: its work, its listener, the upkeep renewing the lease.
    runtime.shutdown_background();
    let failed = b.until("alice", &task, "failed").await;
    assert_eq!(failed["result"]["error"]["code"], -32603, "{failed}");
    assert_eq!(
        failed["result"]["error"]["message"],
        "the server running this task stopped"
    );
    b.metric_shows("mcp_task_lease_expiries_total 1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bounds_hold_across_servers() {
    logs();
    let pg = TempPostgres::start();
    let bounded = TaskLimits {
        max_tasks: 3,
        max_per_principal: 2,
        ..limits()
    };
    let (a, b) = (node(&pg, "a", bounded).await, node(&pg, "b", bounded).await);
    a.create("alice", "ask").await;
    b.create("alice", "ask").await;
    let third = a.send("alice", "tools/call", json!({"name": "ask"})).await;
    assert_eq!(
        third["error"]["message"], "This caller holds too many tasks",
        "{third}"
    );
    b.create("bob", "ask").await;
    let fourth = a.send("carol", "tools/call", json!({"name": "ask"})).await;
    assert_eq!(
        fourth["error"]["message"], "The server holds too many tasks",
        "{fourth}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_finishes_racing_on_one_task_one_wins() {
    logs();
    let pg = TempPostgres::start();
    let (one, two) = (
        store(&pg.url(), "one", &limits()).await,
        store(&pg.url(), "two", &limits()).await,
    );
    for round in 0..20 {
        let task_id = format!("{round:032x}");
        let now = 1_000;
        let record = TaskRecord {
            task_id: task_id.clone(),
            principal: None,
            status: Status::Working,
            status_message: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms: u64::MAX / 4,
            poll_interval_ms: 500,
            payload: None,
            pending: Vec::new(),
            answers: Vec::new(),
            version: 0,
        };
        one.create(record).await.expect("created");
        let (first, second) = tokio::join!(
            one.finish(&task_id, Status::Completed, "{}".into(), None, now + 1),
            two.finish(&task_id, Status::Failed, "{}".into(), None, now + 1),
        );
        let wins = [first.expect("answered"), second.expect("answered")];
        assert_eq!(
            wins.iter().filter(|w| **w).count(),
            1,
            "round {round}: {wins:?}"
        );
        let task = two.get(&task_id, None, now + 2).await.expect("answered");
        let status = task.expect("kept").status;
        assert_eq!(
            status == Status::Completed,
            wins[0],
            "the winner's status is kept"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_is_a_clear_error_and_the_servers_recover_without_a_restart() {
    logs();
    let pg = TempPostgres::start();
    let a = node(&pg, "a", limits()).await;
    let task = a.create("alice", "ask").await;
    a.until("alice", &task, "input_required").await;
    pg.stop();
    let answered = tokio::time::timeout(PATIENCE, a.get("alice", &task))
        .await
        .expect("answered within the store's timeout, not hung");
    assert_eq!(answered["error"]["code"], -32603, "{answered}");
    assert_eq!(
        answered["error"]["message"],
        "The task store is unavailable; retry later"
    );
    // Its readiness follows (the host's upkeep asks the store at most every second).
    a.reachable_becomes(false).await;
    pg.start_again();
    a.reachable_becomes(true).await;
    // The pool connects again on its own: the task is there, as it was.
    let back = a.until("alice", &task, "input_required").await;
    assert!(back["result"]["inputRequests"].is_object(), "{back}");
    let logged = String::from_utf8_lossy(&logs().lock().expect("not poisoned")).into_owned();
    assert!(logged.contains("out of reach"), "the outage is logged");
    assert!(
        !logged.contains("never-logged"),
        "the password stays out of the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schema_is_made_once_whoever_connects_first() {
    logs();
    let pg = TempPostgres::start();
    let limits = limits();
    let (one, two) = tokio::join!(
        PostgresTaskStore::connect(PostgresConfig::new(pg.url()), &limits),
        PostgresTaskStore::connect(PostgresConfig::new(pg.url()), &limits),
    );
    let (one, _two) = (one.expect("connects"), two.expect("connects"));
    assert!(one.healthy().await);
    let again = PostgresTaskStore::connect(PostgresConfig::new(pg.url()), &limits).await;
    assert!(
        again
            .expect("connects to a migrated database")
            .healthy()
            .await
    );
    assert_eq!(pg.query("SELECT count(*) FROM snodo_migrations"), "1");
    assert_eq!(pg.query("SELECT count(*) FROM snodo_tasks"), "0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draining_server_ends_the_tasks_it_still_runs_after_its_grace() {
    logs();
    let pg = TempPostgres::start();
    let (a, b) = (
        node(&pg, "a", limits()).await,
        node(&pg, "b", limits()).await,
    );
    let task = a.hold("alice").await;
    // `hold` never ends on its own: the grace runs out, and the drain itself ends it (its
    // lease, renewed by a's upkeep all along, has not run out).
    let ended = a.host.wind_down(Duration::from_millis(200)).await;
    assert_eq!(ended, 1);
    assert_eq!(a.host.running_work(), 0);
    let failed = b.get("alice", &task).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert_eq!(
        failed["result"]["error"]["message"],
        "the server running this task stopped"
    );
}
