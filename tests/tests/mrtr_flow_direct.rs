//! The preference flow, core in-process.
#[path = "../../std-adapters/examples/preferences/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences/mrtr_app.rs"]
mod mrtr_app;

use serde_json::{Value, json};
use snodo_core::server::*;
use snodo_core::state::{Keys, StateOptions};

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
    fn call_tool(&self, call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
        mrtr_app::call_tool(call, reply).unwrap_or(Err(Error::internal("no such tool")))
    }
    fn read_resource(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'_>,
    ) -> Result<Done, Error> {
        mrtr_app::read_resource(call, reply)
    }
    fn get_prompt(&self, call: &PromptGet<'_>, reply: PromptReply<'_>) -> Result<Done, Error> {
        mrtr_app::get_prompt(call, reply)
    }
}

fn round(server: &Server<'_, App>, msg: &Value) -> Value {
    let input = serde_json::to_vec(msg).unwrap();
    let mut out = vec![0u8; 16 * 1024];
    match server
        .handle(&input, Round::anonymous(1_000), &mut out, None)
        .unwrap()
    {
        Handled::Reply(n) => serde_json::from_slice(&out[..n]).unwrap(),
        other => panic!("{other:?}"),
    }
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}})
}

#[test]
fn preference_preview_three_legs() {
    let opts = StateOptions::new(Keys::secret(&[9u8; 32]).unwrap());
    let server = Server::new(Config::new("prefs", "1").with_state(&opts), App);
    let r1 = round(
        &server,
        &json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":meta(),"name":"preference_preview","arguments":{"subject":"x"}}}),
    );
    println!("{r1}");
    let s1 = r1["result"]["requestState"].clone();
    let r2 = round(
        &server,
        &json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":meta(),"name":"preference_preview","arguments":{"subject":"x"},"requestState":s1,"inputResponses":{"color":{"action":"accept","content":{"color":"red"}}}}}),
    );
    println!("{r2}");
    let s2 = r2["result"]["requestState"].clone();
    let r3 = round(
        &server,
        &json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":meta(),"name":"preference_preview","arguments":{"subject":"x"},"requestState":s2,"inputResponses":{"style":{"action":"accept","content":{"style":"bold"}}}}}),
    );
    println!("{r3}");
    assert_eq!(
        r3["result"]["content"][0]["text"],
        json!(r#"{"color":"red","style":"bold","status":"preview"}"#)
    );
    let r4 = round(
        &server,
        &json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":meta(),"name":"preference_preview","arguments":{"subject":"y"},"requestState":r2["result"]["requestState"],"inputResponses":{"style":{"action":"accept","content":{"style":"bold"}}}}}),
    );
    println!("{r4}");
    let r5 = round(
        &server,
        &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"preference_preview","arguments":{"subject":"y"}}}),
    );
    println!("{r5}");
}
