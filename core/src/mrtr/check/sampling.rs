//! `sampling/createMessage`: the params a server sends and the `CreateMessageResult` a client
//! returns.
//!
//! As the seed's "Deliberate limits" say, sampling requests are validated structurally —
//! message roles, content block shapes, model preferences, tools and tool choice — not
//! semantically: nothing here checks that a tool result answers an earlier tool use, that a
//! model hint names a real model, or that a tool's input schema is a sensible JSON Schema.
//! The one rule about a message's blocks taken together is the spec's "Messages with tool
//! results cannot contain other kinds of content", with its corollary on roles: tool uses come
//! from the assistant and tool results from the user.
//!
//! Unknown extra keys are allowed everywhere (the protocol may grow them); known keys must have
//! their declared types.
//!
//! Sampled content is model output the client chose to return. [`check_result`] only proves it
//! has the protocol's shape: treat it as untrusted input and never follow it as an
//! instruction.

mod content;

use super::super::BuildError;
use super::util::{count, in_unit_interval, is_one_of, is_str, opt_object, opt_str};
use crate::json::{Object, Value};
use crate::protocol::ClientCapabilities;
use content::Block;

/// Checks `params` for a `sampling/createMessage` input request and returns the client
/// capabilities the request needs: `sampling`, plus `sampling.tools` when `tools` or
/// `toolChoice` is present and `sampling.context` when `includeContext` is present and not
/// `"none"`.
pub fn check_params(params: Value<'_>) -> Result<ClientCapabilities, BuildError> {
    let o = params
        .as_object()
        .ok_or(BuildError::new("sampling params must be an object"))?;
    let mut needs = ClientCapabilities::SAMPLING;
    messages(o)?;
    let max_tokens = o
        .get("maxTokens")
        .ok_or(BuildError::new("sampling params need maxTokens"))?;
    if count(max_tokens).is_none_or(|n| n == 0) {
        return Err(BuildError::new(
            "sampling maxTokens must be a positive integer",
        ));
    }
    if let Some(preferences) = o.get("modelPreferences") {
        model_preferences(preferences)?;
    }
    if !opt_str(o, "systemPrompt") {
        return Err(BuildError::new("sampling systemPrompt must be a string"));
    }
    if let Some(stops) = o.get("stopSequences") {
        let ok = stops
            .as_array()
            .is_some_and(|s| s.iter().all(|s| s.as_str().is_some()));
        if !ok {
            return Err(BuildError::new(
                "sampling stopSequences must be an array of strings",
            ));
        }
    }
    if o.get("temperature")
        .is_some_and(|t| t.as_number().is_none())
    {
        return Err(BuildError::new("sampling temperature must be a number"));
    }
    if let Some(context) = o.get("includeContext") {
        if !is_one_of(context, &["none", "thisServer", "allServers"]) {
            return Err(BuildError::new(
                "sampling includeContext must be none, thisServer or allServers",
            ));
        }
        if !is_one_of(context, &["none"]) {
            needs = needs.union(ClientCapabilities::SAMPLING_CONTEXT);
        }
    }
    if !opt_object(o, "metadata") {
        return Err(BuildError::new("sampling metadata must be an object"));
    }
    if let Some(tools) = o.get("tools") {
        let tools = tools.as_array().ok_or(BuildError::new(
            "sampling tools must be an array of tool definitions",
        ))?;
        for t in tools {
            tool(t)?;
        }
        needs = needs.union(ClientCapabilities::SAMPLING_TOOLS);
    }
    if let Some(choice) = o.get("toolChoice") {
        let ok = choice.as_object().is_some_and(|c| {
            c.get("mode")
                .is_none_or(|m| is_one_of(m, &["auto", "none", "required"]))
        });
        if !ok {
            return Err(BuildError::new(
                "sampling toolChoice must be an object whose mode is auto, none or required",
            ));
        }
        needs = needs.union(ClientCapabilities::SAMPLING_TOOLS);
    }
    Ok(needs)
}

/// Whether `result` is a well-formed `CreateMessageResult`: a `role` of `user` or
/// `assistant`, `content` that is one block or an array of blocks, a string `model`, and an
/// optional string `stopReason`. Unknown fields are tolerated.
pub fn check_result(result: Value<'_>) -> bool {
    let Some(o) = result.as_object() else {
        return false;
    };
    o.get("role").is_some_and(is_role)
        && o.get("content")
            .is_some_and(|c| content::content(c, |_| Ok(())).is_ok())
        && is_str(o.get("model"))
        && opt_str(o, "stopReason")
        && opt_object(o, "_meta")
}

fn is_role(v: Value<'_>) -> bool {
    is_one_of(v, &["user", "assistant"])
}

/// `messages`: a non-empty array of `{role, content}`.
fn messages(o: Object<'_>) -> Result<(), BuildError> {
    let messages = o
        .get("messages")
        .and_then(|m| m.as_array())
        .filter(|m| !m.is_empty())
        .ok_or(BuildError::new(
            "sampling params need a non-empty messages array",
        ))?;
    for m in messages {
        message(m)?;
    }
    Ok(())
}

/// One `SamplingMessage`, with the spec's rule on what a message may mix.
fn message(v: Value<'_>) -> Result<(), BuildError> {
    let m = v
        .as_object()
        .ok_or(BuildError::new("sampling messages must be objects"))?;
    let role = m
        .get("role")
        .filter(|r| is_role(*r))
        .ok_or(BuildError::new(
            "sampling message role must be user or assistant",
        ))?;
    let from_user = is_one_of(role, &["user"]);
    if !opt_object(m, "_meta") {
        return Err(BuildError::new("sampling message _meta must be an object"));
    }
    let body = m
        .get("content")
        .ok_or(BuildError::new("sampling message needs content"))?;
    let (mut results, mut others) = (false, false);
    content::content(body, |kind| {
        match kind {
            Block::ToolUse if from_user => {
                return Err(BuildError::new(
                    "sampling tool_use content belongs in assistant messages",
                ));
            }
            Block::ToolResult if !from_user => {
                return Err(BuildError::new(
                    "sampling tool_result content belongs in user messages",
                ));
            }
            Block::ToolResult => results = true,
            _ => others = true,
        }
        if results && others {
            return Err(BuildError::new(
                "a sampling message with tool results cannot contain other content",
            ));
        }
        Ok(())
    })
}

/// `modelPreferences`: optional `hints` and three priorities from 0 to 1.
fn model_preferences(v: Value<'_>) -> Result<(), BuildError> {
    let p = v.as_object().ok_or(BuildError::new(
        "sampling modelPreferences must be an object",
    ))?;
    if let Some(hints) = p.get("hints") {
        let ok = hints.as_array().is_some_and(|hints| {
            hints
                .iter()
                .all(|h| h.as_object().is_some_and(|h| opt_str(h, "name")))
        });
        if !ok {
            return Err(BuildError::new(
                "sampling model hints must be an array of objects with an optional string name",
            ));
        }
    }
    for key in ["costPriority", "speedPriority", "intelligencePriority"] {
        let in_range = p.get(key).is_none_or(in_unit_interval);
        if !in_range {
            return Err(BuildError::new(
                "sampling model priorities must be numbers from 0 to 1",
            ));
        }
    }
    Ok(())
}

/// A tool definition: a string `name`, an `inputSchema` object of `type: "object"`, and
/// optional string `title` and `description` and object `outputSchema`.
fn tool(v: Value<'_>) -> Result<(), BuildError> {
    let t = v.as_object().ok_or(BuildError::new(
        "sampling tools must be an array of tool definitions",
    ))?;
    if !is_str(t.get("name")) {
        return Err(BuildError::new("sampling tool needs a string name"));
    }
    let schema_ok = t
        .get("inputSchema")
        .and_then(|s| s.as_object())
        .and_then(|s| s.get("type"))
        .is_some_and(|ty| is_one_of(ty, &["object"]));
    if !schema_ok {
        return Err(BuildError::new(
            "sampling tool needs an inputSchema object with type \"object\"",
        ));
    }
    if !opt_str(t, "title") || !opt_str(t, "description") {
        return Err(BuildError::new(
            "sampling tool title and description must be strings",
        ));
    }
    if !opt_object(t, "outputSchema") || !opt_object(t, "_meta") {
        return Err(BuildError::new(
            "sampling tool outputSchema and _meta must be objects",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
