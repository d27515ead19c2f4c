//! A structure-aware sequence of MRTR rounds against the example application's preference
//! flow (its own `flow.rs` and `mrtr_app.rs`, included as the tests include them).
//!
//! The fuzz input is read as a script: a first call to one of the flow's tools
//! (`preference_preview`, `reset_preview`, `url_preview`), its resource
//! (`preview://preferences`) or its prompt (`preference_prompt`), with chosen client
//! capabilities, then a few retries. Each retry has a fresh or arbitrary id, answers under
//! the flow's keys or arbitrary keys (well-formed elicitation answers, or arbitrary JSON),
//! the state from the last reply echoed as is, mutated, replaced by an arbitrary string or by
//! a non-string, or left out; and possibly changed arguments, capabilities, principal and
//! time (forward past the TTL, or backward).
//!
//! Never a panic, and for every round:
//! - the reply is one JSON-RPC response that `serde_json` parses, ASCII only, answering the
//!   request's id, with exactly one of `result` or `error`;
//! - a result is `complete` or `input_required`; an `input_required` result carries
//!   `inputRequests` or `requestState`, and asks only for elicitation modes this round's
//!   capabilities declare;
//! - an error is never a handler's echo of the client's data: no error contains the marker
//!   every generated answer string carries;
//! - a state that does not open is the one -32602 "Invalid request state" without data;
//! - a too-small output buffer is reported with the size needed, and that size is enough.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::arbitrary::{Result as ArbitraryResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use snodo_core::server::{
    Config, Done, Error, Handled, Handler, Principal, Prompt, PromptGet, PromptReply, Registry,
    Resource, ResourceRead, ResourceReply, Round, Server, Tool, ToolCall, ToolReply,
};
use snodo_core::state::{Keys, StateOptions};

#[path = "../../std-adapters/examples/preferences_bytes/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences_bytes/mrtr_app.rs"]
mod mrtr_app;

// ---------------------------------------------------------------------------------------------
// The example application

struct App;

impl Registry for App {
    fn tools(&self) -> &[Tool<'_>] {
        &mrtr_app::TOOLS
    }
    fn resources(&self) -> &[Resource<'_>] {
        std::slice::from_ref(&mrtr_app::RESOURCE)
    }
    fn prompts(&self) -> &[Prompt<'_>] {
        std::slice::from_ref(&mrtr_app::PROMPT)
    }
}

impl Handler for App {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        mrtr_app::call_tool(call, reply).unwrap_or(Err(Error::internal("unknown tool")))
    }
    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        mrtr_app::read_resource(call, reply)
    }
    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        mrtr_app::get_prompt(call, reply)
    }
}

static STATE: LazyLock<StateOptions> = LazyLock::new(|| {
    StateOptions::new(Keys::secret(b"fuzz rounds: a secret of 32 byte").expect("32 bytes"))
});

static SERVER: LazyLock<Server<'static, App>> = LazyLock::new(|| {
    Server::new(Config::new("fuzz-rounds", "0").with_state(&STATE), App).expect("valid definitions")
});

/// The time of the first round; later rounds move from here.
const START: u64 = 1_780_000_000;

/// Every string an answer carries starts with this, so an error that echoed one is caught.
const MARKER: &str = "zqfz";

const PRINCIPALS: [Principal<'static>; 3] = [
    Principal::Anonymous,
    Principal::Id("alice"),
    Principal::Id("bob"),
];

// ---------------------------------------------------------------------------------------------
// Building the script from the input

/// Which operation the sequence is about.
#[derive(Clone, Copy)]
enum Target {
    Preview,
    Reset,
    Url,
    Resource,
    Prompt,
}

impl Target {
    fn pick(u: &mut Unstructured<'_>) -> ArbitraryResult<Self> {
        Ok(match u.int_in_range(0u8..=4)? {
            0 => Target::Preview,
            1 => Target::Reset,
            2 => Target::Url,
            3 => Target::Resource,
            _ => Target::Prompt,
        })
    }

    fn method(self) -> &'static str {
        match self {
            Target::Preview | Target::Reset | Target::Url => "tools/call",
            Target::Resource => "resources/read",
            Target::Prompt => "prompts/get",
        }
    }

    /// The params of a call; `variant` changes the arguments.
    fn params(self, u: &mut Unstructured<'_>, variant: u8) -> ArbitraryResult<Value> {
        let subject = match variant % 4 {
            0 => json!("desk lamp"),
            1 => json!("floor lamp"),
            2 => Value::String(short_string(u)?),
            _ => arbitrary_json(u, 2)?,
        };
        Ok(match self {
            Target::Preview => {
                let mut arguments = Map::new();
                if variant % 5 != 4 {
                    arguments.insert("subject".into(), subject);
                }
                if variant % 7 == 6 {
                    arguments.insert(short_string(u)?, arbitrary_json(u, 2)?);
                }
                json!({"name": "preference_preview", "arguments": arguments})
            }
            Target::Reset => json!({"name": "reset_preview"}),
            Target::Url => json!({"name": "url_preview"}),
            Target::Resource => json!({"uri": "preview://preferences"}),
            Target::Prompt => {
                if variant % 3 == 2 {
                    json!({"name": "preference_prompt"})
                } else {
                    json!({"name": "preference_prompt", "arguments": {"subject": subject}})
                }
            }
        })
    }
}

/// Client capabilities as bits: form, url, sampling, roots, and `elicitation: {}`.
#[derive(Clone, Copy)]
struct Caps(u8);

impl Caps {
    fn form(self) -> bool {
        self.0 & 1 != 0 || self.0 & 16 != 0
    }

    fn url(self) -> bool {
        self.0 & 2 != 0
    }

    fn to_json(self) -> Value {
        let mut caps = Map::new();
        if self.0 & 16 != 0 && self.0 & 3 == 0 {
            caps.insert("elicitation".into(), json!({}));
        } else if self.0 & 3 != 0 {
            let mut e = Map::new();
            if self.0 & 1 != 0 {
                e.insert("form".into(), json!({}));
            }
            if self.0 & 2 != 0 {
                e.insert("url".into(), json!({}));
            }
            if self.0 & 16 != 0 {
                e.insert("form".into(), json!({}));
            }
            caps.insert("elicitation".into(), Value::Object(e));
        }
        if self.0 & 4 != 0 {
            caps.insert("sampling".into(), json!({}));
        }
        if self.0 & 8 != 0 {
            caps.insert("roots".into(), json!({}));
        }
        Value::Object(caps)
    }
}

fn short_string(u: &mut Unstructured<'_>) -> ArbitraryResult<String> {
    let len = u.int_in_range(0usize..=12)?;
    let mut s = String::new();
    for _ in 0..len {
        let c = match u.int_in_range(0u8..=5)? {
            0 => char::from(u.int_in_range(b'a'..=b'z')?),
            1 => char::from(u.int_in_range(0u8..=0x1f)?),
            2 => '"',
            3 => '\\',
            4 => char::from_u32(u.int_in_range(0x80u32..=0x1_0FFF)?).unwrap_or('é'),
            _ => char::from(u.int_in_range(b' '..=b'~')?),
        };
        s.push(c);
    }
    Ok(s)
}

/// A string an answer carries: always with the marker.
fn marked_string(u: &mut Unstructured<'_>) -> ArbitraryResult<String> {
    Ok(format!("{MARKER}{}", short_string(u)?))
}

/// An arbitrary JSON value whose strings carry the marker.
fn arbitrary_json(u: &mut Unstructured<'_>, depth: u8) -> ArbitraryResult<Value> {
    let kind = if depth == 0 {
        u.int_in_range(0u8..=4)?
    } else {
        u.int_in_range(0u8..=6)?
    };
    Ok(match kind {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => serde_json::Number::from_f64(u.arbitrary::<f64>()?)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        4 => Value::String(marked_string(u)?),
        5 => {
            let n = u.int_in_range(0usize..=3)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(arbitrary_json(u, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => {
            let n = u.int_in_range(0usize..=3)?;
            let mut members = Map::new();
            for _ in 0..n {
                members.insert(key(u)?, arbitrary_json(u, depth - 1)?);
            }
            Value::Object(members)
        }
    })
}

/// A key: one the flow reads, a protocol word, or arbitrary.
fn key(u: &mut Unstructured<'_>) -> ArbitraryResult<String> {
    const KEYS: [&str; 9] = [
        "color", "style", "label", "consent", "action", "content", "stage", "subject", "",
    ];
    Ok(match u.int_in_range(0u8..=3)? {
        0 => short_string(u)?,
        _ => KEYS[u.choose_index(KEYS.len())?].to_string(),
    })
}

/// An answer: a well-formed elicitation result (maybe with content that breaks the form), or
/// arbitrary JSON.
fn answer(u: &mut Unstructured<'_>, key: &str) -> ArbitraryResult<Value> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 => json!({"action": "accept", "content": {key: marked_string(u)?}}),
        1 => json!({"action": "decline"}),
        2 => json!({"action": "cancel"}),
        3 => {
            let action = ["accept", "decline", "cancel", "Accept", ""][u.choose_index(5)?];
            json!({"action": action, "content": arbitrary_json(u, 2)?})
        }
        4 => json!({"action": "accept", "content": {key: arbitrary_json(u, 1)?}}),
        _ => arbitrary_json(u, 3)?,
    })
}

/// `inputResponses` for a retry: usually an object of answers under flow keys, sometimes
/// anything at all.
fn responses(u: &mut Unstructured<'_>) -> ArbitraryResult<Option<Value>> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => None,
        1 => Some(arbitrary_json(u, 3)?),
        _ => {
            let n = u.int_in_range(0usize..=4)?;
            let mut members = Map::new();
            for _ in 0..n {
                let k = key(u)?;
                let v = answer(u, &k)?;
                members.insert(k, v);
            }
            Some(Value::Object(members))
        }
    })
}

/// `requestState` for a retry, from the last state the server sent.
fn state(u: &mut Unstructured<'_>, last: Option<&str>) -> ArbitraryResult<Option<Value>> {
    let echo = |s: &str| Some(Value::String(s.to_string()));
    Ok(match (u.int_in_range(0u8..=9)?, last) {
        (0..=4, Some(last)) => echo(last),
        (5, Some(last)) if !last.is_empty() => {
            // One byte changed to another base64url character or a separator.
            let mut bytes = last.as_bytes().to_vec();
            let i = u.choose_index(bytes.len())?;
            const ALPHABET: &[u8] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
            bytes[i] = ALPHABET[u.choose_index(ALPHABET.len())?];
            String::from_utf8(bytes).ok().map(Value::String)
        }
        (6, Some(last)) => {
            let cut = u.int_in_range(0..=last.len())?;
            echo(last.get(..cut).unwrap_or(last))
        }
        (7, Some(last)) => echo(&format!("{last}{}", short_string(u)?)),
        (8, _) => Some(Value::String(short_string(u)?)),
        (9, _) => Some(arbitrary_json(u, 1)?),
        _ => None,
    })
}

// ---------------------------------------------------------------------------------------------
// One round and its checks

/// Runs `request` at `round` and checks the reply; returns the `requestState` of an
/// `input_required` reply.
fn run(request: &Value, round: Round<'_>, caps: Caps, small: bool) -> Option<String> {
    let input = serde_json::to_vec(request).expect("a JSON value serializes");
    let mut out = vec![0u8; 64 * 1024];
    if small {
        let mut tiny = [0u8; 96];
        match SERVER.handle(&input, round, &mut tiny, None) {
            Ok(_) => {}
            Err(too_small) => {
                let mut enough = vec![0u8; too_small.required];
                let handled = SERVER.handle(&input, round, &mut enough, None);
                assert!(handled.is_ok(), "the size the core asked for is not enough");
            }
        }
    }
    let n = match SERVER.handle(&input, round, &mut out, None) {
        Ok(Handled::Reply(n)) => n,
        Ok(other) => panic!("a request got no reply: {:?}", other),
        Err(e) => panic!("a 64 KiB buffer is too small ({e:?})"),
    };
    let bytes = &out[..n];
    assert!(bytes.is_ascii(), "non-ASCII output");
    let reply: Value = serde_json::from_slice(bytes).expect("every reply is valid JSON");
    assert_eq!(reply["jsonrpc"], json!("2.0"));
    assert_eq!(
        reply["id"], request["id"],
        "the reply answers the request's id"
    );
    match (reply.get("result"), reply.get("error")) {
        (Some(result), None) => check_result(result, caps),
        (None, Some(error)) => {
            check_error(error);
            None
        }
        _ => panic!("exactly one of result and error: {reply}"),
    }
}

fn check_result(result: &Value, caps: Caps) -> Option<String> {
    assert!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object(),
        "every result names the server"
    );
    match result["resultType"].as_str() {
        Some("complete") => None,
        Some("input_required") => {
            let requests = result.get("inputRequests");
            let state = result.get("requestState");
            assert!(
                requests.is_some() || state.is_some(),
                "input_required needs inputRequests or requestState"
            );
            assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
            if let Some(requests) = requests {
                let requests = requests.as_object().expect("inputRequests is an object");
                for request in requests.values() {
                    assert_eq!(request["method"], json!("elicitation/create"));
                    match request["params"]["mode"].as_str() {
                        Some("form") => assert!(caps.form(), "form asked of a client without it"),
                        Some("url") => assert!(caps.url(), "url asked of a client without it"),
                        other => panic!("unknown elicitation mode {other:?}"),
                    }
                }
            }
            state.map(|s| s.as_str().expect("requestState is a string").to_string())
        }
        other => panic!("unknown resultType {other:?}"),
    }
}

fn check_error(error: &Value) {
    assert!(error["code"].is_i64(), "an integer code");
    let message = error["message"].as_str().expect("a string message");
    assert!(
        !error.to_string().contains(MARKER),
        "an error echoed the client's answer: {error}"
    );
    if message == "Invalid request state" {
        assert_eq!(error["code"], json!(-32602));
        assert!(error.get("data").is_none(), "invalid state carries no data");
    }
}

// ---------------------------------------------------------------------------------------------
// The sequence

fn request(id: Value, method: &str, mut params: Value, caps: Caps) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps.to_json(),
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn sequence(u: &mut Unstructured<'_>) -> ArbitraryResult<()> {
    let target = Target::pick(u)?;
    let mut caps = Caps(u.arbitrary()?);
    let mut principal = PRINCIPALS[u.choose_index(PRINCIPALS.len())?];
    let mut now = START;
    let mut variant = 0u8;
    let base = target.params(u, variant)?;
    let small = u.ratio(1u8, 8)?;
    let first = request(json!(1), target.method(), base.clone(), caps);
    let mut last_state = run(&first, Round { now, principal }, caps, small);
    let mut params = base;

    let retries = u.int_in_range(1u8..=6)?;
    for n in 0..retries {
        // Fresh ids mostly; sometimes a string id, sometimes a reused one.
        let id = match u.int_in_range(0u8..=5)? {
            0 => json!(format!("retry-{n}")),
            1 => json!(1),
            _ => json!(i64::from(n) + 2),
        };
        // Sometimes the arguments, capabilities, principal or time change.
        if u.ratio(1u8, 6)? {
            variant = u.arbitrary()?;
            params = target.params(u, variant)?;
        }
        if u.ratio(1u8, 5)? {
            caps = Caps(u.arbitrary()?);
        }
        if u.ratio(1u8, 8)? {
            principal = PRINCIPALS[u.choose_index(PRINCIPALS.len())?];
        }
        now = match u.int_in_range(0u8..=7)? {
            0 => now.saturating_sub(u64::from(u.int_in_range(1u16..=600)?)),
            1 => now + 300,
            2 => now + u64::from(u.arbitrary::<u16>()?),
            _ => now + u64::from(u.int_in_range(0u8..=30)?),
        };
        let mut retry = params.clone();
        if let Some(state) = state(u, last_state.as_deref())? {
            retry["requestState"] = state;
        }
        if let Some(responses) = responses(u)? {
            retry["inputResponses"] = responses;
        }
        let input = request(id, target.method(), retry, caps);
        last_state = run(&input, Round { now, principal }, caps, small).or(last_state);
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = sequence(&mut u);
});
