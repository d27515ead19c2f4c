//! The typed authoring layer, round by round in-process: generated schemas, argument
//! decoding, structured output, resources, templates and prompts, and a three-leg form flow
//! with typed sealed state, typed sampling and roots answers. Expected values are written
//! from the protocol and the typed layer's documentation.

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use snodo_core::server::{Handled, Round, Server};
use snodo_core::state::{Keys, Ttl};
use snodo_std::typed::{
    Cx, Elicited, Flow, Form, NoArgs, PromptMessages, RootsRequest, Sampling, Stop, Structured,
    ToolError, TypedApp, prompt, questions, resource, server, template, tool,
};

const NOW: u64 = 1_790_000_000;
const SECRET: [u8; 32] = *b"typed layer tests secret 32 byte";

// ---------------------------------------------------------------------------------------
// The application
// ---------------------------------------------------------------------------------------

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Echo {
    /// The text to return
    text: String,
}

async fn echo(args: Echo, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(args.text)
}

/// A level the schema describes as any string, so a wrong one reaches decoding.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

#[derive(Deserialize, JsonSchema)]
struct Dial {
    #[schemars(with = "String")]
    level: Level,
}

async fn dial(args: Dial, _cx: Cx<'_>) -> Result<&'static str, Stop> {
    Ok(match args.level {
        Level::Low => "low",
        Level::High => "high",
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Add {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Sum {
    sum: f64,
}

async fn add(args: Add, _cx: Cx<'_>) -> Result<Structured<Sum>, Stop> {
    let sum = args.a + args.b;
    if !sum.is_finite() {
        return Err(ToolError::new("too large").into());
    }
    Ok(Structured(Sum { sum }))
}

#[derive(Deserialize, JsonSchema)]
struct Color {
    #[schemars(length(min = 1))]
    color: String,
}

#[derive(Deserialize, JsonSchema)]
struct Style {
    #[schemars(length(min = 1))]
    style: String,
}

questions! {
    static COLOR: Form<Color> = Form::new("color", "Choose a color");
    static STYLE: Form<Style> = Form::new("style", "Choose a style");
}

/// Refusing unknown members, it also covers the flow's reading of a state whose type does not
/// ignore the framework's own member.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Chosen {
    #[serde(skip_serializing_if = "Option::is_none")]
    color: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Subject {
    subject: String,
}

/// color → style → finish, straight-line.
async fn preview(args: Subject, cx: Cx<'_>) -> Result<String, Stop> {
    let mut flow = Flow::<Chosen>::open(cx)?;
    if flow.state().color.is_none() {
        match flow.ask(&COLOR)? {
            Elicited::Accepted(c) => flow.state_mut().color = Some(c.color),
            refused => return Ok(format!("status: {}", refused.action().name())),
        }
    }
    let style = match flow.ask(&STYLE)? {
        Elicited::Accepted(s) => s.style,
        refused => return Ok(format!("status: {}", refused.action().name())),
    };
    let color = flow.state().color.clone().unwrap_or_default();
    Ok(format!("{}: {color} {style}", args.subject))
}

/// A state every member of which has a default, so `{}` would read as one.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Marks {
    #[serde(default)]
    marks: u32,
}

/// A flow whose state is `None` until its one question is answered.
async fn until_answered(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let flow = Flow::<Option<Marks>>::open(cx)?;
    if let Some(state) = flow.state() {
        return Ok(format!("the state came back as {state:?}"));
    }
    match flow.ask(&COLOR)? {
        Elicited::Accepted(c) => Ok(format!("None until {}", c.color)),
        refused => Ok(format!("status: {}", refused.action().name())),
    }
}

questions! {
    static SUGGEST: Sampling = Sampling::new(
        "suggestion",
        r#"{"messages":[{"role":"user","content":{"type":"text","text":"A color?"}}],"maxTokens":16}"#,
    );
    static ROOTS: RootsRequest = RootsRequest::new("roots");
}

async fn suggest_and_scope(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let flow = Flow::<Chosen>::open(cx)?;
    let (sampled, roots) = flow.ask_all((&SUGGEST, &ROOTS))?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!(
        "{} by {} in {}",
        sampled.text().unwrap_or("?"),
        sampled.model,
        uris.join(",")
    ))
}

async fn about(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
    Ok("about this server")
}

#[derive(Deserialize)]
struct Person {
    name: String,
}

async fn greeting(p: Person, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(format!("Hello, {}!", p.name))
}

#[derive(Deserialize, JsonSchema)]
struct Greet {
    /// Who to greet
    name: String,
    /// casual or formal
    style: Option<String>,
}

async fn greet(g: Greet, _cx: Cx<'_>) -> Result<PromptMessages, Stop> {
    let style = g.style.unwrap_or_else(|| "casual".into());
    Ok(PromptMessages::new()
        .description("A greeting")
        .user(format!("A {style} greeting for {}.", g.name)))
}

fn app() -> Server<'static, TypedApp> {
    server("typed-tests", "1.0.0")
        .state(
            Keys::secret(&SECRET).expect("32 bytes"),
            Ttl::from_secs(120).expect("in range"),
        )
        .tool(tool("echo").title("Echo").run(echo))
        .tool(tool("dial").run(dial))
        .tool(tool("add").run(add))
        .tool(tool("preview").asks(&COLOR).asks(&STYLE).run(preview))
        .tool(tool("until_answered").run(until_answered))
        .tool(
            tool("suggest")
                .asks(&SUGGEST)
                .asks(&ROOTS)
                .run(suggest_and_scope),
        )
        .resource(
            resource("test://about", "about")
                .mime_type("text/plain")
                .read(about),
        )
        .template(template("greeting://{name}", "greeting").read(greeting))
        .prompt(prompt("greet").description("Greets").render(greet))
        .build()
        .expect("every definition is valid")
}

// ---------------------------------------------------------------------------------------
// Rounds
// ---------------------------------------------------------------------------------------

fn request(id: i64, method: &str, mut params: Value, caps: Value) -> Vec<u8> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
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
    round(server, &request(id, "tools/call", params, json!({}))).await
}

fn all_caps() -> Value {
    json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
}

fn payload(token: &str) -> Value {
    let payload = token.split('.').nth(2).expect("s2.<kid>.<payload>.<mac>");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON payload")
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn schemas_are_generated_from_the_types() {
    let s = app();
    let tools = round(&s, &request(1, "tools/list", json!({}), json!({}))).await;
    let tools = &tools["result"]["tools"];
    assert_eq!(
        tools[0],
        json!({
            "name": "echo",
            "title": "Echo",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to return"}},
                "required": ["text"],
                "additionalProperties": false
            }
        })
    );
    assert_eq!(
        tools[2]["outputSchema"],
        json!({
            "type": "object",
            "properties": {"sum": {"type": "number"}},
            "required": ["sum"],
            "additionalProperties": false
        })
    );
    let prompts = round(&s, &request(2, "prompts/list", json!({}), json!({}))).await;
    assert_eq!(
        prompts["result"]["prompts"][0]["arguments"],
        json!([
            {"name": "name", "description": "Who to greet", "required": true},
            {"name": "style", "description": "casual or formal", "required": false}
        ])
    );
}

#[tokio::test]
async fn a_typed_tool_gets_its_arguments_as_a_struct() {
    let s = app();
    let reply = call(&s, 1, "echo", json!({"text": "hi \"there\""})).await;
    assert_eq!(
        reply["result"]["content"],
        json!([{"type": "text", "text": "hi \"there\""}])
    );
    assert_eq!(reply["result"]["resultType"], "complete");
}

#[tokio::test]
async fn arguments_that_do_not_decode_name_the_field_and_never_the_value() {
    let s = app();
    let reply = call(&s, 1, "dial", json!({"level": "SENTINEL-7"})).await;
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "Invalid arguments: argument level does not fit its type"
    );
    assert!(!reply.to_string().contains("SENTINEL-7"));
    let reply = call(&s, 2, "dial", json!({"level": "high"})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "high");
}

#[tokio::test]
async fn structured_output_and_tool_errors() {
    let s = app();
    let reply = call(&s, 1, "add", json!({"a": 1.5, "b": 2})).await;
    assert_eq!(reply["result"]["structuredContent"], json!({"sum": 3.5}));
    let reply = call(&s, 2, "add", json!({"a": 1e308, "b": 1e308})).await;
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(reply["result"]["content"][0]["text"], "too large");
}

#[tokio::test]
async fn resources_templates_and_prompts_are_typed_too() {
    let s = app();
    let read = |id, uri: &str| request(id, "resources/read", json!({"uri": uri}), json!({}));
    let about = round(&s, &read(1, "test://about")).await;
    assert_eq!(
        about["result"]["contents"],
        json!([{"uri": "test://about", "mimeType": "text/plain", "text": "about this server"}])
    );
    let hello = round(&s, &read(2, "greeting://Ada")).await;
    assert_eq!(hello["result"]["contents"][0]["text"], "Hello, Ada!");
    let params = json!({"name": "greet", "arguments": {"name": "Ada", "style": "formal"}});
    let prompt = round(&s, &request(3, "prompts/get", params, json!({}))).await;
    assert_eq!(prompt["result"]["description"], "A greeting");
    assert_eq!(
        prompt["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "A formal greeting for Ada."}}])
    );
}

fn form_request(key: &str, message: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {key: {"type": "string", "minLength": 1}},
                "required": [key]
            }
        }
    })
}

fn leg(id: i64, state: Option<&str>, responses: Option<Value>) -> Vec<u8> {
    let mut params = json!({"name": "preview", "arguments": {"subject": "lamp"}});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    request(
        id,
        "tools/call",
        params,
        json!({"elicitation": {"form": {}}}),
    )
}

fn accept(key: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {key: value}})
}

#[tokio::test]
async fn an_optional_state_left_none_comes_back_none() {
    let s = app();
    let caps = json!({"elicitation": {"form": {}}});
    let call = |id, extra: Value| {
        let mut params = json!({"name": "until_answered", "arguments": {}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            params[k] = v.clone();
        }
        request(id, "tools/call", params, caps.clone())
    };
    let one = round(&s, &call(1, json!({}))).await;
    assert!(one["result"]["inputRequests"]["color"].is_object(), "{one}");
    let token = one["result"]["requestState"].as_str().expect("state");
    let answered =
        json!({"requestState": token, "inputResponses": {"color": accept("color", "teal")}});
    let two = round(&s, &call(2, answered)).await;
    assert_eq!(
        two["result"]["content"][0]["text"], "None until teal",
        "{two}"
    );
}

#[tokio::test]
async fn a_three_leg_flow_carries_its_typed_state() {
    let s = app();
    // Leg 1: the color, with state; an answer sent before the question is not taken.
    let early = json!({"color": accept("color", "early")});
    let one = round(&s, &leg(1, None, Some(early))).await;
    assert_eq!(one["result"]["resultType"], "input_required");
    assert_eq!(
        one["result"]["inputRequests"],
        json!({"color": form_request("color", "Choose a color")})
    );
    let s1 = one["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    assert_eq!(
        payload(&s1)["exp"],
        json!(NOW + 120),
        "the TTL set on the builder"
    );

    // Leg 2: the color answered (and a style sent early, not taken): the style is asked,
    // and the state holds the color.
    let answers = json!({"color": accept("color", "teal"), "style": accept("style", "early")});
    let two = round(&s, &leg(2, Some(&s1), Some(answers))).await;
    assert_eq!(
        two["result"]["inputRequests"],
        json!({"style": form_request("style", "Choose a style")})
    );
    let s2 = two["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    assert_eq!(payload(&s2)["data"]["color"], "teal");

    // Leg 3: the style; the flow finishes.
    let three = round(
        &s,
        &leg(
            3,
            Some(&s2),
            Some(json!({"style": accept("style", "matte")})),
        ),
    )
    .await;
    assert_eq!(three["result"]["content"][0]["text"], "lamp: teal matte");

    // A missing answer is asked again; a declined one ends the flow.
    let again = round(&s, &leg(4, Some(&s2), None)).await;
    assert!(again["result"]["inputRequests"]["style"].is_object());
    let declined = round(
        &s,
        &leg(5, Some(&s2), Some(json!({"style": {"action": "decline"}}))),
    )
    .await;
    assert_eq!(declined["result"]["content"][0]["text"], "status: decline");
}

#[tokio::test]
async fn flow_state_is_sealed_and_bound_to_the_call() {
    let s = app();
    let one = round(&s, &leg(1, None, None)).await;
    let s1 = one["result"]["requestState"].as_str().unwrap().to_owned();
    let mut tampered = s1.clone();
    tampered.pop();
    let bad = round(
        &s,
        &leg(
            2,
            Some(&tampered),
            Some(json!({"color": accept("color", "x")})),
        ),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602);
    assert_eq!(bad["error"]["message"], "Invalid request state");
    // Other arguments: the same token does not open.
    let mut params = json!({"name": "preview", "arguments": {"subject": "desk"}});
    params["requestState"] = json!(s1);
    let other = round(
        &s,
        &request(3, "tools/call", params, json!({"elicitation": {}})),
    )
    .await;
    assert_eq!(other["error"]["message"], "Invalid request state");
}

#[tokio::test]
async fn a_malformed_answer_is_the_generic_error_and_echoes_nothing() {
    let s = app();
    let one = round(&s, &leg(1, None, None)).await;
    let s1 = one["result"]["requestState"].as_str().unwrap().to_owned();
    let bad = json!({"color": {"action": "accept", "content": {"color": 7, "x": "SENTINEL"}}});
    let reply = round(&s, &leg(2, Some(&s1), Some(bad))).await;
    assert_eq!(reply["error"]["code"], -32602);
    assert!(!reply.to_string().contains("SENTINEL"));
}

#[tokio::test]
async fn sampling_and_roots_answers_are_typed() {
    let s = app();
    let params = json!({"name": "suggest"});
    let one = round(&s, &request(1, "tools/call", params.clone(), all_caps())).await;
    let asked = &one["result"]["inputRequests"];
    assert_eq!(asked["suggestion"]["method"], "sampling/createMessage");
    assert_eq!(
        asked["roots"],
        json!({"method": "roots/list", "params": {}})
    );
    let mut retry = params;
    retry["requestState"] = one["result"]["requestState"].clone();
    retry["inputResponses"] = json!({
        "suggestion": {"role": "assistant", "content": {"type": "text", "text": "teal"}, "model": "m1"},
        "roots": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": "b"}]}
    });
    let two = round(&s, &request(2, "tools/call", retry, all_caps())).await;
    assert_eq!(
        two["result"]["content"][0]["text"],
        "teal by m1 in file:///a,file:///b"
    );
}

#[tokio::test]
async fn missing_capabilities_are_refused_as_for_byte_level_handlers() {
    let s = app();
    let reply = round(
        &s,
        &request(1, "tools/call", json!({"name": "suggest"}), json!({})),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32021);
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}, "roots": {}})
    );
}

async fn never_runs(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
    Ok("unreachable")
}

async fn takes_a_number(_: u32, _cx: Cx<'_>) -> Result<&'static str, Stop> {
    Ok("unreachable")
}

#[test]
fn arguments_that_are_not_an_object_and_duplicates_are_refused() {
    let refused = server("s", "1.0")
        .tool(tool("n").run(takes_a_number))
        .build()
        .unwrap_err();
    assert_eq!(refused.name, "n");
    let refused = server("s", "1.0")
        .tool(tool("twice").run(never_runs))
        .tool(tool("twice").run(never_runs))
        .build()
        .unwrap_err();
    assert_eq!(refused.to_string(), "twice: defined twice");
}
