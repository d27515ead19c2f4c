//! A second implementation agrees: a client on `rmcp` (the official Rust SDK, a test-only
//! dependency) drives the `preferences` example's task tool `report` over stdio and
//! Streamable HTTP, with the Tasks extension (`io.modelcontextprotocol/tasks`) as rmcp
//! implements it. The call becomes a task; its question is read from `tasks/get` and
//! answered with `tasks/update`; the task completes with the answer in its result. A second
//! task is cancelled and stays cancelled, and an id the server never made is refused.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use snodo_tests::boundary::example_binary;

/// How long a task may take to reach a status before the test fails.
const PATIENCE: Duration = Duration::from_secs(30);

type Peer = RunningService<RoleClient, ClientConfig>;

/// What the client declares: form elicitation (the report asks one question) and tasks.
fn info() -> ClientConfig {
    let capabilities = ClientCapabilities::builder()
        .enable_elicitation()
        .enable_tasks()
        .build();
    ClientConfig::new(capabilities, Implementation::new("rmcp-tasks-test", "1.0"))
}

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

async fn over_stdio() -> Peer {
    let mut command = tokio::process::Command::new(example_binary());
    command.arg("--stdio").stderr(Stdio::null());
    let transport = TokioChildProcess::new(command).expect("the example starts");
    info()
        .serve_with_lifecycle(transport, modern())
        .await
        .expect("rmcp connects over stdio")
}

/// The example serving HTTP on a free port, and its URL (the process is killed on drop).
struct HttpExample(std::process::Child, String);

impl Drop for HttpExample {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_example() -> HttpExample {
    let mut child = std::process::Command::new(example_binary())
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example starts");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut url)
        .expect("the example prints its URL");
    HttpExample(child, url.trim().to_owned())
}

async fn over_http(url: &str) -> Peer {
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    info()
        .serve_with_lifecycle(transport, modern())
        .await
        .expect("rmcp connects over HTTP")
}

/// Calls `report` on `topic`, each half taking `seconds`: the id of the task it became.
async fn report(peer: &Peer, seconds: u64) -> String {
    let arguments = json!({"topic": "tides", "seconds": seconds});
    let params = CallToolRequestParams::new("report").with_arguments(
        arguments
            .as_object()
            .cloned()
            .expect("arguments are an object"),
    );
    match peer
        .call_tool_once(params)
        .await
        .expect("the call is answered")
    {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("the call did not become a task: {other:?}"),
    }
}

/// Polls `task_id` until `done` accepts its payload (within [`PATIENCE`]).
async fn until<T>(peer: &Peer, task_id: &str, done: impl Fn(&TaskPayload) -> Option<T>) -> T {
    let polled = async {
        loop {
            let got = peer
                .get_task(GetTaskParams::new(task_id))
                .await
                .expect("tasks/get is answered");
            if let Some(found) = done(&got.task.payload) {
                return found;
            }
            let every = got.task.task.poll_interval_ms.unwrap_or(100);
            tokio::time::sleep(Duration::from_millis(every.min(1000))).await;
        }
    };
    tokio::time::timeout(PATIENCE, polled)
        .await
        .unwrap_or_else(|_| panic!("task {task_id} did not get there"))
}

async fn tasks_agree(peer: Peer) {
    // Created, asked, answered, completed.
    let task = report(&peer, 0).await;
    let keys = until(&peer, &task, |payload| match payload {
        TaskPayload::InputRequired { input_requests } => {
            Some(input_requests.keys().cloned().collect::<Vec<_>>())
        }
        _ => None,
    })
    .await;
    assert_eq!(keys.len(), 1, "one question: {keys:?}");
    let answer = json!({"action": "accept", "content": {"detailed": true}});
    let responses = [(keys[0].clone(), answer)].into_iter().collect();
    peer.update_task(UpdateTaskParams::new(&task, responses))
        .await
        .expect("tasks/update is acknowledged");
    let result = until(&peer, &task, |payload| match payload {
        TaskPayload::Completed { result } => Some(Value::Object(result.clone())),
        _ => None,
    })
    .await;
    assert_eq!(
        result["content"][0]["text"],
        "Report on tides: three sources read. Detailed figures included."
    );

    // Cancelled while it works, and cancelled it stays.
    let slow = report(&peer, 30).await;
    peer.cancel_task(CancelTaskParams::new(&slow))
        .await
        .expect("tasks/cancel is acknowledged");
    until(&peer, &slow, |payload| {
        matches!(payload, TaskPayload::Cancelled).then_some(())
    })
    .await;

    // An id the server never made is an error, as is a task of another server.
    let unknown = peer
        .get_task(GetTaskParams::new("0123456789abcdef0123456789abcdef"))
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
    peer.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn an_rmcp_client_drives_the_report_task_over_stdio() {
    tasks_agree(over_stdio().await).await;
}

#[tokio::test]
async fn an_rmcp_client_drives_the_report_task_over_http() {
    let example = http_example();
    tasks_agree(over_http(&example.1).await).await;
}
