//! The preference flows of the `preferences` example written against the core's byte-level
//! API: synchronous handlers, `const` definitions with hand-written JSON Schemas, caller-owned
//! buffers and sealed state as JSON bytes. This is the shape of firmware code (no heap, no
//! `serde`), and the fastest path on a host; the `preferences` example serves the same flows
//! through the typed layer (`snodo_std::typed`), which is what a host server should start
//! from.
//!
//! ```text
//! cargo run -p snodo-std --example preferences_bytes
//! ```
//!
//! It serves on standard input and output; logs go to standard error.

mod flow;
mod more_flows;
mod mrtr_app;

use std::process::ExitCode;

use snodo_core::server::{
    Config, Done, Error, Handler, Prompt, PromptGet, PromptReply, Registry, Resource, ResourceRead,
    ResourceReply, Tool, ToolCall, ToolReply,
};
use snodo_std::Checked;

/// Every tool of the flows, in the order `tools/list` returns them.
const TOOLS: [Tool<'static>; 6] = [
    mrtr_app::TOOLS[0],
    mrtr_app::TOOLS[1],
    mrtr_app::TOOLS[2],
    more_flows::TOOLS[0],
    more_flows::TOOLS[1],
    more_flows::TOOLS[2],
];

/// The flows as one synchronous application.
#[derive(Debug)]
struct Flows;

impl Registry for Flows {
    fn tools(&self) -> &[Tool<'_>] {
        &TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        core::slice::from_ref(&mrtr_app::RESOURCE)
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        core::slice::from_ref(&mrtr_app::PROMPT)
    }
}

impl Handler for Flows {
    fn call_tool(&self, call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
        let ran = if more_flows::TOOLS.iter().any(|t| t.name == call.name()) {
            more_flows::call_tool(call, reply)
        } else {
            mrtr_app::call_tool(call, reply)
        };
        ran.unwrap_or(Err(Error::invalid_params("Unknown tool")))
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

fn main() -> ExitCode {
    let config = Config::new("snodo-preferences-bytes", env!("CARGO_PKG_VERSION"))
        .with_state(snodo_std::process_state_options());
    let server = match Checked::new(snodo_core::server::Server::new(config, Flows)) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("preferences_bytes: bad definition: {e}");
            return ExitCode::FAILURE;
        }
    };
    match snodo_std::serve_stdio(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("preferences_bytes: stdio failed: {e}");
            ExitCode::FAILURE
        }
    }
}
