//! The byte-level flows as one synchronous application: a `const` catalogue and a routing
//! `Handler`, the shape of firmware code.

use snodo_core::server::{
    Done, Error, Handler, Prompt, PromptGet, PromptReply, Registry, Resource, ResourceRead,
    ResourceReply, Tool, ToolCall, ToolReply,
};

use super::{more_flows, mrtr_app};

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
pub struct Flows;

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
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        let ran = if more_flows::TOOLS.iter().any(|t| t.name == call.name()) {
            more_flows::call_tool(call, reply)
        } else {
            mrtr_app::call_tool(call, reply)
        };
        ran.unwrap_or(Err(Error::invalid_params("Unknown tool")))
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
