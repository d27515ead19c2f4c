//! The lifecycle rules a legacy (2025-11-25) client can break, on the `preferences` example
//! as a process over stdio and HTTP: the server asks the client nothing before
//! `notifications/initialized`, and an answer that is not a usable response ends the
//! request at once with -32602 rather than leaving it to wait for the answer's timeout.

use std::io::{BufRead, Read, Write};

use serde_json::Value;

mod legacy_peer;
use legacy_peer::{exchange, initialize, open_session, preview, request, start_http, start_stdio};

/// The `id`'s error code and message in a JSON-RPC message.
fn error_of(message: &Value) -> (i64, String) {
    let error = &message["error"];
    (
        error["code"].as_i64().unwrap_or_default(),
        error["message"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The JSON messages of an event stream or a plain JSON response.
fn messages(response: &str) -> Vec<Value> {
    let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let data: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    let texts = if data.is_empty() {
        vec![body.trim()]
    } else {
        data
    };
    texts
        .into_iter()
        .filter_map(|t| serde_json::from_str(t).ok())
        .collect()
}

#[test]
fn over_stdio_nothing_is_asked_before_initialized() {
    let (_child, mut stdin, mut stdout) = start_stdio(false);
    writeln!(stdin, "{}", preview(1)).unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let reply: Value = serde_json::from_str(&line).expect("one JSON line");
    assert_eq!(
        reply["id"], 1,
        "the call's own reply, not an elicitation: {line}"
    );
    let (code, message) = error_of(&reply);
    assert_eq!(code, -32600, "{line}");
    assert!(message.contains("notifications/initialized"), "{message}");
}

#[test]
fn over_http_nothing_is_asked_before_initialized() {
    let (_child, addr) = start_http(&[]);
    let session = initialize(addr);
    let response = exchange(addr, "POST", Some(&session), &preview(1));
    let messages = messages(&response);
    assert!(
        messages.iter().all(|m| m.get("method").is_none()),
        "no request to the client: {response}"
    );
    let reply = messages.last().expect("a reply");
    assert_eq!(reply["id"], 1, "{response}");
    let (code, message) = error_of(reply);
    assert_eq!(code, -32600, "{response}");
    assert!(message.contains("notifications/initialized"), "{message}");
}

/// Answers that are responses to the bridged request but not usable ones.
const UNUSABLE: [&str; 2] = [r#"[]"#, r#""accept""#];

#[test]
fn over_stdio_an_answer_whose_result_is_not_an_object_ends_the_call_with_32602() {
    let (_child, mut stdin, mut stdout) = start_stdio(true);
    for (n, result) in UNUSABLE.iter().enumerate() {
        writeln!(stdin, "{}", preview(n + 1)).unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let asked: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(asked["method"], "elicitation/create", "{line}");
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
            asked["id"]
        );
        writeln!(stdin, "{answer}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], n + 1, "the call ends at once: {line}");
        assert_eq!(error_of(&reply).0, -32602, "{line}");
    }
}

#[test]
fn over_http_an_answer_whose_result_is_not_an_object_ends_the_call_with_32602() {
    let (_child, addr) = start_http(&[]);
    let session = open_session(addr);
    for (n, result) in UNUSABLE.iter().enumerate() {
        let mut call = request(addr, "POST", Some(&session), &preview(n + 1));
        // Read the stream up to the question, and keep it open for the reply.
        let mut seen = String::new();
        let mut chunk = [0u8; 4096];
        let asked = loop {
            let read = call.read(&mut chunk).expect("reads");
            assert!(read > 0, "the stream ended before the question: {seen}");
            seen.push_str(&String::from_utf8_lossy(&chunk[..read]));
            if let Some(asked) = messages(&seen)
                .into_iter()
                .find(|m| m["method"] == "elicitation/create")
            {
                break asked;
            }
        };
        let id = asked["id"].to_string();
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
        let delivered = exchange(addr, "POST", Some(&session), &answer);
        assert!(delivered.starts_with("HTTP/1.1 202"), "{delivered}");
        let mut rest = String::new();
        call.read_to_string(&mut rest).expect("the stream ends");
        seen.push_str(&rest);
        let reply = messages(&seen)
            .into_iter()
            .find(|m| m["id"] == n + 1)
            .unwrap_or_else(|| panic!("the call's reply: {seen}"));
        assert_eq!(error_of(&reply).0, -32602, "{seen}");
    }
}
