//! The `preferences` example's application, served over the stdio adapter in-process.

mod common;

#[path = "../examples/preferences/app.rs"]
mod app;
#[path = "../examples/preferences/flows.rs"]
mod flows;
#[path = "../examples/preferences/report.rs"]
mod report;

use common::{
    Client, PATIENCE, call, call_with_progress, declaring, first_text, request, start_server,
};
use serde_json::{Value, json};
use snodo_std::stdio::StdioConfig;

/// The example app with its own configuration, on pipes.
fn start() -> Client {
    // The example's server, checked when built.
    let server = app::server();
    start_server(server, StdioConfig::default(), 1 << 16, |w| w)
}

async fn round(line: &str) -> Value {
    let mut client = start();
    client.send(line).await;
    let reply = client.recv().await;
    assert!(client.finish().await.is_empty());
    reply
}

#[tokio::test]
async fn lists_the_catalogue() {
    let tools = round(&request(1, "tools/list", json!({}))).await;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "slow_count",
            "fail",
            "report",
            "preference_preview",
            "reset_preview",
            "url_preview",
            "sampling_preview",
            "roots_preview",
            "combined_preview"
        ]
    );
    assert!(tools["result"]["tools"][1]["outputSchema"].is_object());

    let resources = round(&request(2, "resources/list", json!({}))).await;
    assert_eq!(
        resources["result"]["resources"][0]["uri"],
        "preview://about"
    );
    let templates = round(&request(3, "resources/templates/list", json!({}))).await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "greeting://{name}"
    );
    let prompts = round(&request(4, "prompts/list", json!({}))).await;
    assert_eq!(prompts["result"]["prompts"][0]["name"], "greeting_prompt");
    assert_eq!(
        prompts["result"]["prompts"][0]["arguments"][0],
        json!({"name": "name", "description": "Who to greet", "required": true})
    );

    let discover = round(&request(5, "server/discover", json!({}))).await;
    let capabilities = &discover["result"]["capabilities"];
    for family in ["tools", "resources", "prompts", "completions"] {
        assert!(capabilities[family].is_object(), "{family} advertised");
    }
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "snodo-preferences"
    );
}

#[tokio::test]
async fn echo_returns_its_text() {
    let reply = round(&call(1, "echo", json!({"text": "caf\u{e9}"}))).await;
    assert_eq!(first_text(&reply), "caf\u{e9}");
    assert_eq!(reply["result"]["resultType"], "complete");
}

#[tokio::test]
async fn echo_without_text_is_a_tool_error() {
    let reply = round(&call(1, "echo", json!({}))).await;
    assert_eq!(reply["result"]["isError"], true);
}

#[tokio::test]
async fn add_returns_structured_content() {
    let reply = round(&call(1, "add", json!({"a": 1.5, "b": 2}))).await;
    assert_eq!(reply["result"]["structuredContent"], json!({"sum": 3.5}));
    let mirrored: Value = serde_json::from_str(first_text(&reply)).unwrap();
    assert_eq!(mirrored, json!({"sum": 3.5}));
}

#[tokio::test]
async fn fail_is_a_tool_error_result() {
    let reply = round(&call(1, "fail", json!({"reason": "testing"}))).await;
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(first_text(&reply), "Failed as asked: testing");
}

#[tokio::test]
async fn slow_count_reports_progress_when_asked() {
    let mut client = start();
    let line = call_with_progress(1, "slow_count", json!({"count": 3, "delayMs": 0}), "c");
    client.send(&line).await;
    for step in 1..=3 {
        let note = client.recv().await;
        assert_eq!(note["method"], "notifications/progress");
        assert_eq!(note["params"]["progressToken"], "c");
        assert_eq!(note["params"]["progress"], f64::from(step));
    }
    let reply = client.recv().await;
    assert_eq!(first_text(&reply), "Counted to 3.");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn reads_the_about_page_and_a_greeting() {
    let about = round(&request(
        1,
        "resources/read",
        json!({"uri": "preview://about"}),
    ))
    .await;
    let contents = &about["result"]["contents"][0];
    assert_eq!(contents["uri"], "preview://about");
    assert_eq!(contents["mimeType"], "text/plain");
    assert!(contents["text"].as_str().unwrap().contains("slow_count"));

    let greeting = round(&request(
        2,
        "resources/read",
        json!({"uri": "greeting://Grace"}),
    ))
    .await;
    assert_eq!(greeting["result"]["contents"][0]["text"], "Hello, Grace!");

    let missing = round(&request(3, "resources/read", json!({"uri": "nowhere://x"}))).await;
    assert_eq!(missing["error"]["code"], -32602);
}

#[tokio::test]
async fn renders_the_prompt_and_requires_its_argument() {
    let reply = round(&request(
        1,
        "prompts/get",
        json!({"name": "greeting_prompt", "arguments": {"name": "Ada", "style": "formal"}}),
    ))
    .await;
    let message = &reply["result"]["messages"][0];
    assert_eq!(message["role"], "user");
    assert_eq!(
        message["content"]["text"],
        "Write a short formal greeting for Ada."
    );

    let missing = round(&request(
        2,
        "prompts/get",
        json!({"name": "greeting_prompt"}),
    ))
    .await;
    assert_eq!(missing["error"]["code"], -32602);
}

#[tokio::test]
async fn completes_prompt_and_template_arguments() {
    let complete = |reference: Value, name: &str, value: &str| {
        request(
            1,
            "completion/complete",
            json!({"ref": reference, "argument": {"name": name, "value": value}}),
        )
    };
    let prompt = json!({"type": "ref/prompt", "name": "greeting_prompt"});
    let names = round(&complete(prompt.clone(), "name", "a")).await;
    assert_eq!(
        names["result"]["completion"]["values"],
        json!(["Ada", "Alan"])
    );
    let styles = round(&complete(prompt, "style", "")).await;
    assert_eq!(
        styles["result"]["completion"]["values"],
        json!(["casual", "formal", "pirate"])
    );
    let template = json!({"type": "ref/resource", "uri": "greeting://{name}"});
    let names = round(&complete(template, "name", "G")).await;
    assert_eq!(names["result"]["completion"]["values"], json!(["Grace"]));
}

#[tokio::test]
async fn serves_requests_side_by_side() {
    let mut client = start();
    client
        .send(&call(1, "slow_count", json!({"count": 2, "delayMs": 50})))
        .await;
    client
        .send(&call(2, "echo", json!({"text": "first"})))
        .await;
    let first = tokio::time::timeout(PATIENCE, client.recv()).await.unwrap();
    assert_eq!(first["id"], 2, "the quick call overtakes the slow one");
    assert_eq!(client.recv().await["id"], 1);
    assert!(client.finish().await.is_empty());
}

/// A `tools/call` line for `tool` from a client that declares `capabilities`, with retry
/// fields `extra` (`inputResponses`, `requestState`) when given.
fn call_declaring(id: i64, tool: &str, capabilities: Value, extra: Value) -> String {
    let mut params = json!({"name": tool, "arguments": {}});
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities
    });
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[tokio::test]
async fn sampling_roots_and_combined_flows() {
    let all = json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}});
    let sampled = json!({
        "role": "assistant",
        "content": {"type": "text", "text": "teal"},
        "model": "m"
    });
    let roots = json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]});
    let color = json!({"action": "accept", "content": {"color": "red"}});

    let first = round(&call_declaring(
        1,
        "sampling_preview",
        all.clone(),
        json!({}),
    ))
    .await;
    let asked = &first["result"]["inputRequests"]["suggestion"];
    assert_eq!(asked["method"], "sampling/createMessage");
    assert_eq!(asked["params"]["maxTokens"], 16);
    let answers = json!({"inputResponses": {"suggestion": sampled}});
    let done = round(&call_declaring(2, "sampling_preview", all.clone(), answers)).await;
    assert_eq!(
        first_text(&done),
        r#"{"suggestion":"teal","model":"m","status":"preview"}"#
    );

    let first = round(&call_declaring(3, "roots_preview", all.clone(), json!({}))).await;
    assert_eq!(
        first["result"]["inputRequests"]["roots"],
        json!({"method": "roots/list", "params": {}})
    );
    let answers = json!({"inputResponses": {"roots": roots}});
    let done = round(&call_declaring(4, "roots_preview", all.clone(), answers)).await;
    assert_eq!(
        first_text(&done),
        r#"{"rootCount":2,"roots":["file:///a","file:///b"],"status":"preview"}"#
    );
    let answers = json!({"inputResponses": {"roots": {"roots": [{"uri": "https://x"}]}}});
    let bad = round(&call_declaring(5, "roots_preview", all.clone(), answers)).await;
    assert_eq!(bad["error"]["code"], -32602, "roots must be file:// URIs");

    // One result asks for all three kinds, with state; the retry needs the state and every
    // answer.
    let first = round(&call_declaring(
        6,
        "combined_preview",
        all.clone(),
        json!({}),
    ))
    .await;
    let asked = &first["result"]["inputRequests"];
    assert_eq!(asked["color"]["method"], "elicitation/create");
    assert_eq!(asked["suggestion"]["method"], "sampling/createMessage");
    assert_eq!(asked["roots"]["method"], "roots/list");
    let state = first["result"]["requestState"].clone();
    assert!(state.is_string());
    let answers = json!({"color": color, "suggestion": sampled, "roots": roots});
    let retry = json!({"inputResponses": answers, "requestState": state});
    let done = round(&call_declaring(7, "combined_preview", all.clone(), retry)).await;
    assert_eq!(
        first_text(&done),
        r#"{"color":"red","suggestion":"teal","rootCount":2,"status":"preview"}"#
    );
    let stateless = json!({"inputResponses": answers});
    let again = round(&call_declaring(
        8,
        "combined_preview",
        all.clone(),
        stateless,
    ))
    .await;
    assert_eq!(again["result"]["resultType"], "input_required");
    let declined = json!({"color": {"action": "decline"}, "suggestion": sampled, "roots": roots});
    let retry = json!({"inputResponses": declined, "requestState": state});
    let done = round(&call_declaring(9, "combined_preview", all, retry)).await;
    assert_eq!(first_text(&done), r#"{"status":"decline"}"#);

    // A client that declared only forms gets -32021 naming both missing capabilities.
    let forms = json!({"elicitation": {"form": {}}});
    let refused = round(&call_declaring(10, "combined_preview", forms, json!({}))).await;
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}, "roots": {}})
    );
}

/// Polls `task` on `client` until it is `status`.
async fn until(client: &mut Client, task: &str, status: &str) -> Value {
    let polled = async {
        for id in 100.. {
            client
                .send(&declaring(id, "tasks/get", json!({"taskId": task})))
                .await;
            let got = client.recv().await;
            if got["result"]["status"] == status {
                return got;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        unreachable!()
    };
    tokio::time::timeout(PATIENCE, polled)
        .await
        .unwrap_or_else(|_| panic!("task {task} never became {status}"))
}

#[tokio::test]
async fn the_report_runs_as_a_task_asks_its_question_there_and_finishes() {
    let mut client = start();
    let args = json!({"name": "report", "arguments": {"topic": "tides", "seconds": 0}});
    client.send(&declaring(1, "tools/call", args)).await;
    let created = client.recv().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = until(&mut client, &task, "input_required").await;
    // The status names the half that ran last.
    assert_eq!(parked["result"]["statusMessage"], "Reading sources");
    let requests = parked["result"]["inputRequests"].as_object().unwrap();
    let (key, asked) = requests.iter().next().expect("one question");
    assert_eq!(
        asked["params"]["message"],
        "Include the detailed figures in the report?"
    );
    let answer = json!({"taskId": task, "inputResponses": {
        key.clone(): {"action": "accept", "content": {"detailed": true}}
    }});
    client.send(&declaring(2, "tasks/update", answer)).await;
    assert_eq!(
        client.recv().await["result"],
        json!({"resultType": "complete"})
    );
    let done = until(&mut client, &task, "completed").await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "Report on tides: three sources read. Detailed figures included."
    );
    assert_eq!(done["result"]["statusMessage"], "Writing the report");
}

#[tokio::test]
async fn a_cancelled_report_stops_as_a_task_and_stays_cancelled() {
    let mut client = start();
    let args = json!({"name": "report", "arguments": {"topic": "tides", "seconds": 30}});
    client.send(&declaring(1, "tools/call", args)).await;
    let created = client.recv().await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    client
        .send(&declaring(2, "tasks/cancel", json!({"taskId": task})))
        .await;
    assert_eq!(
        client.recv().await["result"],
        json!({"resultType": "complete"})
    );
    let cancelled = until(&mut client, &task, "cancelled").await;
    assert!(cancelled["result"].get("result").is_none(), "{cancelled}");
}

#[tokio::test]
async fn without_the_extension_the_report_asks_in_its_request() {
    let mut line: Value = serde_json::from_str(&declaring(
        1,
        "tools/call",
        json!({"name": "report", "arguments": {"topic": "tides", "seconds": 0}}),
    ))
    .unwrap();
    let capabilities = &mut line["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    capabilities.as_object_mut().unwrap().remove("extensions");
    let asked = round(&line.to_string()).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert!(
        asked["result"]["inputRequests"]["detail"].is_object(),
        "{asked}"
    );
}

#[tokio::test]
async fn a_listen_stream_follows_the_report_task_to_its_result_over_stdio() {
    let mut client = start();
    let args = json!({"name": "report", "arguments": {"topic": "tides", "seconds": 0}});
    client.send(&declaring(1, "tools/call", args)).await;
    let created = client.recv().await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let listen = json!({"notifications": {"taskIds": [task]}});
    client
        .send(&declaring(2, "subscriptions/listen", listen))
        .await;
    // Reads until a notification of the task in `status`: what it said.
    async fn notified(client: &mut Client, status: &str) -> Value {
        let read = async {
            loop {
                let message = client.recv().await;
                if message["method"] == "notifications/tasks"
                    && message["params"]["status"] == status
                {
                    return message;
                }
            }
        };
        tokio::time::timeout(PATIENCE, read)
            .await
            .unwrap_or_else(|_| panic!("no notification of a {status} task"))
    }
    let parked = notified(&mut client, "input_required").await;
    let (key, _) = parked["params"]["inputRequests"]
        .as_object()
        .and_then(|r| r.iter().next())
        .expect("the question, in the notification");
    let answer = json!({"taskId": task, "inputResponses": {
        key.clone(): {"action": "accept", "content": {"detailed": false}}
    }});
    client.send(&declaring(3, "tasks/update", answer)).await;
    let done = notified(&mut client, "completed").await;
    assert_eq!(done["params"]["taskId"], task.as_str());
    assert_eq!(
        done["params"]["result"]["content"][0]["text"],
        "Report on tides: three sources read. Summary only."
    );
}
