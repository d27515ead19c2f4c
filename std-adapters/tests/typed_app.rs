//! What a real typed server needs beyond its definitions: application data reaching every
//! kind of handler (flows included), `?` on any error with a message the application
//! controls, owned text in builders, and a one-time effect that a replayed final leg does
//! not repeat. Rounds run in-process; expected values follow the typed layer's documentation.

#[path = "http_client/logs.rs"]
mod logs;

use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use snodo_core::server::{Handled, Round};
use snodo_std::typed::{
    Cx, Elicited, Error, Flow, Form, Keys, MemoryReplayGuard, NoArgs, Once, PromptMessages, Server,
    ServerBuilder, Stop, ToolError, Ttl, TypedApp, prompt, questions, resource, server, tool,
};

const NOW: u64 = 1_790_000_000;
const SECRET: [u8; 32] = *b"typed application secret 32 byte";

/// The application's store: what the tools write and the resource and prompt read.
#[derive(Default)]
struct Bookings(Mutex<Vec<String>>);

impl Bookings {
    fn add(&self, slot: String) -> usize {
        let mut all = self.0.lock().expect("not poisoned");
        all.push(slot);
        all.len()
    }

    fn all(&self) -> Vec<String> {
        self.0.lock().expect("not poisoned").clone()
    }
}

#[derive(Deserialize, JsonSchema)]
struct Slot {
    slot: String,
}

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

questions! {
    static CONFIRM: Form<Confirm> = Form::new("confirm", "Book this slot?");
}

#[derive(Default, Serialize, Deserialize)]
struct Booking {}

/// Asks for a confirmation, then books once per sealed token.
async fn book(args: Slot, cx: Cx<'_>) -> Result<String, Stop> {
    let bookings = cx.data::<Bookings>()?;
    let flow = Flow::<Booking>::open(cx)?;
    match flow.ask(&CONFIRM)? {
        Elicited::Accepted(Confirm { confirm: true }) => {}
        _ => return Ok("not booked".to_owned()),
    }
    match flow.once()? {
        Once::First => {
            let n = bookings.add(args.slot.clone());
            Ok(format!("booked {} ({n})", args.slot))
        }
        Once::Replayed => Err(ToolError::new(format!("{} is already booked", args.slot)).into()),
    }
}

/// Books without asking and without a guard (a single-leg call).
async fn book_now(args: Slot, cx: Cx<'_>) -> Result<String, Stop> {
    let n = cx.data::<Bookings>()?.add(args.slot);
    Ok(format!("{n} bookings"))
}

async fn listing(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    Ok(cx.data::<Bookings>()?.all().join(","))
}

async fn summary(_: NoArgs, cx: Cx<'_>) -> Result<PromptMessages, Stop> {
    let all = cx.data::<Bookings>()?.all();
    Ok(PromptMessages::new().user(format!("Summarise {} bookings.", all.len())))
}

/// What the store does not hold.
struct Unset;

async fn needs_unset(_: NoArgs, cx: Cx<'_>) -> Result<&'static str, Stop> {
    cx.data::<Unset>()?;
    Ok("unreachable")
}

/// A path that names something private, to see that it is not echoed.
const PRIVATE_PATH: &str = "/nonexistent/snodo-private/credentials.toml";

async fn read_file(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(std::fs::read_to_string(PRIVATE_PATH)?)
}

async fn read_resource(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(std::fs::read_to_string(PRIVATE_PATH)?)
}

async fn parse(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
    let v: Value = serde_json::from_str("{not json")?;
    Ok(v.to_string())
}

async fn refuse(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
    Err(Error::invalid_params("not today"))?
}

fn definitions(builder: ServerBuilder) -> ServerBuilder {
    let region = "north";
    builder
        .state(
            Keys::secret(&SECRET).expect("32 bytes"),
            Ttl::from_secs(60).expect("in range"),
        )
        .data(Bookings::default())
        .tool(tool("book").asks(&CONFIRM).run(book))
        .tool(
            tool(String::from("book_now"))
                .title(format!("Book now ({region})"))
                .run(book_now),
        )
        .tool(tool("needs_unset").run(needs_unset))
        .tool(tool("read_file").run(read_file))
        .tool(tool("parse").run(parse))
        .tool(tool("refuse").run(refuse))
        .resource(resource("test://bookings", "bookings").read(listing))
        .resource(resource("test://private", "private").read(read_resource))
        .prompt(prompt("summary").render(summary))
}

fn app() -> Server<'static, TypedApp> {
    definitions(server("typed-app", "1.0.0"))
        .build()
        .expect("every definition is valid")
}

fn request(id: i64, method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .expect("JSON")
}

async fn round(server: &Server<'static, TypedApp>, input: &[u8]) -> Value {
    let mut out = vec![0u8; 64 * 1024];
    match snodo_std::handle(server, input, Round::anonymous(NOW), &mut out, None).await {
        Ok(Handled::Reply(n)) => serde_json::from_slice(&out[..n]).expect("JSON reply"),
        other => panic!("no reply: {other:?}"),
    }
}

async fn call(server: &Server<'static, TypedApp>, id: i64, name: &str, args: Value) -> Value {
    let params = json!({"name": name, "arguments": args});
    round(server, &request(id, "tools/call", params)).await
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or("")
}

async fn read(server: &Server<'static, TypedApp>, id: i64, uri: &str) -> Value {
    round(server, &request(id, "resources/read", json!({"uri": uri}))).await
}

/// The booking's second leg: the state of the first and a confirmation.
fn confirmed_leg(id: i64, slot: &str, state: &str) -> Vec<u8> {
    let params = json!({
        "name": "book",
        "arguments": {"slot": slot},
        "requestState": state,
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}
    });
    request(id, "tools/call", params)
}

async fn first_leg_state(server: &Server<'static, TypedApp>, id: i64, slot: &str) -> String {
    let one = call(server, id, "book", json!({"slot": slot})).await;
    assert_eq!(one["result"]["resultType"], "input_required", "{one}");
    one["result"]["requestState"]
        .as_str()
        .expect("sealed state")
        .to_owned()
}

#[tokio::test]
async fn application_data_reaches_tools_flows_resources_and_prompts() {
    let s = app();
    assert_eq!(
        text(&call(&s, 1, "book_now", json!({"slot": "mon"})).await),
        "1 bookings"
    );
    let state = first_leg_state(&s, 2, "tue").await;
    let two = round(&s, &confirmed_leg(3, "tue", &state)).await;
    assert_eq!(text(&two), "booked tue (2)");
    let listed = read(&s, 4, "test://bookings").await;
    assert_eq!(listed["result"]["contents"][0]["text"], "mon,tue");
    let summary = round(&s, &request(5, "prompts/get", json!({"name": "summary"}))).await;
    assert_eq!(
        summary["result"]["messages"][0]["content"]["text"],
        "Summarise 2 bookings."
    );
    // Each server has its own data: another one starts empty.
    let other = app();
    assert_eq!(
        text(&call(&other, 6, "book_now", json!({"slot": "x"})).await),
        "1 bookings"
    );
}

#[tokio::test]
async fn data_the_server_was_not_given_is_an_internal_error_naming_no_type() {
    let s = app();
    let reply = call(&s, 1, "needs_unset", json!({})).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or("");
    assert!(!message.contains("Unset"), "{message}");
}

#[tokio::test]
async fn a_replayed_final_leg_runs_its_effect_once() {
    let s = app();
    let state = first_leg_state(&s, 1, "wed").await;
    let first = round(&s, &confirmed_leg(2, "wed", &state)).await;
    assert_eq!(text(&first), "booked wed (1)");
    // The same final leg again, and once more with the token's characters escaped.
    let again = round(&s, &confirmed_leg(3, "wed", &state)).await;
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert_eq!(text(&again), "wed is already booked");
    let escaped = String::from_utf8(confirmed_leg(4, "wed", &state))
        .expect("UTF-8")
        .replacen(
            &state[..3],
            &format!("\\u{:04x}{}", u32::from('s'), &state[1..3]),
            1,
        );
    assert_ne!(escaped.as_bytes(), &confirmed_leg(4, "wed", &state)[..]);
    let escaped = round(&s, escaped.as_bytes()).await;
    assert_eq!(text(&escaped), "wed is already booked", "{escaped}");
    let listed = read(&s, 5, "test://bookings").await;
    assert_eq!(listed["result"]["contents"][0]["text"], "wed", "one effect");
    // A new flow for the same slot is a new booking: once is per token, not per arguments.
    let state = first_leg_state(&s, 6, "wed").await;
    assert_eq!(
        text(&round(&s, &confirmed_leg(7, "wed", &state)).await),
        "booked wed (2)"
    );
}

#[tokio::test]
async fn a_full_replay_guard_refuses_the_effect_rather_than_risk_it_twice() {
    let s = definitions(server("typed-app", "1.0.0"))
        .replay_guard(MemoryReplayGuard::new(1))
        .build()
        .expect("valid");
    let first = first_leg_state(&s, 1, "a").await;
    assert_eq!(
        text(&round(&s, &confirmed_leg(2, "a", &first)).await),
        "booked a (1)"
    );
    let second = first_leg_state(&s, 3, "b").await;
    let refused = round(&s, &confirmed_leg(4, "b", &second)).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let listed = read(&s, 5, "test://bookings").await;
    assert_eq!(listed["result"]["contents"][0]["text"], "a");
}

#[tokio::test]
async fn question_mark_on_any_error_is_a_tool_error_that_shows_nothing_of_it() {
    let s = app();
    for (id, tool) in [(1, "read_file"), (2, "parse")] {
        let reply = call(&s, id, tool, json!({})).await;
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        let said = text(&reply);
        assert!(!said.is_empty());
        assert!(!said.contains("snodo-private"), "{said}");
        assert!(!said.contains("key must be a string"), "{said}");
    }
    // A resource has no error result: -32603, with the same fixed sentence.
    let reply = read(&s, 3, "test://private").await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert!(!reply.to_string().contains("snodo-private"), "{reply}");
    // A core error keeps its JSON-RPC meaning.
    let reply = call(&s, 4, "refuse", json!({})).await;
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["message"], "not today");
}

#[tokio::test]
async fn the_application_says_what_a_failure_shows() {
    let s = definitions(server("typed-app", "1.0.0"))
        .failure_message(|e| match e.downcast_ref::<std::io::Error>() {
            Some(io) if io.kind() == std::io::ErrorKind::NotFound => "No such file".into(),
            _ => format!("Failed: {e}"),
        })
        .build()
        .expect("valid");
    assert_eq!(
        text(&call(&s, 1, "read_file", json!({})).await),
        "No such file"
    );
    assert!(
        text(&call(&s, 2, "parse", json!({})).await).starts_with("Failed: key must be a string")
    );
    let reply = read(&s, 3, "test://private").await;
    assert_eq!(reply["error"]["message"], "No such file");
}

#[tokio::test]
async fn owned_text_is_taken_by_the_builders() {
    let s = app();
    let listed = round(&s, &request(1, "tools/list", json!({}))).await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let book_now = tools
        .iter()
        .find(|t| t["name"] == "book_now")
        .expect("listed");
    assert_eq!(book_now["title"], "Book now (north)");
}

#[tokio::test]
async fn a_failure_is_logged_with_its_handler_and_error() {
    let s = app();
    let (logged, _guard) = logs::capture();
    call(&s, 1, "read_file", json!({})).await;
    let logged = logged.text();
    assert!(logged.contains("WARN"), "{logged}");
    assert!(logged.contains("read_file"), "{logged}");
    assert!(logged.contains("No such file"), "{logged}");
}
