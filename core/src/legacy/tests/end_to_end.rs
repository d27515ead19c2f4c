//! One MRTR handler, written once for 2026-07-28, serving a legacy client through the
//! bridge: the real server runs every leg, the legacy pieces do everything around it.

use super::{message, written};
use crate::json::{Limits, Writer};
use crate::legacy::*;
use crate::mrtr::{CreateMessage, Elicitation, ListRoots, Response};
use crate::rpc::Incoming;
use crate::server::{
    Config, Done, Error, Handled, Handler, Registry, Round, Server, ServerCapabilities, Tool,
    ToolCall, ToolReply,
};
use crate::state::{Keys, OPEN_SCRATCH_LEN, StateOptions};
use std::string::String;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("preference").input_schema(r#"{"type":"object"}"#),
    Tool::new("noisy").input_schema(r#"{"type":"object"}"#),
    Tool::new("two_steps").input_schema(r#"{"type":"object"}"#),
    Tool::new("mixed").input_schema(r#"{"type":"object"}"#),
];

const SIZE_FORM: &str =
    r#"{"type":"object","properties":{"size":{"type":"integer"}},"required":["size"]}"#;

const COLOR_FORM: &str =
    r#"{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}"#;

/// The preference flow: ask for a color (sealing the step reached), finish on the retry.
#[derive(Debug)]
struct Preferences;

impl Registry for Preferences {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl Handler for Preferences {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        if call.name() == "noisy" {
            let full = |_| Error::internal("no room");
            reply.progress(1.0, Some(2.0), None).map_err(full)?;
            reply
                .log(
                    crate::protocol::LogLevel::Info,
                    None,
                    format_args!("working"),
                )
                .map_err(full)?;
            return Ok(reply.text("done"));
        }
        if call.name() == "two_steps" {
            return two_steps(call, reply);
        }
        if call.name() == "mixed" {
            return mixed(call, reply);
        }
        let ask =
            Elicitation::form("Choose a color", COLOR_FORM).map_err(|_| Error::internal("form"))?;
        let mut scratch = [0u8; OPEN_SCRATCH_LEN];
        let state = call.open_state(&mut scratch)?;
        match call.response("color", &ask)? {
            Response::Answered(a) if a.accepted() => {
                let mut buf = [0u8; 32];
                let color = a.str("color")?.decode_into(&mut buf).unwrap_or("?");
                let step = state.and_then(|s| s.get("step")).and_then(|v| v.as_u64());
                Ok(reply.text_fmt(format_args!("color {color} at step {}", step.unwrap_or(0))))
            }
            Response::Answered(a) => Ok(reply.text_fmt(format_args!("{:?}", a.action()))),
            Response::Missing => reply
                .input_required()
                .request("color", ask)
                .seal(br#"{"step":1}"#),
        }
    }
}

/// Two legs: a color, then a size; the color travels in sealed state to the second leg,
/// whose retry carries only the size.
fn two_steps<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let form = |m, s| Elicitation::form(m, s).map_err(|_| Error::internal("form"));
    let (color_ask, size_ask) = (form("Color?", COLOR_FORM)?, form("Size?", SIZE_FORM)?);
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    let state = call.open_state(&mut scratch)?;
    let mut buf = [0u8; 32];
    let kept = state.and_then(|s| s.get("color")).and_then(|c| c.as_str());
    if let (Some(color), Response::Answered(size)) = (kept, call.response("size", &size_ask)?) {
        let color = color.decode_into(&mut buf).unwrap_or("?");
        let size = size.get("size").and_then(|v| v.as_i64()).unwrap_or(0);
        return Ok(reply.text_fmt(format_args!("{color} in size {size}")));
    }
    match call.response("color", &color_ask)? {
        Response::Answered(a) if a.accepted() => {
            let color = a.str("color")?.decode_into(&mut buf).unwrap_or("?");
            let mut data = [0u8; 64];
            let mut w = Writer::new(&mut data);
            w.object(|o| {
                o.str("color", color);
            });
            let n = w.finish().map_err(|_| Error::internal("state"))?;
            reply
                .input_required()
                .request("size", size_ask)
                .seal(&data[..n])
        }
        _ => reply
            .input_required()
            .request("color", color_ask)
            .seal(b"{}"),
    }
}

const SAMPLE: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Name a color"}}],"maxTokens":10}"#;

/// One leg of every other kind: a URL elicitation, a sampling request and the roots.
fn mixed<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let link = Elicitation::url("Sign in", "https://example.com/login")
        .map_err(|_| Error::internal("url"))?;
    let sample = CreateMessage::new(SAMPLE).map_err(|_| Error::internal("sampling"))?;
    let answers = (
        call.response("link", &link)?,
        call.response("sample", &sample)?,
        call.response("roots", &ListRoots)?,
    );
    let (Response::Answered(link), Response::Answered(sample), Response::Answered(roots)) = answers
    else {
        return reply
            .input_required()
            .request("link", link)
            .request("sample", sample)
            .request("roots", ListRoots)
            .seal(b"{}");
    };
    let mut buf = [0u8; 32];
    let text = sample.text().and_then(|t| t.decode_into(&mut buf));
    Ok(reply.text_fmt(format_args!(
        "{:?}, {}, {} roots",
        link.action(),
        text.unwrap_or("-"),
        roots.len()
    )))
}

/// The server's side: runs one modern message and returns its reply.
pub(super) struct Host {
    server: Server<'static, Preferences>,
}

impl Host {
    pub(super) fn new() -> Self {
        let state: &'static StateOptions = std::boxed::Box::leak(std::boxed::Box::new(
            StateOptions::new(Keys::ring(&[("k1", &[0x42; 32][..])]).expect("keys")),
        ));
        let server = Server::new(Config::new("e2e", "1").with_state(state), Preferences)
            .expect("valid definitions");
        Host { server }
    }

    pub(super) fn run(&self, modern: &[u8]) -> std::vec::Vec<u8> {
        self.run_noting(modern, &mut Notes::default())
    }

    fn run_noting(&self, modern: &[u8], notes: &mut Notes) -> std::vec::Vec<u8> {
        let mut out = std::vec![0u8; 8192];
        let round = Round::anonymous(1_700_000_000);
        match self.server.handle(modern, round, &mut out, Some(notes)) {
            Ok(Handled::Reply(n)) => out[..n].to_vec(),
            other => panic!("{other:?}"),
        }
    }
}

/// The notifications a round sent, as text.
#[derive(Default)]
struct Notes(std::vec::Vec<String>);

impl crate::server::Notifier for Notes {
    fn notify(&mut self, message: &[u8]) {
        self.0
            .push(String::from_utf8(message.to_vec()).expect("ASCII"));
    }
}

fn lifted(session: &Session, text: &str) -> std::vec::Vec<u8> {
    let Incoming::Request(request) = message(text) else {
        panic!()
    };
    written(|w| lift_request(&request, session, w)).into_bytes()
}

fn settle_text(reply: &[u8]) -> (Settled, String) {
    let mut settled = None;
    let text = written(|w| settled = Some(settle(reply, &Limits::default(), w).unwrap()));
    (settled.unwrap(), text)
}

pub(super) const CALL: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"preference","arguments":{}}}"#;

pub(super) fn open_session(capabilities: &str) -> Session {
    let init = std::format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"clientInfo":{{"name":"legacy-client","version":"2.4.0"}}}}}}"#
    );
    let mut gate = EraGate::new(EraSupport::Both);
    assert_eq!(gate.admit(&message(&init)), Ok(Era::Legacy));
    let Incoming::Request(request) = message(&init) else {
        panic!()
    };
    let mut session = parse_initialize(request.params).unwrap();
    let initialized = message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let mut buf = [0u8; 8];
    session.step(
        &initialized,
        ServerCapabilities::default(),
        &mut Writer::new(&mut buf),
    );
    session
}

#[test]
fn the_preference_flow_runs_for_a_legacy_client() {
    let host = Host::new();
    let mut session = open_session(r#"{"elicitation":{}}"#);
    let served = ServerCapabilities {
        tools: true,
        ..ServerCapabilities::default()
    };
    let call = message(CALL);
    let mut scratch = [0u8; 64];
    let Step::Modern { request, .. } = session.step(&call, served, &mut Writer::new(&mut scratch))
    else {
        panic!("a modern method")
    };
    let first = written(|w| lift_request(&request, &session, w)).into_bytes();
    let reply = host.run(&first);
    assert_eq!(settle_text(&reply), (Settled::InputRequired, String::new()));

    let limits = BridgeLimits::HOST;
    let mut leg: Leg = Leg::open(&reply, &mut session, &limits, 1).unwrap();
    assert_eq!(leg.len(), 1);
    let out = written(|w| leg.write_request(0, &reply, &limits, w).unwrap());
    assert_eq!(
        out,
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","method":"elicitation/create","params":{"mode":"form","message":"Choose a color","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}"#
    );

    let answer = parse_response(
        br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"teal"}}}"#,
        &Limits::default(),
    )
    .unwrap();
    let mut store = [0u8; 256];
    assert!(matches!(
        leg.accept(&answer, &mut store),
        Ok(Accepted::Complete)
    ));
    let retry = written(|w| leg.write_retry(&first, &reply, &store, &limits, w).unwrap());
    let done = host.run(retry.as_bytes());
    // The sealed state opened on the retry (step 1), and the result is in the 2025 shape.
    assert_eq!(
        settle_text(&done),
        (
            Settled::Final,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"color teal at step 1"}]}}"#.into()
        )
    );
}

#[test]
fn a_declined_answer_reaches_the_handler() {
    let host = Host::new();
    let mut session = open_session(r#"{"elicitation":{"form":{}}}"#);
    let first = lifted(&session, CALL);
    let reply = host.run(&first);
    let limits = BridgeLimits::HOST;
    let mut leg: Leg = Leg::open(&reply, &mut session, &limits, 1).unwrap();
    let declined = parse_response(
        br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"decline"}}"#,
        &Limits::default(),
    )
    .unwrap();
    let mut store = [0u8; 64];
    leg.accept(&declined, &mut store).unwrap();
    let retry = written(|w| leg.write_retry(&first, &reply, &store, &limits, w).unwrap());
    assert_eq!(
        settle_text(&host.run(retry.as_bytes())).1,
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Decline"}]}}"#
    );
}

#[test]
fn a_client_without_elicitation_gets_a_legacy_error_naming_it() {
    let host = Host::new();
    let session = open_session(r#"{"roots":{}}"#);
    let reply = host.run(&lifted(&session, CALL));
    assert_eq!(
        settle_text(&reply),
        (
            Settled::Final,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Client does not support elicitation.form (required by this request)","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}"#.into()
        )
    );
}

#[test]
fn a_forged_state_in_a_legacy_request_never_reaches_the_handler() {
    let host = Host::new();
    let session = open_session(r#"{"elicitation":{}}"#);
    let forged = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"preference","arguments":{},"inputResponses":{"color":{"action":"accept","content":{"color":"red"}}},"requestState":"forged"}}"#;
    let reply = host.run(&lifted(&session, forged));
    // The retry fields were dropped: the handler asks, as on a first call.
    assert_eq!(settle_text(&reply).0, Settled::InputRequired);
}

#[test]
fn a_list_settles_without_the_cache_hints() {
    let host = Host::new();
    let session = open_session("{}");
    let list = lifted(
        &session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
    );
    assert_eq!(
        settle_text(&host.run(&list)),
        (
            Settled::Final,
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"preference","inputSchema":{"type":"object"}},{"name":"noisy","inputSchema":{"type":"object"}},{"name":"two_steps","inputSchema":{"type":"object"}},{"name":"mixed","inputSchema":{"type":"object"}}]}}"#.into()
        )
    );
}

#[test]
fn progress_and_the_session_log_level_reach_the_handler() {
    let host = Host::new();
    let mut session = open_session("{}");
    let call = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"noisy","arguments":{},"_meta":{"progressToken":7}}}"#;
    // No level set: progress only.
    let mut notes = Notes::default();
    host.run_noting(&lifted(&session, call), &mut notes);
    assert_eq!(
        notes.0,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1.0,"total":2.0}}"#
        ]
    );
    let served = ServerCapabilities {
        logging: true,
        ..ServerCapabilities::default()
    };
    let set = message(
        r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug"}}"#,
    );
    let mut buf = [0u8; 64];
    session.step(&set, served, &mut Writer::new(&mut buf));
    let mut notes = Notes::default();
    let reply = host.run_noting(&lifted(&session, call), &mut notes);
    assert_eq!(notes.0.len(), 2);
    assert_eq!(
        notes.0[1],
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}"#
    );
    assert_eq!(
        settle_text(&reply).1,
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}"#
    );
}

#[test]
fn a_flow_of_two_legs_keeps_its_state_between_them() {
    let host = Host::new();
    let mut session = open_session(r#"{"elicitation":{}}"#);
    let limits = BridgeLimits::HOST;
    let mut request = lifted(
        &session,
        r#"{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"two_steps","arguments":{}}}"#,
    );
    let answers = [
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"teal"}}}"#,
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-2","result":{"action":"accept","content":{"size":3}}}"#,
    ];
    let mut asked = std::vec::Vec::new();
    for (round, answer) in (1..).zip(answers) {
        let reply = host.run(&request);
        assert_eq!(settle_text(&reply).0, Settled::InputRequired, "leg {round}");
        let mut leg: Leg = Leg::open(&reply, &mut session, &limits, round).unwrap();
        asked.push(written(|w| {
            leg.write_request(0, &reply, &limits, w).unwrap()
        }));
        let mut store = [0u8; 128];
        let answer = parse_response(answer.as_bytes(), &Limits::default()).unwrap();
        assert!(matches!(
            leg.accept(&answer, &mut store),
            Ok(Accepted::Complete)
        ));
        request = written(|w| {
            leg.write_retry(&request, &reply, &store, &limits, w)
                .unwrap()
        })
        .into_bytes();
    }
    assert!(asked[0].contains(r#""id":"snodo-bridge-1","method":"elicitation/create","params":{"mode":"form","message":"Color?""#));
    assert!(asked[1].contains(r#""id":"snodo-bridge-2","method":"elicitation/create","params":{"mode":"form","message":"Size?""#));
    // The second retry carries the size only; the color came back from the sealed state.
    let retry = String::from_utf8(request.clone()).unwrap();
    assert!(
        retry.contains(r#""inputResponses":{"size":{"action":"accept","content":{"size":3}}}"#)
    );
    assert!(!retry.contains("teal"));
    assert_eq!(
        settle_text(&host.run(&request)).1,
        r#"{"jsonrpc":"2.0","id":"two","result":{"content":[{"type":"text","text":"teal in size 3"}]}}"#
    );
}

#[test]
fn url_sampling_and_roots_are_bridged_in_one_leg_and_answered_together() {
    let host = Host::new();
    let mut session = open_session(r#"{"elicitation":{"url":{}},"sampling":{},"roots":{}}"#);
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mixed","arguments":{}}}"#;
    let first = lifted(&session, call);
    let reply = host.run(&first);
    assert_eq!(settle_text(&reply).0, Settled::InputRequired);

    let limits = BridgeLimits::HOST;
    let mut leg: Leg = Leg::open(&reply, &mut session, &limits, 1).unwrap();
    assert_eq!(leg.len(), 3);
    let mut sent = std::collections::BTreeMap::new();
    for index in 0..leg.len() {
        let text = written(|w| leg.write_request(index, &reply, &limits, w).unwrap());
        let request: serde_json::Value = serde_json::from_str(&text).unwrap();
        let method = String::from(request["method"].as_str().unwrap());
        sent.insert(method, request);
    }
    // Each kind as its 2025-11-25 request; the URL elicitation gains the `elicitationId`
    // that revision requires, and the sampling params pass unchanged.
    let url = &sent["elicitation/create"];
    assert_eq!(url["params"]["mode"], "url");
    assert_eq!(url["params"]["url"], "https://example.com/login");
    assert!(url["params"]["elicitationId"].is_string());
    let sampling = &sent["sampling/createMessage"];
    assert_eq!(
        sampling["params"],
        serde_json::from_str::<serde_json::Value>(SAMPLE).unwrap()
    );
    assert_eq!(sent["roots/list"]["params"], serde_json::json!({}));

    let answers = [
        (
            "elicitation/create",
            serde_json::json!({"action": "accept"}),
        ),
        (
            "sampling/createMessage",
            serde_json::json!({"role": "assistant", "content": {"type": "text", "text": "teal"}, "model": "m"}),
        ),
        (
            "roots/list",
            serde_json::json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
        ),
    ];
    let mut store = [0u8; 512];
    for (n, (method, result)) in answers.iter().enumerate() {
        let answer =
            serde_json::json!({"jsonrpc": "2.0", "id": sent[*method]["id"], "result": result});
        let bytes = serde_json::to_vec(&answer).unwrap();
        let response = parse_response(&bytes, &Limits::default()).unwrap();
        let accepted = leg.accept(&response, &mut store).unwrap();
        if n + 1 < answers.len() {
            assert!(matches!(accepted, Accepted::Waiting { .. }), "{accepted:?}");
        } else {
            assert!(matches!(accepted, Accepted::Complete), "{accepted:?}");
        }
    }
    let retry = written(|w| leg.write_retry(&first, &reply, &store, &limits, w).unwrap());
    assert_eq!(
        settle_text(&host.run(retry.as_bytes())),
        (
            Settled::Final,
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Accept, teal, 2 roots"}]}}"#.into()
        )
    );
}
