//! A first look at whole rounds through the synchronous path.
use snodo_core::server::*;

struct App;

const TOOLS: &[Tool<'static>] = &[Tool::new("echo")
    .description("Echoes text")
    .input_schema(r#"{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"]}"#)];

impl Registry for App {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl Handler for App {
    fn call_tool(&self, call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
        let text = call
            .argument("text")
            .and_then(|v| v.as_str())
            .ok_or(Error::invalid_params("text"))?;
        let mut buf = [0u8; 64];
        let text = text
            .decode_into(&mut buf)
            .ok_or(Error::failure("too long"))?;
        Ok(reply.text(text))
    }
}

fn round(input: &str) -> String {
    let server = Server::new(Config::new("t", "1"), App);
    let mut out = [0u8; 4096];
    match server
        .handle(input.as_bytes(), Round::anonymous(0), &mut out, None)
        .unwrap()
    {
        Handled::Reply(n) => String::from_utf8(out[..n].to_vec()).unwrap(),
        other => format!("{other:?}"),
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[test]
fn smoke() {
    for input in [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{META},"name":"echo","arguments":{{"text":"hé"}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{{META},"name":"echo","arguments":{{"text":""}}}}}}"#
        ),
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{{{META}}}}}"#),
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#.to_string(),
        "{".to_string(),
    ] {
        let out = round(&input);
        println!("{out}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }
}
