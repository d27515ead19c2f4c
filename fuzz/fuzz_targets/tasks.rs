//! The Tasks extension's requests on arbitrary `params`: `read_request` for each of its
//! methods, declared and undeclared, and the answers to what it refuses.
//!
//! Never a panic, and:
//! - a request that does not declare the extension is refused as such, whatever its params;
//! - an accepted one has the string `taskId` its params carry, and `tasks/update` the object
//!   `inputResponses`;
//! - every refusal, and the unknown-task answer, is one JSON-RPC error response.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value as Json;
use snodo_core::json::{Limits, Writer, parse};
use snodo_core::protocol::ClientCapabilities;
use snodo_core::rpc::Id;
use snodo_core::tasks::{Refusal, TaskMethod, read_request, write_refusal, write_unknown_task};

const LIMITS: Limits = Limits {
    max_size: 16 * 1024,
    max_depth: 16,
    max_members: 64,
};

fn error_response(write: impl FnOnce(&mut Writer<'_>)) {
    let mut out = [0u8; 1024];
    let mut w = Writer::new(&mut out);
    write(&mut w);
    let len = w.finish().expect("an error response fits 1 KiB");
    let v: Json = serde_json::from_slice(&out[..len]).expect("JSON");
    assert!(v["error"]["code"].is_i64() && v["error"]["message"].is_string());
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = parse(data, &LIMITS) else {
        return;
    };
    let params = value.as_object();
    // A second reading to compare with, where serde reads the text too (it refuses some
    // escapes the core decodes, such as a lone surrogate).
    let parsed: Option<Json> = serde_json::from_slice(data).ok();
    for method in [TaskMethod::Get, TaskMethod::Update, TaskMethod::Cancel] {
        let undeclared = read_request(method, params, ClientCapabilities::ROOTS);
        assert_eq!(undeclared.err(), Some(Refusal::Undeclared));
        match read_request(method, params, ClientCapabilities::TASKS) {
            Ok(request) => {
                assert_eq!(
                    request.input_responses.is_some(),
                    method == TaskMethod::Update
                );
                if let Some(parsed) = &parsed {
                    let id = parsed["taskId"].as_str().expect("a string taskId");
                    assert!(request.task_id.eq_str(id));
                    if method == TaskMethod::Update {
                        assert!(parsed["inputResponses"].is_object());
                    }
                }
            }
            Err(refusal) => {
                assert_ne!(refusal, Refusal::Undeclared);
                error_response(|w| write_refusal(w, Some(Id::Num(1)), refusal));
            }
        }
    }
    error_response(|w| write_unknown_task(w, None));
});
