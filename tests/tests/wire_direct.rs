//! Literal wire tests: the wire suite (`wire/suite.rs`, every method and every error of the
//! foundation issue) run by one harness on each boundary against the wire fixture
//! application (`snodo_tests::fixture::Fixture`):
//!
//! - `direct`: in-process through the core's synchronous round ([`Server::handle`]), with its
//!   handler runs counted;
//! - `stdio`: `mrtr-fixture-server --app wire --stdio`, one process per server a test starts;
//! - `http`: `mrtr-fixture-server --app wire --http 127.0.0.1:0`, one POST per message.
//!
//! The tests below stay in-process: other configurations (pages, small messages, cache
//! hints), bytes that are not text, output buffers of every size, the two phases, and a
//! call's `Copy` handle. What only a transport does (framing, concurrency, cancellation of a
//! running request) is in `wire_stdio.rs` and the HTTP tests.

#[path = "wire/suite.rs"]
mod suite;

use serde_json::{Value, json};
use snodo_core::rpc::Id;
use snodo_core::server::{Handled, Server};
use snodo_tests::boundary::{Direct, HANDLER_RUNS, Target, Transport, fixture_server_target};
use snodo_tests::fixture::{self, Fixture, INSTRUCTIONS, PAGED_TTL_MS, server, server_with};
use snodo_tests::harness::{
    ANY_STRING, NOW, OUT_SIZE, assert_reply, bare, cacheable, error, error_with_data, exchange,
    meta, notification, raw_request, request, round, round_bytes, server_info,
};
use suite::{
    INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, PUBLIC, TTL, call, failing_requests, lists,
    parse_error, read, successful_requests, text_result,
};

/// The wire fixture in-process, through the core's synchronous round.
fn direct() -> Target {
    Target::new("direct", |_| {
        Box::new(
            Direct::sync(server(), server_info()).counting(HANDLER_RUNS, Fixture::handler_runs),
        )
    })
}

fn spawned(transport: Transport) -> Target {
    fixture_server_target(env!("CARGO_BIN_EXE_mrtr-fixture-server"), "wire", transport)
}

mod direct {
    super::suite::wire_tests!(super::direct());
}

mod stdio {
    super::suite::wire_tests!(super::spawned(snodo_tests::boundary::Transport::Stdio));
}

mod http {
    super::suite::wire_tests!(super::spawned(snodo_tests::boundary::Transport::Http));
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let s = server();
    let inputs: [&[u8]; 4] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\"}}",
        // An overlong encoding of '/'.
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools\xc0\xaflist\"}",
        // A UTF-16 surrogate encoded as UTF-8.
        b"{\"jsonrpc\":\"2.0\",\"id\":\"\xed\xa0\x80\",\"method\":\"tools/list\"}",
        // A truncated sequence.
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"\xe2\x82\"}}",
    ];
    for input in inputs {
        assert_reply(round_bytes(&s, input), parse_error());
    }
}

#[test]
fn oversized_messages_are_a_parse_error() {
    let max = 512;
    let s = server_with(fixture::small_message_config(max));
    let m = meta().to_string();
    let padded = |len: usize| {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"pad":""#
        );
        let tail = r#""}}"#;
        let pad = "x".repeat(len - head.len() - tail.len());
        let text = format!("{head}{pad}{tail}");
        assert_eq!(text.len(), len);
        text
    };
    assert_eq!(
        round(&s, &padded(max)).unwrap()["result"]["resultType"],
        "complete"
    );
    exchange(&s, &padded(max + 1), parse_error());
    exchange(&s, &padded(4 * max), parse_error());
}

#[test]
fn cancellation_names_the_request_and_sends_nothing() {
    let s = server();
    let mut out = vec![0u8; OUT_SIZE];
    let input = notification(
        "notifications/cancelled",
        json!({"requestId": 42, "reason": "user"}),
    );
    let handled = s.handle(input.as_bytes(), NOW, &mut out, None).unwrap();
    assert_eq!(handled, Handled::Cancelled(Id::Num(42)));

    let input = notification("notifications/cancelled", json!({"requestId": "r-7"}));
    match s.handle(input.as_bytes(), NOW, &mut out, None).unwrap() {
        Handled::Cancelled(Id::Str(id)) => assert!(id.eq_str("r-7")),
        other => panic!("expected a cancellation of \"r-7\", got {other:?}"),
    }
}

#[test]
fn discover_uses_the_configured_cache_hints() {
    let s = server_with(fixture::paged_config());
    exchange(
        &s,
        &bare(2, "server/discover"),
        cacheable(
            2,
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
                "instructions": INSTRUCTIONS
            }),
            PAGED_TTL_MS,
            "private",
        ),
    );
}

#[test]
fn discover_of_a_tools_only_server_advertises_tools_only() {
    let s = fixture::tools_only_server();
    exchange(
        &s,
        &bare(1, "server/discover"),
        cacheable(
            1,
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "instructions": INSTRUCTIONS
            }),
            TTL,
            PUBLIC,
        ),
    );
}

#[test]
fn lists_paginate_with_opaque_cursors_and_cache_hints_on_every_page() {
    let s = server_with(fixture::paged_config());
    for (method, key, items) in lists() {
        let pages: Vec<&[Value]> = items.chunks(fixture::SMALL_PAGE).collect();
        let mut cursor: Option<Value> = None;
        for (n, page) in pages.iter().enumerate() {
            let id = json!(format!("{method}#{n}"));
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let last = n + 1 == pages.len();
            let mut members = json!({ key: page });
            if !last {
                members["nextCursor"] = json!(ANY_STRING);
            }
            let reply = round(&s, &request(id.clone(), method, params)).unwrap();
            assert_reply(
                Some(reply.clone()),
                cacheable(id, members, PAGED_TTL_MS, "private"),
            );
            cursor = reply["result"].get("nextCursor").cloned();
        }
        assert_eq!(cursor, None, "{method}: the last page has no nextCursor");
    }
}

#[test]
fn invalid_cursors_are_invalid_params() {
    let s = server_with(fixture::paged_config());
    for (method, _, _) in lists() {
        for cursor in [
            json!("not-a-cursor"),
            json!(""),
            json!("-1"),
            json!(2),
            json!(null),
            json!({}),
        ] {
            exchange(
                &s,
                &request(7, method, json!({"cursor": cursor})),
                error(7, INVALID_PARAMS),
            );
        }
    }
}

/// A cursor is an opaque string: the client may send it back with JSON escapes.
#[test]
fn escaped_cursors_are_the_same_cursors() {
    let s = server_with(fixture::paged_config());
    let first = round(&s, &bare(1, "tools/list")).unwrap();
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let plain = round(&s, &request(2, "tools/list", json!({ "cursor": cursor }))).unwrap();
    let escaped_cursor: String = cursor
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{},"cursor":"{escaped_cursor}"}}}}"#,
        meta()
    );
    assert_reply(round(&s, &input), plain);
}

#[test]
fn methods_of_unadvertised_capabilities_are_method_not_found() {
    let s = fixture::tools_only_server();
    for input in [
        bare(1, "prompts/list"),
        request(
            2,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        bare(3, "resources/list"),
        bare(4, "resources/templates/list"),
        request(5, "resources/read", json!({"uri": "fixture://readme"})),
        request(
            6,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": ""}}),
        ),
    ] {
        let id = serde_json::from_str::<Value>(&input).unwrap()["id"].clone();
        exchange(&s, &input, error(id, METHOD_NOT_FOUND));
    }
    exchange(
        &s,
        &bare(7, "tools/list"),
        cacheable(
            7,
            json!({"tools": [{"name": "noop", "inputSchema": {"type": "object", "additionalProperties": false}}]}),
            TTL,
            PUBLIC,
        ),
    );
    exchange(&s, &call(8, "noop", json!({})), text_result(8, "done"));
}

#[test]
fn a_server_holds_nothing_between_rounds() {
    // The same request gives the same reply, whatever came before it.
    let s: Server<'_, Fixture> = server();
    let input = call(1, "search", json!({"query": "q"}));
    let first = round(&s, &input);
    for noise in successful_requests() {
        round(&s, &noise);
        assert_eq!(round(&s, &input), first);
    }
}

// ---------------------------------------------------------------------------------------
// Output buffers that are too small
// ---------------------------------------------------------------------------------------

/// A buffer too small for the reply never panics and never truncates: the core either reports
/// the size it needed or (for results a handler wrote) answers -32603 in what room there is.
#[test]
fn small_output_buffers_never_panic_or_truncate() {
    let s = server();
    let mut inputs = successful_requests();
    inputs.extend([
        "{".to_string(),
        "[]".to_string(),
        bare("a-string-id", "ping"),
        call(20, "nope", json!({})),
        call(21, "quota", json!({})),
        read(22, "fixture://nope"),
    ]);
    for input in &inputs {
        let mut big = vec![0u8; OUT_SIZE];
        let Handled::Reply(full) = s.handle(input.as_bytes(), NOW, &mut big, None).unwrap() else {
            panic!("{input} was not answered");
        };
        let full_reply = &big[..full];
        let id = snodo_tests::harness::parse_output(full_reply)["id"].clone();
        let handler_writes = successful_requests()[5..].contains(input);
        for size in 0..=full + 2 {
            let mut out = vec![0u8; size];
            match s.handle(input.as_bytes(), NOW, &mut out, None) {
                Ok(Handled::Reply(n)) if size >= full => {
                    assert_eq!(&out[..n], full_reply, "{input} in {size} bytes");
                }
                Ok(Handled::Reply(n)) => {
                    assert!(handler_writes, "{input}: a partial reply in {size} bytes");
                    assert_reply(
                        Some(snodo_tests::harness::parse_output(&out[..n])),
                        error(id.clone(), INTERNAL_ERROR),
                    );
                }
                Ok(other) => panic!("{input} in {size} bytes: {other:?}"),
                Err(e) => {
                    assert!(
                        size < full,
                        "{input}: refused {size} bytes though {full} suffice"
                    );
                    assert!(
                        e.required > size,
                        "{input}: required {} of {size}",
                        e.required
                    );
                    if !handler_writes {
                        assert_eq!(e.required, full, "{input} in {size} bytes");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The two phases give the same bytes as the one-call path
// ---------------------------------------------------------------------------------------

#[test]
fn the_two_phase_round_writes_what_the_one_call_round_writes() {
    use snodo_core::server::{Accepted, Call, Handler};
    let s = server();
    let mut inputs = successful_requests();
    inputs.extend(failing_requests().into_iter().map(|(method, params)| {
        let mut input = json!({"jsonrpc": "2.0", "id": 1, "method": method});
        if let Some(params) = params {
            input["params"] = params;
        }
        input.to_string()
    }));
    for input in &inputs {
        let mut one = vec![0u8; OUT_SIZE];
        let Handled::Reply(n) = s.handle(input.as_bytes(), NOW, &mut one, None).unwrap() else {
            panic!("{input} was not answered");
        };
        let mut two = vec![0u8; OUT_SIZE];
        let m = match s.accept(input.as_bytes(), NOW, &mut two).unwrap() {
            Accepted::Replied(m) => m,
            Accepted::Call(call) => {
                let app = s.app();
                let outcome = match &call {
                    Call::Tool(c) => app.call_tool(c, c.reply(&mut two, None)),
                    Call::Resource(c) => app.read_resource(c, c.reply(&mut two, None)),
                    Call::Prompt(c) => app.get_prompt(c, c.reply(&mut two, None)),
                    Call::Complete(c) => app.complete(c, c.reply(&mut two, None)),
                };
                call.finish(outcome).len(&mut two).unwrap()
            }
            other => panic!("{input}: {other:?}"),
        };
        assert_eq!(
            String::from_utf8_lossy(&two[..m]),
            String::from_utf8_lossy(&one[..n]),
            "{input}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// A call's Copy handle borrows the call again from a copy of its bytes
// ---------------------------------------------------------------------------------------

#[test]
fn a_call_handle_viewed_in_a_copy_of_the_bytes_runs_as_the_accepted_call() {
    use snodo_core::server::{Accepted, Call, CallHandle, Handler};
    fn kept<T: Copy + Send + 'static>(handle: T) -> T {
        handle
    }
    let s = server();
    let mut inputs: Vec<String> = successful_requests()[5..].to_vec();
    inputs.extend(failing_requests().into_iter().map(|(method, params)| {
        let mut input = json!({"jsonrpc": "2.0", "id": "a\u{2603}\"b", "method": method});
        if let Some(params) = params {
            input["params"] = params;
        }
        input.to_string()
    }));
    // An escaped URI (decoded into the call), a progress token and a log level.
    let mut escaped = meta();
    escaped["progressToken"] = json!("p-1");
    escaped["io.modelcontextprotocol/logLevel"] = json!("debug");
    inputs.push(
        r#"{"jsonrpc":"2.0","id":40,"method":"resources/read","params":{"uri":"fixture:\/\/users\/\u0031","_meta":META}}"#
            .replace("META", &escaped.to_string()),
    );
    let mut viewed = 0;
    for input in &inputs {
        let mut one = vec![0u8; OUT_SIZE];
        let Handled::Reply(n) = s.handle(input.as_bytes(), NOW, &mut one, None).unwrap() else {
            panic!("{input} was not answered");
        };
        let mut scratch = vec![0u8; OUT_SIZE];
        let Accepted::Call(call) = s.accept(input.as_bytes(), NOW, &mut scratch).unwrap() else {
            continue;
        };
        let handle: CallHandle = kept(call.handle(&s, input.as_bytes()).expect("a handle"));
        let copy = input.as_bytes().to_vec();
        let again = handle.view(&s, &copy, NOW).expect("the same bytes");
        assert_eq!(again.context().id(), call.context().id(), "{input}");
        assert_eq!(handle.method(), call.context().method(), "{input}");
        let mut two = vec![0u8; OUT_SIZE];
        let outcome = {
            let app = s.app();
            match &again {
                Call::Tool(c) => app.call_tool(c, c.reply(&mut two, None)),
                Call::Resource(c) => app.read_resource(c, c.reply(&mut two, None)),
                Call::Prompt(c) => app.get_prompt(c, c.reply(&mut two, None)),
                Call::Complete(c) => app.complete(c, c.reply(&mut two, None)),
            }
        };
        let m = again.finish(outcome).len(&mut two).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&two[..m]),
            String::from_utf8_lossy(&one[..n]),
            "{input}"
        );
        // Other bytes, even of the same length, give no call.
        let mut other = copy.clone();
        let last = other.len() - 1;
        other[last - 1] = b' ';
        assert!(handle.view(&s, &other, NOW).is_none(), "{input}");
        assert!(handle.view(&s, b"{}", NOW).is_none(), "{input}");
        viewed += 1;
    }
    assert!(viewed > 10, "only {viewed} calls were viewed again");
}

/// The core answers `initialize` -32601 naming the versions it speaks. (The stdio and HTTP
/// transports serve both eras by default: there `initialize` opens a 2025-11-25 session, as
/// `legacy_stdio.rs` and `std-adapters/tests/legacy_http.rs` test.)
#[test]
fn initialize_is_method_not_found_naming_the_supported_versions() {
    let s = server();
    let legacy = raw_request(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "legacy-client", "version": "1.0.0"}
        }),
    );
    let reply = round(&s, &legacy).unwrap();
    assert_reply(
        Some(reply.clone()),
        error_with_data(0, METHOD_NOT_FOUND, json!({"supported": ["2026-07-28"]})),
    );
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("2026-07-28"), "{message:?}");
    // With the modern envelope too.
    let modern = bare(1, "initialize");
    assert_reply(
        round(&s, &modern),
        error_with_data(1, METHOD_NOT_FOUND, json!({"supported": ["2026-07-28"]})),
    );
}
