//! Content blocks of sampling messages and of the `CreateMessageResult`.
//!
//! A message's `content` is one block or an array of blocks; a block is text, image, audio,
//! a tool use, or a tool result. A tool result's own `content` holds ordinary content blocks
//! (text, image, audio, resource link, embedded resource) and never another tool use or tool
//! result, so the nesting is two levels at most and nothing here recurses.

use super::super::super::BuildError;
use super::super::util::{
    count, in_unit_interval, is_one_of, is_str, opt_bool, opt_object, opt_str,
};
use crate::json::{Object, Value};

/// The kind of a sampling content block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Block {
    /// `text`
    Text,
    /// `image`
    Image,
    /// `audio`
    Audio,
    /// `tool_use`
    ToolUse,
    /// `tool_result`
    ToolResult,
}

/// Checks a message's `content` (one block or an array of blocks), handing each block's kind
/// to `each`, which may refuse it.
pub(super) fn content(
    v: Value<'_>,
    mut each: impl FnMut(Block) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    if let Some(blocks) = v.as_array() {
        for item in blocks {
            each(block(item)?)?;
        }
        Ok(())
    } else if v.as_object().is_some() {
        each(block(v)?)
    } else {
        Err(BuildError::new(
            "sampling message content must be a content block or an array of them",
        ))
    }
}

/// Checks one `SamplingMessageContentBlock` and says which kind it is.
pub(super) fn block(v: Value<'_>) -> Result<Block, BuildError> {
    let o = v
        .as_object()
        .ok_or(BuildError::new("sampling content block must be an object"))?;
    let kind = o
        .get("type")
        .and_then(|t| t.as_str())
        .ok_or(BuildError::new(
            "sampling content block needs a string type",
        ))?;
    if !opt_object(o, "_meta") {
        return Err(BuildError::new(
            "sampling content block _meta must be an object",
        ));
    }
    if kind.eq_str("text") {
        text(o).map(|()| Block::Text)
    } else if kind.eq_str("image") {
        media(o).map(|()| Block::Image)
    } else if kind.eq_str("audio") {
        media(o).map(|()| Block::Audio)
    } else if kind.eq_str("tool_use") {
        tool_use(o).map(|()| Block::ToolUse)
    } else if kind.eq_str("tool_result") {
        tool_result(o).map(|()| Block::ToolResult)
    } else {
        Err(BuildError::new(
            "sampling content block type must be text, image, audio, tool_use or tool_result",
        ))
    }
}

/// `{type: "text", text}`.
fn text(o: Object<'_>) -> Result<(), BuildError> {
    if !is_str(o.get("text")) {
        return Err(BuildError::new("text content needs a string text"));
    }
    annotations(o)
}

/// `{type: "image" | "audio", data, mimeType}`.
fn media(o: Object<'_>) -> Result<(), BuildError> {
    if !is_str(o.get("data")) || !is_str(o.get("mimeType")) {
        return Err(BuildError::new(
            "image and audio content need string data and mimeType",
        ));
    }
    annotations(o)
}

/// `{type: "tool_use", id, name, input}`.
fn tool_use(o: Object<'_>) -> Result<(), BuildError> {
    let ok = is_str(o.get("id"))
        && is_str(o.get("name"))
        && o.get("input").is_some_and(|i| i.as_object().is_some());
    if ok {
        Ok(())
    } else {
        Err(BuildError::new(
            "tool_use content needs a string id, a string name and an object input",
        ))
    }
}

/// `{type: "tool_result", toolUseId, content: [ContentBlock], isError?, structuredContent?}`.
fn tool_result(o: Object<'_>) -> Result<(), BuildError> {
    if !is_str(o.get("toolUseId")) {
        return Err(BuildError::new(
            "tool_result content needs a string toolUseId",
        ));
    }
    let blocks = o
        .get("content")
        .and_then(|c| c.as_array())
        .ok_or(BuildError::new("tool_result content needs a content array"))?;
    for item in blocks {
        result_block(item)?;
    }
    if !opt_bool(o, "isError") {
        return Err(BuildError::new("tool_result isError must be a boolean"));
    }
    // `structuredContent` may be any JSON value.
    Ok(())
}

/// A `ContentBlock` inside a tool result: text, image, audio, resource link or embedded
/// resource.
fn result_block(v: Value<'_>) -> Result<(), BuildError> {
    let o = v.as_object().ok_or(BuildError::new(
        "tool_result content blocks must be objects",
    ))?;
    let kind = o
        .get("type")
        .and_then(|t| t.as_str())
        .ok_or(BuildError::new(
            "tool_result content blocks need a string type",
        ))?;
    if !opt_object(o, "_meta") {
        return Err(BuildError::new(
            "sampling content block _meta must be an object",
        ));
    }
    if kind.eq_str("text") {
        text(o)
    } else if kind.eq_str("image") || kind.eq_str("audio") {
        media(o)
    } else if kind.eq_str("resource_link") {
        resource_link(o)
    } else if kind.eq_str("resource") {
        embedded_resource(o)
    } else {
        Err(BuildError::new(
            "tool_result content block type must be text, image, audio, resource_link or resource",
        ))
    }
}

/// `{type: "resource_link", uri, name, title?, description?, mimeType?, size?}`.
fn resource_link(o: Object<'_>) -> Result<(), BuildError> {
    let ok = is_str(o.get("uri"))
        && is_str(o.get("name"))
        && opt_str(o, "title")
        && opt_str(o, "description")
        && opt_str(o, "mimeType")
        && o.get("size").is_none_or(|s| count(s).is_some());
    if !ok {
        return Err(BuildError::new(
            "resource_link content needs string uri and name (and a non-negative integer size)",
        ));
    }
    annotations(o)
}

/// `{type: "resource", resource: {uri, mimeType?, text | blob}}`.
fn embedded_resource(o: Object<'_>) -> Result<(), BuildError> {
    let ok = o
        .get("resource")
        .and_then(|r| r.as_object())
        .is_some_and(|r| {
            is_str(r.get("uri"))
                && opt_str(r, "mimeType")
                && opt_object(r, "_meta")
                && (r.contains("text") || r.contains("blob"))
                && opt_str(r, "text")
                && opt_str(r, "blob")
        });
    if !ok {
        return Err(BuildError::new(
            "resource content needs a resource with a string uri and a string text or blob",
        ));
    }
    annotations(o)
}

/// Optional `annotations`: `audience` (roles), `priority` (0 to 1), `lastModified` (string).
fn annotations(o: Object<'_>) -> Result<(), BuildError> {
    let Some(a) = o.get("annotations") else {
        return Ok(());
    };
    let ok = a.as_object().is_some_and(|a| {
        a.get("audience").is_none_or(|aud| {
            aud.as_array()
                .is_some_and(|roles| roles.iter().all(|r| is_one_of(r, &["user", "assistant"])))
        }) && a.get("priority").is_none_or(in_unit_interval)
            && opt_str(a, "lastModified")
    });
    if ok {
        Ok(())
    } else {
        Err(BuildError::new(
            "content annotations must be an object with audience roles, a priority from 0 to 1 \
             and a string lastModified",
        ))
    }
}
