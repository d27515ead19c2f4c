//! `--check`: drives every preference flow in-process, leg by leg, the way a client would,
//! and reports whether each ended as expected.

use serde_json::{Value, json};
use snodo_core::server::{Handled, Round, Server};
use snodo_std::typed::TypedApp;
use snodo_std::{handle, unix_seconds};

/// The canned answer a check client gives to each question.
fn answer(key: &str) -> Value {
    match key {
        "color" => json!({"action": "accept", "content": {"color": "teal"}}),
        "style" => json!({"action": "accept", "content": {"style": "bold"}}),
        "label" => json!({"action": "accept", "content": {"label": "demo"}}),
        _ => json!({"action": "accept"}),
    }
}

async fn send(server: &Server<'static, TypedApp>, request: &Value) -> Result<Value, String> {
    let input = serde_json::to_vec(request).map_err(|e| e.to_string())?;
    let mut out = vec![0u8; 64 * 1024];
    let round = Round::anonymous(unix_seconds());
    match handle(server, &input, round, &mut out, None).await {
        Ok(Handled::Reply(n)) => serde_json::from_slice(&out[..n]).map_err(|e| e.to_string()),
        other => Err(format!("no reply: {other:?}")),
    }
}

/// Runs one flow to its end and returns the final result and the number of legs.
async fn drive(
    server: &Server<'static, TypedApp>,
    method: &str,
    params: Value,
) -> Result<(Value, usize), String> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
    });
    let mut state: Option<Value> = None;
    let mut responses: Option<Value> = None;
    for leg in 1..=5 {
        let mut p = params.clone();
        p["_meta"] = meta.clone();
        if let Some(s) = &state {
            p["requestState"] = s.clone();
        }
        if let Some(r) = &responses {
            p["inputResponses"] = r.clone();
        }
        let reply = send(
            server,
            &json!({"jsonrpc": "2.0", "id": leg, "method": method, "params": p}),
        )
        .await?;
        let result = reply
            .get("result")
            .ok_or_else(|| format!("leg {leg} of {method} failed: {reply}"))?;
        if result["resultType"] != "input_required" {
            return Ok((result.clone(), leg));
        }
        state = result.get("requestState").cloned();
        responses = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|asked| {
                asked
                    .keys()
                    .map(|k| (k.clone(), answer(k)))
                    .collect::<serde_json::Map<_, _>>()
                    .into()
            });
    }
    Err(format!("{method} did not finish in 5 legs"))
}

/// The text of a final result, whatever its kind.
fn final_text(result: &Value) -> &str {
    let text = result["content"][0]["text"]
        .as_str()
        .or_else(|| result["contents"][0]["text"].as_str())
        .or_else(|| result["messages"][0]["content"]["text"].as_str());
    text.unwrap_or("")
}

/// Runs every flow; prints one line per flow and returns whether all ended as expected.
pub async fn run() -> bool {
    let server = super::app::server();
    let preview = r#"{"color":"teal","style":"bold","status":"preview"}"#;
    let cases = [
        (
            "tools/call",
            json!({"name": "preference_preview", "arguments": {"subject": "check"}}),
            preview,
            3,
        ),
        (
            "resources/read",
            json!({"uri": "preview://preferences"}),
            preview,
            3,
        ),
        (
            "prompts/get",
            json!({"name": "preference_prompt"}),
            preview,
            3,
        ),
        (
            "tools/call",
            json!({"name": "reset_preview"}),
            r#"{"status":"accept","stateDiscarded":true}"#,
            3,
        ),
        (
            "tools/call",
            json!({"name": "url_preview"}),
            r#"{"consent":"accept","externalStatus":"pending"}"#,
            2,
        ),
    ];
    let mut all_well = true;
    for (method, params, expected, legs) in cases {
        let name = params["name"]
            .as_str()
            .or(params["uri"].as_str())
            .unwrap_or("")
            .to_owned();
        match drive(&server, method, params).await {
            Ok((result, n)) if final_text(&result) == expected && n == legs => {
                println!("ok   {method} {name}: {n} legs, {expected}");
            }
            Ok((result, n)) => {
                all_well = false;
                println!("FAIL {method} {name}: {n} legs, {result}");
            }
            Err(problem) => {
                all_well = false;
                println!("FAIL {method} {name}: {problem}");
            }
        }
    }
    all_well
}
