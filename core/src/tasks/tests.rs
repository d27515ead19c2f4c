use super::*;
use crate::json::{Limits, Writer, parse};
use crate::rpc::Id;

fn task(status: Status) -> Task<'static> {
    Task {
        task_id: "t\"1",
        status,
        status_message: Some("on it"),
        created_at: "2026-12-07T10:30:00Z",
        last_updated_at: "2026-12-07T10:31:00Z",
        ttl_ms: None,
        poll_interval_ms: None,
    }
}

fn written(f: impl FnOnce(&mut Writer<'_>)) -> serde_json::Value {
    let mut out = [0u8; 512];
    let mut w = Writer::new(&mut out);
    f(&mut w);
    let len = w.finish().expect("fits");
    serde_json::from_slice(&out[..len]).expect("JSON")
}

#[test]
fn only_the_diagrams_transitions_are_legal() {
    use Status::*;
    for from in Status::ALL {
        for to in Status::ALL {
            let legal = matches!(from, Working | InputRequired);
            assert_eq!(from.may_become(to), legal, "{from:?} -> {to:?}");
        }
    }
    assert!(Completed.is_terminal() && Failed.is_terminal() && Cancelled.is_terminal());
    assert!(!Working.is_terminal() && !InputRequired.is_terminal());
    for s in Status::ALL {
        assert_eq!(Status::from_name(s.name()), Some(s));
    }
    assert_eq!(Status::from_name("submitted"), None);
}

#[test]
fn a_created_task_is_flat_with_a_null_ttl() {
    let v = written(|w| write_created(w, Id::Num(4), &task(Status::Working)));
    let result = &v["result"];
    assert_eq!(v["id"], 4);
    assert_eq!(result["resultType"], "task");
    assert_eq!(result["taskId"], "t\"1");
    assert_eq!(result["status"], "working");
    assert_eq!(result["statusMessage"], "on it");
    assert!(result["ttlMs"].is_null() && result.get("ttlMs").is_some());
    assert!(result.get("task").is_none() && result.get("requestState").is_none());
    assert!(result.get("pollIntervalMs").is_none());
}

#[test]
fn each_status_carries_only_its_own_payload() {
    let requests = parse(
        br#"{"a":{"method":"elicitation/create","params":{}}}"#,
        &Limits::default(),
    )
    .unwrap();
    let result = parse(br#"{"content":[],"isError":true}"#, &Limits::default()).unwrap();
    let error = parse(br#"{"code":-32603,"message":"x"}"#, &Limits::default()).unwrap();
    let payloads = [
        Payload::None,
        Payload::InputRequests(requests),
        Payload::Result(result),
        Payload::Error(error),
    ];
    for status in Status::ALL {
        for payload in payloads {
            let mut out = [0u8; 512];
            let mut w = Writer::new(&mut out);
            let wrote = write_got(&mut w, Id::Num(1), &task(status), payload);
            let len = w.finish().expect("fits");
            let legal = matches!(
                (status, payload),
                (Status::Working | Status::Cancelled, Payload::None)
                    | (Status::InputRequired, Payload::InputRequests(_))
                    | (Status::Completed, Payload::Result(_))
                    | (Status::Failed, Payload::Error(_))
            );
            assert_eq!(wrote.is_ok(), legal, "{status:?} with {payload:?}");
            if !legal {
                assert_eq!(len, 0, "nothing is written for a mismatch");
                continue;
            }
            let v: serde_json::Value = serde_json::from_slice(&out[..len]).unwrap();
            let r = &v["result"];
            assert_eq!(r["resultType"], "complete");
            assert_eq!(r["status"], status.name());
            let has = |k: &str| r.get(k).is_some();
            assert_eq!(has("inputRequests"), status == Status::InputRequired);
            assert_eq!(has("result"), status == Status::Completed);
            assert_eq!(has("error"), status == Status::Failed);
        }
    }
}

#[test]
fn a_detailed_task_can_stand_inside_a_notification() {
    let v = written(|w| {
        let t = Task {
            poll_interval_ms: Some(500),
            ttl_ms: Some(1),
            ..task(Status::Cancelled)
        };
        write_detailed(w, &t, Payload::None, |_| {}).unwrap();
    });
    assert!(v.get("resultType").is_none(), "{v}");
    assert_eq!(v["pollIntervalMs"], 500);
    assert_eq!(v["ttlMs"], 1);
}

fn object(text: &str) -> crate::json::Object<'_> {
    parse(text.as_bytes(), &Limits::default())
        .unwrap()
        .as_object()
        .unwrap()
}

#[test]
fn the_extension_is_declared_on_the_request_before_anything_else_is_read() {
    use crate::protocol::ClientCapabilities as C;
    let bad = object(r#"{"taskId":7}"#);
    // Undeclared comes first, even for params that would be refused.
    for method in [TaskMethod::Get, TaskMethod::Update, TaskMethod::Cancel] {
        let refused = read_request(method, Some(bad), C::ROOTS).unwrap_err();
        assert_eq!(refused, Refusal::Undeclared);
        let refused = read_request(method, Some(bad), C::TASKS).unwrap_err();
        assert_eq!(refused, Refusal::InvalidParams("taskId must be a string"));
    }
    let get = read_request(
        TaskMethod::Get,
        Some(object(r#"{"taskId":"t-1"}"#)),
        C::TASKS,
    )
    .unwrap();
    assert!(get.task_id.eq_str("t-1") && get.input_responses.is_none());
    let no_responses = object(r#"{"taskId":"t-1"}"#);
    assert_eq!(
        read_request(TaskMethod::Update, Some(no_responses), C::TASKS).unwrap_err(),
        Refusal::InvalidParams("inputResponses must be an object")
    );
    let update = object(r#"{"taskId":"t-1","inputResponses":{"a":{"action":"decline"}}}"#);
    let update = read_request(TaskMethod::Update, Some(update), C::TASKS).unwrap();
    assert!(update.input_responses.is_some_and(|r| r.get("a").is_some()));
}

#[test]
fn refusals_name_what_the_client_lacks_and_unknown_tasks_say_nothing_more() {
    let v = written(|w| write_refusal(w, Some(Id::Num(3)), Refusal::Undeclared));
    assert_eq!(v["error"]["code"], -32021);
    assert_eq!(
        v["error"]["data"]["requiredCapabilities"],
        serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    let v = written(|w| write_unknown_task(w, Some(Id::Num(3))));
    assert_eq!(v["error"]["code"], -32602);
    assert_eq!(v["error"]["message"], "Unknown task");
    assert!(v["error"].get("data").is_none());
}

#[test]
fn only_the_three_methods_are_task_methods() {
    for (text, method) in [
        (r#""tasks/get""#, Some(TaskMethod::Get)),
        (r#""tasks/update""#, Some(TaskMethod::Update)),
        (r#""tasks/cancel""#, Some(TaskMethod::Cancel)),
        (r#""tasks/result""#, None),
        (r#""tasks/list""#, None),
    ] {
        let name = parse(text.as_bytes(), &Limits::default()).unwrap();
        assert_eq!(TaskMethod::of(name.as_str().unwrap()), method, "{text}");
    }
}

/// Routing: which calls are offered a task, and what the extension's methods get.
mod routing {
    use std::format;
    use std::string::String;

    use crate::server::{
        Accepted, Config, Done, Error, Handled, Handler, Registry, Round, Server, TaskSupport,
        Tool, ToolCall, ToolReply,
    };
    use crate::tasks::TaskPhase;

    const TOOLS: &[Tool<'static>] = &[
        Tool::new("plain"),
        Tool::new("optional").task_support(TaskSupport::Optional),
        Tool::new("required").task_support(TaskSupport::Required),
    ];

    /// Becomes a task whenever it is offered one; otherwise says where it ran.
    struct App(&'static [Tool<'static>]);

    impl Registry for App {
        fn tools(&self) -> &[Tool<'_>] {
            self.0
        }
    }

    impl Handler for App {
        fn call_tool<'o>(
            &self,
            call: &ToolCall<'_>,
            reply: ToolReply<'o>,
        ) -> Result<Done<'o>, Error> {
            Ok(match call.task_phase() {
                TaskPhase::Offered(offer) => reply.into_task(offer),
                TaskPhase::Running => reply.text("as the task"),
                TaskPhase::Unavailable => reply.text("in the request"),
            })
        }
    }

    const DECLARED: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

    fn request(method: &str, params: &str, capabilities: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{capabilities}}}{params}}}}}"#
        )
    }

    fn call(name: &str, capabilities: &str) -> String {
        request("tools/call", &format!(r#","name":"{name}""#), capabilities)
    }

    /// What one synchronous round answers: the reply's text, or what became of the call.
    fn round(tools: &'static [Tool<'static>], input: &str) -> Result<String, String> {
        let server = Server::new(Config::new("s", "1"), App(tools)).expect("valid");
        let mut out = [0u8; 2048];
        match server.handle(input.as_bytes(), Round::anonymous(1), &mut out, None) {
            Ok(Handled::Reply(n)) => Ok(String::from_utf8(out[..n].to_vec()).unwrap()),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn only_a_request_that_declares_the_extension_is_offered_a_task() {
        assert_eq!(
            round(TOOLS, &call("optional", DECLARED)),
            Err("Ok(BecameTask)".into())
        );
        assert_eq!(
            round(TOOLS, &call("required", DECLARED)),
            Err("Ok(BecameTask)".into())
        );
        let undeclared = round(TOOLS, &call("optional", "{}")).unwrap();
        assert!(undeclared.contains("in the request"), "{undeclared}");
        let plain = round(TOOLS, &call("plain", DECLARED)).unwrap();
        assert!(plain.contains("in the request"), "{plain}");
    }

    #[test]
    fn a_tool_that_requires_a_task_refuses_an_undeclared_request_before_it_runs() {
        let refused: serde_json::Value =
            serde_json::from_str(&round(TOOLS, &call("required", "{}")).unwrap()).unwrap();
        assert_eq!(refused["error"]["code"], -32021);
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
            serde_json::json!({})
        );
    }

    #[test]
    fn a_call_entered_as_a_task_runs_as_one_and_others_cannot_enter() {
        let server = Server::new(Config::new("s", "1"), App(TOOLS)).expect("valid");
        let mut out = [0u8; 2048];
        for (input, enters) in [
            (call("optional", DECLARED), true),
            (call("optional", "{}"), false),
            (call("plain", DECLARED), false),
        ] {
            let Ok(Accepted::Call(mut accepted)) =
                server.accept(input.as_bytes(), Round::anonymous(1), &mut out)
            else {
                panic!("a call");
            };
            assert_eq!(accepted.enter_task(), enters, "{input}");
            assert_eq!(
                accepted.context().task_phase() == TaskPhase::Running,
                enters
            );
        }
    }

    #[test]
    fn task_methods_are_served_only_beside_task_tools_and_only_to_declaring_requests() {
        let get = |caps| request("tasks/get", r#","taskId":"abc""#, caps);
        let server = Server::new(Config::new("s", "1"), App(TOOLS)).expect("valid");
        let mut out = [0u8; 2048];
        let declared = get(DECLARED);
        match server.accept(declared.as_bytes(), Round::anonymous(1), &mut out) {
            Ok(Accepted::Task { request, .. }) => assert!(request.task_id.eq_str("abc")),
            other => panic!("{other:?}"),
        }
        let undeclared = round(TOOLS, &get("{}")).unwrap();
        assert!(undeclared.contains("-32021"), "{undeclared}");
        // Without a task tool the methods do not exist, and neither do the removed ones.
        const PLAIN: &[Tool<'static>] = &[Tool::new("plain")];
        assert!(round(PLAIN, &get(DECLARED)).unwrap().contains("-32601"));
        for removed in ["tasks/result", "tasks/list"] {
            let answer = round(TOOLS, &request(removed, r#","taskId":"abc""#, DECLARED)).unwrap();
            assert!(answer.contains("-32601"), "{removed}: {answer}");
        }
    }

    #[test]
    fn discovery_advertises_the_extension_only_beside_task_tools() {
        let discover = request("server/discover", "", "{}");
        let extensions = |tools| {
            let reply: serde_json::Value =
                serde_json::from_str(&round(tools, &discover).unwrap()).unwrap();
            reply["result"]["capabilities"].get("extensions").cloned()
        };
        assert_eq!(
            extensions(TOOLS),
            Some(serde_json::json!({"io.modelcontextprotocol/tasks": {}}))
        );
        const PLAIN: &[Tool<'static>] = &[Tool::new("plain")];
        assert_eq!(extensions(PLAIN), None);
    }
}
