//! The example's preference flow as a server and its three legs, for `benches/mrtr.rs` and
//! `examples/profile_round.rs` (each includes this file with `#[path]`, next to the
//! example's `flow.rs` and `mrtr_app.rs` as modules `flow` and `mrtr_app`).

use serde::de::IgnoredAny;
use serde_json::Value;
use snodo_core::server::{
    Config, Done, Error, Handled, Handler, Prompt, PromptGet, PromptReply, Registry, Resource,
    ResourceRead, ResourceReply, Round, Server, Tool, ToolCall, ToolReply,
};
use snodo_core::state::{Keys, StateOptions, bare_hmac_sha256};
use std::hint::black_box;

use crate::mrtr_app;

pub const SECRET: [u8; 32] = [0x5a; 32];
pub const NOW: u64 = 1_800_000_000;

/// The example's MRTR application: the preference flow as a tool, a resource and a prompt.
pub struct Preferences;

impl Registry for Preferences {
    fn tools(&self) -> &[Tool<'_>] {
        &mrtr_app::TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        core::slice::from_ref(&mrtr_app::RESOURCE)
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        core::slice::from_ref(&mrtr_app::PROMPT)
    }
}

impl Handler for Preferences {
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

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}"#;

/// A `tools/call` of `preference_preview`, with `retry` (the retry fields, each led by a
/// comma) after the arguments.
fn call(id: u32, retry: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"preference_preview","arguments":{{"subject":"desk lamp"}}{retry}}}}}"#
    )
    .into_bytes()
}

/// The server, its round and the three legs of the flow, each checked once.
pub struct Legs {
    pub server: Server<'static, Preferences>,
    pub round: Round<'static>,
    pub leg1: Vec<u8>,
    /// The retry round: opens leg 1's state, validates the one answer, seals new state.
    pub leg2: Vec<u8>,
    pub leg3: Vec<u8>,
    /// The tokens leg 2 carries and gets.
    pub s1: String,
    pub s2: String,
}

impl Legs {
    pub fn new() -> Legs {
        let options: &'static StateOptions<_> = Box::leak(Box::new(StateOptions::new(
            Keys::secret(&SECRET).expect("a 32-byte secret"),
        )));
        let config = Config::new("bench", "1").with_state(options);
        let server = Server::new(config, Preferences).expect("valid definitions");
        let round = Round::anonymous(NOW);
        let leg1 = call(1, "");
        let s1 = state_asking(&reply_of(&server, &leg1, round), "color");
        let leg2 = call(
            2,
            &format!(
                r#","requestState":"{s1}","inputResponses":{{"color":{{"action":"accept","content":{{"color":"teal"}}}}}}"#
            ),
        );
        let s2 = state_asking(&reply_of(&server, &leg2, round), "style");
        let leg3 = call(
            3,
            &format!(
                r#","requestState":"{s2}","inputResponses":{{"style":{{"action":"accept","content":{{"style":"matte"}}}}}}"#
            ),
        );
        let done = reply_of(&server, &leg3, round);
        assert_eq!(
            done["result"]["content"][0]["text"],
            r#"{"color":"teal","style":"matte","status":"preview"}"#,
            "{done}"
        );
        Legs {
            server,
            round,
            leg1,
            leg2,
            leg3,
            s1,
            s2,
        }
    }

    /// One round of `input` into `out`.
    pub fn run(&self, input: &[u8], out: &mut [u8]) -> bool {
        let handled = self.server.handle(black_box(input), self.round, out, None);
        black_box(handled).is_ok()
    }

    /// The retry round (leg 2).
    pub fn retry(&self, out: &mut [u8]) -> bool {
        self.run(&self.leg2, out)
    }

    /// Two bare HMAC-SHA256 over the token bytes (the state the retry carries and the state
    /// its reply carries, keyed from scratch).
    pub fn floor_hmac_x2(&self) -> ([u8; 32], [u8; 32]) {
        let opened = bare_hmac_sha256(black_box(&SECRET), black_box(self.s1.as_bytes()));
        let sealed = bare_hmac_sha256(black_box(&SECRET), black_box(self.s2.as_bytes()));
        (opened, sealed)
    }

    /// `serde_json`'s `IgnoredAny` pass over the retry's bytes.
    pub fn floor_ignored(&self) -> IgnoredAny {
        serde_json::from_slice::<IgnoredAny>(black_box(&self.leg2)).expect("JSON")
    }

    /// The retry round's floor: both HMACs and the `IgnoredAny` pass.
    pub fn floor(&self) -> (([u8; 32], [u8; 32]), IgnoredAny) {
        (self.floor_hmac_x2(), self.floor_ignored())
    }
}

/// Runs one round and returns the reply as JSON.
fn reply_of(server: &Server<'_, Preferences>, input: &[u8], round: Round<'_>) -> Value {
    let mut out = vec![0u8; 8192];
    match server.handle(input, round, &mut out, None) {
        Ok(Handled::Reply(n)) => serde_json::from_slice(&out[..n]).expect("a JSON reply"),
        other => panic!("no reply: {other:?}"),
    }
}

/// The `requestState` of an `input_required` reply asking for `key`.
fn state_asking(reply: &Value, key: &str) -> String {
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    assert!(
        reply["result"]["inputRequests"][key].is_object(),
        "asks {key}: {reply}"
    );
    reply["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}
