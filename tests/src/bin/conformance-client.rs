//! The Rust client ([`snodo_std::client`]) as the official conformance runner's client.
//!
//! ```text
//! conformance client --command "target/debug/conformance-client" --scenario NAME --spec-version 2026-07-28
//! ```
//!
//! The runner appends the server's URL as the last argument and names the scenario in
//! `MCP_CONFORMANCE_SCENARIO` (`MCP_CONFORMANCE_CONTEXT` carries a scenario's own data). The
//! client declares and answers every kind of input (form and URL elicitation, sampling,
//! roots), performs the scenario's steps, and exits 0 when they all succeed. Progress goes to
//! standard output, problems to standard error (`RUST_LOG` filters the client's logs, `warn`
//! by default).

use std::process::ExitCode;

use serde_json::{Map, Value, json};
use snodo_std::client::{Client, ClientError, CreateMessageResult, ElicitResult, Root};
use tracing_subscriber::EnvFilter;

/// The scenarios this client knows.
const SCENARIOS: &[&str] = &[
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
];

fn main() -> ExitCode {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL  (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if !SCENARIOS.contains(&scenario.as_str()) {
        eprintln!(
            "conformance-client: unknown scenario {scenario:?}; known: {}",
            SCENARIOS.join(", ")
        );
        return ExitCode::from(2);
    }
    let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(context) => context,
            Err(e) => {
                eprintln!("conformance-client: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
                return ExitCode::from(2);
            }
        },
        Err(_) => Value::Null,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("conformance-client: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&scenario, &url, &context)) {
        Ok(()) => {
            println!("{scenario}: done");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("conformance-client: {scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn client(url: &str) -> Result<Client, ClientError> {
    Client::builder("snodo-conformance-client", env!("CARGO_PKG_VERSION"))
        .on_form(|form| async move {
            println!("form elicitation: {}", form.message);
            Ok(ElicitResult::accept(fill(&form.requested_schema)))
        })
        .on_url(|request| async move {
            println!("URL elicitation: {} ({})", request.message, request.url);
            Ok(ElicitResult::consent())
        })
        .on_sampling(|request| async move {
            println!("sampling: {} message(s)", request.messages().len());
            Ok(CreateMessageResult::text("snodo-conformance-model", "ok"))
        })
        .on_roots(|_| async { Ok(Vec::<Root>::new()) })
        .http(url)
}

/// A form answered with a value for every field that fits its schema.
fn fill(schema: &Value) -> Value {
    let mut content = Map::new();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        content.insert(name.clone(), value_for(property));
    }
    Value::Object(content)
}

fn value_for(property: &Value) -> Value {
    if let Some(first) = property["enum"].as_array().and_then(|o| o.first()) {
        return first.clone();
    }
    if let Some(first) = property["oneOf"].as_array().and_then(|o| o.first()) {
        return first["const"].clone();
    }
    match property["type"].as_str() {
        Some("boolean") => json!(true),
        Some("integer") | Some("number") => {
            property.get("minimum").cloned().unwrap_or_else(|| json!(1))
        }
        Some("array") => {
            let item = &property["items"];
            let first = item["enum"]
                .as_array()
                .and_then(|o| o.first().cloned())
                .or_else(|| {
                    item["anyOf"]
                        .as_array()
                        .and_then(|o| o.first())
                        .map(|o| o["const"].clone())
                });
            json!(first.into_iter().collect::<Vec<_>>())
        }
        _ => match property["format"].as_str() {
            Some("email") => json!("conformance@example.com"),
            Some("uri") => json!("https://example.com/"),
            Some("date") => json!("2026-07-28"),
            Some("date-time") => json!("2026-07-28T00:00:00Z"),
            _ => json!("conformance"),
        },
    }
}

fn name_of(item: &Value, key: &str) -> Result<String, ClientError> {
    item[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| ClientError::MalformedResponse(format!("an item without a {key}")))
}

async fn run(scenario: &str, url: &str, context: &Value) -> Result<(), ClientError> {
    let client = client(url)?;
    match scenario {
        "tools_call" => {
            let tools = client.list_tools().await?;
            let first = tools
                .first()
                .ok_or_else(|| ClientError::MalformedResponse("no tools".to_owned()))?;
            let result = client
                .call_tool(&name_of(first, "name")?, json!({"a": 2, "b": 3}))
                .await?;
            println!("{}", result["content"]);
        }
        "request-metadata" => {
            client.discover().await?;
            client.list_tools().await?;
        }
        "sep-2322-client-request-state" => {
            client.list_tools().await?;
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_no_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_result_type",
            ] {
                let result = client.call_tool(tool, json!({})).await?;
                println!("{tool}: {}", result["content"]);
            }
        }
        "http-standard-headers" => {
            let tools = client.list_tools().await?;
            let tool = tools
                .iter()
                .find(|t| t["name"] == "my-hyphenated-tool")
                .or(tools.first())
                .ok_or_else(|| ClientError::MalformedResponse("no tools".to_owned()))?;
            client.call_tool(&name_of(tool, "name")?, json!({})).await?;
            let resources = client.list_resources().await?;
            if let Some(resource) = resources.first() {
                client.read_resource(&name_of(resource, "uri")?).await?;
            }
            let prompts = client.list_prompts().await?;
            if let Some(prompt) = prompts.first() {
                client
                    .get_prompt(&name_of(prompt, "name")?, Value::Null)
                    .await?;
            }
        }
        "http-custom-headers" => {
            client.list_tools().await?;
            for call in context["toolCalls"].as_array().into_iter().flatten() {
                let name = name_of(call, "name")?;
                client.call_tool(&name, call["arguments"].clone()).await?;
                println!("{name}: called");
            }
        }
        "http-invalid-tool-headers" => {
            for tool in client.list_tools().await? {
                let name = name_of(&tool, "name")?;
                client
                    .call_tool(&name, json!({"region": "us-west1"}))
                    .await?;
                println!("{name}: called");
            }
        }
        "json-schema-ref-no-deref" => {
            let tools = client.list_tools().await?;
            println!("{} tool(s) listed", tools.len());
        }
        _ => unreachable!("checked in main"),
    }
    client.close().await;
    Ok(())
}
