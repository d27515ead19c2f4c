//! The Rust client against the `preferences` example, as a process, over stdio
//! (`preferences --stdio`) and over Streamable HTTP (`preferences --http 127.0.0.1:0`): the
//! three-leg preference flow as a tool, a resource and a prompt, the state-only
//! continuation, URL consent, and what happens without a handler, with too few rounds and
//! when a handler fails.
//!
//! `cargo test -p snodo-std` builds the example next to the test binaries.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use snodo_std::client::{
    Client, ClientBuilder, ClientError, ElicitResult, FormRequest, HandlerError, InputKind,
};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

#[path = "http_client/process.rs"]
mod process;

fn example() -> Command {
    let mut command = Command::new(process::example_path("preferences"));
    command
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null())
        .kill_on_drop(true);
    command
}

#[derive(Clone, Copy, Debug)]
enum Transport {
    Stdio,
    Http,
}

/// A client of a freshly started example; the HTTP server process lives as long as it.
struct Connected {
    client: Client,
    _server: Option<Child>,
}

async fn connect(transport: Transport, builder: ClientBuilder) -> Connected {
    match transport {
        Transport::Stdio => {
            let mut command = example();
            command.arg("--stdio");
            Connected {
                client: builder.stdio(command).expect("the example starts"),
                _server: None,
            }
        }
        Transport::Http => {
            let mut command = example();
            command
                .args(["--http", "127.0.0.1:0"])
                .stdout(Stdio::piped());
            let mut server = command.spawn().expect("the example starts");
            let stdout = server.stdout.take().expect("piped");
            let mut url = String::new();
            tokio::time::timeout(
                Duration::from_secs(30),
                BufReader::new(stdout).read_line(&mut url),
            )
            .await
            .expect("the example prints its URL in time")
            .expect("reads the URL");
            let url = url.trim();
            assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
            Connected {
                client: builder.http(url).expect("a valid URL"),
                _server: Some(server),
            }
        }
    }
}

/// Answers the example's forms: color teal, style bold, label mine; records each message.
fn answering(asked: Arc<Mutex<Vec<String>>>) -> ClientBuilder {
    Client::builder("snodo-client-tests", "0.1.0")
        .timeout(Some(Duration::from_secs(30)))
        .on_form(move |form: FormRequest| {
            let asked = Arc::clone(&asked);
            async move {
                asked.lock().unwrap().push(form.message.clone());
                let properties = form.requested_schema["properties"].as_object().unwrap();
                let field = properties.keys().next().unwrap().as_str();
                let value = match field {
                    "color" => "teal",
                    "style" => "bold",
                    _ => "mine",
                };
                Ok(ElicitResult::accept(json!({ field: value })))
            }
        })
        .on_url(|request| async move {
            assert_eq!(request.url, "https://example.com/preferences/preview");
            Ok(ElicitResult::consent())
        })
}

const PREVIEW: &str = r#"{"color":"teal","style":"bold","status":"preview"}"#;

async fn the_preference_flow(transport: Transport) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let Connected { client, _server } = connect(transport, answering(Arc::clone(&asked))).await;

    let tool = client
        .call_tool("preference_preview", json!({"subject": "client"}))
        .await
        .expect("the tool flow completes");
    assert_eq!(tool["resultType"], "complete");
    assert_eq!(tool["content"][0]["text"], PREVIEW);
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "Choose a color for a read-only preview",
            "Choose a style for a read-only preview"
        ]
    );

    let resource = client
        .read_resource("preview://preferences")
        .await
        .expect("the resource flow completes");
    assert_eq!(resource["contents"][0]["uri"], "preview://preferences");
    assert_eq!(resource["contents"][0]["text"], PREVIEW);

    let prompt = client
        .get_prompt("preference_prompt", json!({"subject": "client"}))
        .await
        .expect("the prompt flow completes");
    assert_eq!(prompt["messages"][0]["content"]["text"], PREVIEW);
    assert_eq!(asked.lock().unwrap().len(), 6, "two questions per flow");

    // A state-only result is retried at once; the next one carries no state.
    let reset = client
        .call_tool("reset_preview", json!({}))
        .await
        .expect("reset completes");
    assert_eq!(
        reset["content"][0]["text"],
        r#"{"status":"accept","stateDiscarded":true}"#
    );
    assert_eq!(asked.lock().unwrap().last().unwrap(), "Name this preview");

    // URL consent is consent, not completion.
    let url = client
        .call_tool("url_preview", json!({}))
        .await
        .expect("URL consent completes");
    assert_eq!(
        url["content"][0]["text"],
        r#"{"consent":"accept","externalStatus":"pending"}"#
    );
    client.close().await;
}

#[tokio::test]
async fn the_preference_flow_over_stdio() {
    the_preference_flow(Transport::Stdio).await;
}

#[tokio::test]
async fn the_preference_flow_over_http() {
    the_preference_flow(Transport::Http).await;
}

async fn plain_operations(transport: Transport) {
    let Connected { client, _server } = connect(
        transport,
        Client::builder("snodo-client-tests", "0.1.0").title("Snodo client tests"),
    )
    .await;
    let discovered = client.discover().await.expect("discover");
    assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]));
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"preference_preview"), "{names:?}");
    let echoed = client
        .call_tool("echo", json!({"text": "pipé \"quoted\""}))
        .await
        .expect("echo");
    assert_eq!(echoed["content"][0]["text"], "pipé \"quoted\"");
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3.5}))
        .await
        .expect("add");
    assert_eq!(sum["structuredContent"]["sum"], 5.5);
    assert!(!client.list_resources().await.expect("resources").is_empty());
    assert!(!client.list_prompts().await.expect("prompts").is_empty());
    let templates = client.list_resource_templates().await.expect("templates");
    assert_eq!(templates[0]["uriTemplate"], "greeting://{name}");
    let greeting = client
        .read_resource("greeting://Ada")
        .await
        .expect("a templated resource");
    assert_eq!(greeting["contents"][0]["text"], "Hello, Ada!");
    let completion = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greeting_prompt"}, "argument": {"name": "name", "value": "a"}}),
        )
        .await
        .expect("completion/complete");
    assert_eq!(completion["completion"]["values"], json!(["Ada", "Alan"]));
    match client.call_tool("no_such_tool", json!({})).await {
        Err(ClientError::Server { code: -32602, .. }) => {}
        other => panic!("{other:?}"),
    }
    match client.request("initialize", Value::Null).await {
        Err(e) => assert_eq!(e.code(), Some(-32601), "{e}"),
        other => panic!("{other:?}"),
    }
    client.close().await;
}

#[tokio::test]
async fn plain_operations_over_stdio() {
    plain_operations(Transport::Stdio).await;
}

#[tokio::test]
async fn plain_operations_over_http() {
    plain_operations(Transport::Http).await;
}

async fn failures(transport: Transport) {
    // Without a form handler the client declares no elicitation, and the server says so.
    let Connected { client, _server } =
        connect(transport, Client::builder("snodo-client-tests", "0.1.0")).await;
    assert!(client.capabilities().is_empty());
    match client
        .call_tool("preference_preview", json!({"subject": "x"}))
        .await
    {
        Err(ClientError::Server {
            code: -32021, data, ..
        }) => {
            assert_eq!(
                data.unwrap()["requiredCapabilities"]["elicitation"]["form"],
                json!({})
            );
        }
        other => panic!("{other:?}"),
    }
    client.close().await;

    // Too few rounds for a three-leg flow.
    let asked = Arc::new(Mutex::new(Vec::new()));
    let Connected { client, _server } = connect(transport, answering(asked).max_rounds(2)).await;
    match client
        .call_tool("preference_preview", json!({"subject": "x"}))
        .await
    {
        Err(ClientError::ExhaustedRounds { rounds: 2 }) => {}
        other => panic!("{other:?}"),
    }
    client.close().await;

    // A handler that fails stops the operation.
    let failing = Client::builder("snodo-client-tests", "0.1.0")
        .on_form(|_| async { Err(HandlerError::new("the user closed the window")) });
    let Connected { client, _server } = connect(transport, failing).await;
    match client
        .call_tool("preference_preview", json!({"subject": "x"}))
        .await
    {
        Err(ClientError::Handler {
            kind: InputKind::Form,
            message,
        }) => {
            assert_eq!(message, "the user closed the window");
        }
        other => panic!("{other:?}"),
    }
    // Declining is an answer, not a failure.
    client.close().await;
    let declining = Client::builder("snodo-client-tests", "0.1.0")
        .on_form(|_| async { Ok(ElicitResult::decline()) });
    let Connected { client, _server } = connect(transport, declining).await;
    let declined = client
        .call_tool("preference_preview", json!({"subject": "x"}))
        .await
        .expect("a declined flow completes");
    assert_eq!(declined["content"][0]["text"], r#"{"status":"decline"}"#);
    client.close().await;
}

#[tokio::test]
async fn failures_over_stdio() {
    failures(Transport::Stdio).await;
}

#[tokio::test]
async fn failures_over_http() {
    failures(Transport::Http).await;
}

#[tokio::test]
async fn concurrent_calls_share_one_stdio_server() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let Connected { client, _server } = connect(Transport::Stdio, answering(asked)).await;
    let client = Arc::new(client);
    let calls: Vec<_> = (0..8)
        .map(|i| {
            let client = Arc::clone(&client);
            tokio::spawn(async move {
                if i % 2 == 0 {
                    client
                        .call_tool("preference_preview", json!({"subject": format!("s{i}")}))
                        .await
                } else {
                    client
                        .call_tool("echo", json!({"text": format!("t{i}")}))
                        .await
                }
            })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let result = call.await.expect("joins").expect("completes");
        let expected = if i % 2 == 0 {
            PREVIEW.to_owned()
        } else {
            format!("t{i}")
        };
        assert_eq!(result["content"][0]["text"], expected);
    }
}

#[tokio::test]
async fn a_server_that_exits_closes_the_client() {
    let mut command = Command::new("sh");
    command.args(["-c", "read line; exit 0"]);
    let client = Client::builder("snodo-client-tests", "0.1.0")
        .stdio(command)
        .expect("sh starts");
    match client.discover().await {
        Err(ClientError::Closed) => {}
        other => panic!("{other:?}"),
    }
    let missing = Client::builder("c", "1").stdio(Command::new("/nonexistent/server"));
    assert!(matches!(missing, Err(ClientError::Transport(_))));
    assert!(matches!(
        Client::builder("c", "1").http("https://example.com/mcp"),
        Err(ClientError::Transport(_))
    ));
}

async fn progress_reaches_the_notification_callback(transport: Transport) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let builder = Client::builder("snodo-client-tests", "0.1.0")
        .on_notification(move |n| sink.lock().unwrap().push(n));
    let Connected { client, _server } = connect(transport, builder).await;
    let result = client
        .request(
            "tools/call",
            json!({"name": "slow_count", "arguments": {"count": 3, "delayMs": 5}, "_meta": {"progressToken": "p-1"}}),
        )
        .await
        .expect("slow_count completes");
    assert_eq!(result["content"][0]["text"], "Counted to 3.");
    let seen = seen.lock().unwrap().clone();
    let progress: Vec<&Value> = seen
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{seen:?}");
    assert_eq!(progress[2]["params"]["progressToken"], "p-1");
    assert_eq!(progress[2]["params"]["progress"], 3.0);
    client.close().await;
}

#[tokio::test]
async fn progress_reaches_the_notification_callback_over_stdio() {
    progress_reaches_the_notification_callback(Transport::Stdio).await;
}

#[tokio::test]
async fn progress_reaches_the_notification_callback_over_http() {
    progress_reaches_the_notification_callback(Transport::Http).await;
}

/// The example's `report` called by a client that takes tasks: the example makes the call a
/// task, and the client answers its question with the form handler (that the client follows
/// a task rather than an answer in the request is shown in `http_tasks.rs`, where the tool
/// tells the two apart).
async fn the_report_as_a_task(transport: Transport) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&asked);
    let builder = Client::builder("snodo-client-tests", "0.1.0")
        .timeout(Some(Duration::from_secs(30)))
        .tasks(true)
        .on_form(move |form: FormRequest| {
            recorded.lock().unwrap().push(form.message.clone());
            async { Ok(ElicitResult::accept(json!({"detailed": true}))) }
        });
    let Connected { client, _server } = connect(transport, builder).await;
    let report = client
        .call_tool("report", json!({"topic": "tides", "seconds": 0}))
        .await
        .expect("the task completes");
    assert_eq!(
        report["content"][0]["text"],
        "Report on tides: three sources read. Detailed figures included."
    );
    assert_eq!(
        *asked.lock().unwrap(),
        ["Include the detailed figures in the report?"]
    );
    client.close().await;
}

#[tokio::test]
async fn a_client_that_takes_tasks_gets_the_report_over_stdio() {
    the_report_as_a_task(Transport::Stdio).await;
}

#[tokio::test]
async fn a_client_that_takes_tasks_gets_the_report_over_http() {
    the_report_as_a_task(Transport::Http).await;
}
