//! Reading the client's answers on a retry.
//!
//! For a named input request the handler gets [`Response::Missing`], a valid answer, or an
//! error: [`INVALID_RESPONSE`], the generic -32602, which never echoes what the client sent.

use super::check;
use super::check::elicit_result::Action;
use super::request::{CreateMessage, Elicitation, ListRoots};
use super::{INVALID_RESPONSE, InvalidResponse};
use crate::json::{Array, JsonStr, Object, Value};
use crate::protocol::ClientCapabilities;

/// An answer, or its absence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response<T> {
    /// No answer under that key: ask (again).
    Missing,
    /// A valid answer.
    Answered(T),
}

/// Something a handler can ask for and read the answer to.
pub trait Ask {
    /// The typed answer.
    type Answer<'a>;

    /// The client capabilities answering needs.
    fn needs(&self) -> ClientCapabilities;

    /// Reads and checks an answer.
    fn read<'a>(&self, answer: Value<'a>) -> Option<Self::Answer<'a>>;
}

/// A user's answer to an elicitation.
#[derive(Clone, Copy, Debug)]
pub struct ElicitAnswer<'a> {
    action: Action,
    content: Option<Object<'a>>,
}

impl<'a> ElicitAnswer<'a> {
    /// What the user did.
    pub fn action(&self) -> Action {
        self.action
    }

    /// Whether the user accepted (for a URL elicitation: consented, not completed).
    pub fn accepted(&self) -> bool {
        self.action == Action::Accept
    }

    /// The accepted form content (checked against the form schema).
    pub fn content(&self) -> Option<Object<'a>> {
        self.content
    }

    /// One field of the accepted content.
    pub fn get(&self, name: &str) -> Option<Value<'a>> {
        self.content.and_then(|c| c.get(name))
    }

    /// One string field of the accepted content, or [`INVALID_RESPONSE`] (the generic
    /// -32602 in a handler).
    pub fn str(&self, name: &str) -> Result<JsonStr<'a>, InvalidResponse> {
        self.get(name)
            .and_then(|v| v.as_str())
            .ok_or(INVALID_RESPONSE)
    }
}

impl Ask for Elicitation<'_> {
    type Answer<'a> = ElicitAnswer<'a>;

    fn needs(&self) -> ClientCapabilities {
        Elicitation::needs(self)
    }

    fn read<'a>(&self, answer: Value<'a>) -> Option<ElicitAnswer<'a>> {
        let (action, content) = check::elicit_result::read(answer)?;
        let content = match (action, self.checked_form()) {
            (Action::Accept, Some(schema)) => {
                let content = content?;
                if !schema.accepts(content.as_value()) {
                    return None;
                }
                Some(content)
            }
            _ => None,
        };
        Some(ElicitAnswer { action, content })
    }
}

/// A sampled message (untrusted model output the client chose to return).
#[derive(Clone, Copy, Debug)]
pub struct SampledMessage<'a> {
    result: Object<'a>,
}

impl<'a> SampledMessage<'a> {
    /// `role`.
    pub fn role(&self) -> Option<JsonStr<'a>> {
        self.result.get("role").and_then(|v| v.as_str())
    }

    /// `content`: one block or an array of blocks.
    pub fn content(&self) -> Option<Value<'a>> {
        self.result.get("content")
    }

    /// The text of the content when it is a single text block.
    pub fn text(&self) -> Option<JsonStr<'a>> {
        let block = self.content()?;
        if !block.get("type")?.as_str()?.eq_str("text") {
            return None;
        }
        block.get("text")?.as_str()
    }

    /// `model`.
    pub fn model(&self) -> Option<JsonStr<'a>> {
        self.result.get("model").and_then(|v| v.as_str())
    }

    /// `stopReason`.
    pub fn stop_reason(&self) -> Option<JsonStr<'a>> {
        self.result.get("stopReason").and_then(|v| v.as_str())
    }
}

impl Ask for CreateMessage<'_> {
    type Answer<'a> = SampledMessage<'a>;

    fn needs(&self) -> ClientCapabilities {
        CreateMessage::needs(self)
    }

    fn read<'a>(&self, answer: Value<'a>) -> Option<SampledMessage<'a>> {
        check::sampling::check_result(answer).then_some(())?;
        answer.as_object().map(|result| SampledMessage { result })
    }
}

/// The client's roots (claims about its file system, not access grants).
#[derive(Clone, Copy, Debug)]
pub struct Roots<'a> {
    roots: Array<'a>,
}

impl<'a> Roots<'a> {
    /// Each root's `uri` (all start with `file://`).
    pub fn uris(&self) -> impl Iterator<Item = JsonStr<'a>> + 'a {
        self.roots
            .iter()
            .filter_map(|r| r.get("uri").and_then(|u| u.as_str()))
    }

    /// The roots as objects (`uri`, optional `name`).
    pub fn iter(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        self.roots.iter()
    }

    /// How many roots.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }
}

impl Ask for ListRoots {
    type Answer<'a> = Roots<'a>;

    fn needs(&self) -> ClientCapabilities {
        ListRoots::needs(self)
    }

    fn read<'a>(&self, answer: Value<'a>) -> Option<Roots<'a>> {
        check::roots::check_result(answer).then_some(())?;
        answer
            .get("roots")
            .and_then(|r| r.as_array())
            .map(|roots| Roots { roots })
    }
}
