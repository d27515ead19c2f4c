//! Writing one answer into `inputResponses`, and checking it has the shape its kind requires.

use super::{Ask, InputRequest};
use crate::json::{JsonError, Limits, ObjectWriter, Value, Writer, parse};
use crate::mrtr::check;

/// Proof that an [`Answer`] was written: every way of answering consumes the answer and
/// returns one, so a handler cannot return without answering.
#[derive(Debug)]
#[must_use]
pub struct Answered(());

/// A handler's reason for giving up instead of answering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Abort {
    /// Why, in a short sentence.
    pub reason: &'static str,
}

impl Abort {
    /// Gives up with `reason`.
    pub const fn new(reason: &'static str) -> Self {
        Abort { reason }
    }
}

/// Where a handler writes its answer to one input request: exactly one JSON value, an
/// `ElicitResult`, a `CreateMessageResult` or a `ListRootsResult` depending on the request.
/// Every method writes a complete answer and consumes the writer.
#[derive(Debug)]
pub struct Answer<'w, 'b> {
    w: &'w mut Writer<'b>,
}

impl<'w, 'b> Answer<'w, 'b> {
    pub(crate) fn new(w: &'w mut Writer<'b>) -> Self {
        Answer { w }
    }

    /// Elicitation (form): the user submitted the form; `content` writes its fields, e.g.
    /// `answer.accept(|c| { c.str("color", "teal"); })`.
    pub fn accept(self, content: impl FnOnce(&mut ObjectWriter<'_, 'b>)) -> Answered {
        self.w.object(|o| {
            o.str("action", "accept");
            o.object("content", content);
        });
        Answered(())
    }

    /// Elicitation (URL): the user consents to open the URL (consent, not completion).
    pub fn consent(self) -> Answered {
        self.w.raw(br#"{"action":"accept"}"#);
        Answered(())
    }

    /// Elicitation (either mode): the user explicitly refused.
    pub fn decline(self) -> Answered {
        self.w.raw(br#"{"action":"decline"}"#);
        Answered(())
    }

    /// Elicitation (either mode): the user dismissed the request without choosing.
    pub fn cancel(self) -> Answered {
        self.w.raw(br#"{"action":"cancel"}"#);
        Answered(())
    }

    /// Sampling: an assistant message of one text block from `model`, with the stop reason
    /// when known (`endTurn`, `stopSequence`, `maxTokens`, …).
    pub fn sampled_text(self, model: &str, text: &str, stop_reason: Option<&str>) -> Answered {
        self.w.object(|o| {
            o.str("role", "assistant");
            o.object("content", |c| {
                c.str("type", "text").str("text", text);
            });
            o.str("model", model);
            if let Some(reason) = stop_reason {
                o.str("stopReason", reason);
            }
        });
        Answered(())
    }

    /// Roots: `roots` writes each root, e.g. `answer.roots(|r| { r.root("file:///work", Some("work")); })`.
    pub fn roots(self, roots: impl FnOnce(&mut RootsWriter<'_, '_, 'b>)) -> Answered {
        self.w.object(|o| {
            o.array("roots", |a| {
                roots(&mut RootsWriter { a });
            });
        });
        Answered(())
    }

    /// Any answer, as a value from another document (copied, re-escaped to ASCII if needed).
    pub fn value(self, value: Value<'_>) -> Answered {
        self.w.value(value);
        Answered(())
    }

    /// Any answer, as JSON text; it must be one well-formed JSON value.
    pub fn json(self, text: &[u8]) -> Result<Answered, JsonError> {
        let value = parse(text, &Limits::HOST)?;
        Ok(self.value(value))
    }
}

/// Adds roots to a `ListRootsResult`.
#[derive(Debug)]
pub struct RootsWriter<'a, 'w, 'b> {
    a: &'a mut crate::json::ArrayWriter<'w, 'b>,
}

impl RootsWriter<'_, '_, '_> {
    /// A root: a `file://` URI and an optional display name.
    pub fn root(&mut self, uri: &str, name: Option<&str>) -> &mut Self {
        self.a.object(|o| {
            o.str("uri", uri);
            if let Some(name) = name {
                o.str("name", name);
            }
        });
        self
    }
}

/// Whether `answer` (the bytes written for `request`) has the shape the request's kind
/// requires: an `ElicitResult` whose accepted content fits the form (when the form is one
/// of the restricted subset this core checks), a `CreateMessageResult`, a
/// `ListRootsResult`.
pub fn check_answer(request: &InputRequest<'_>, answer: &[u8]) -> bool {
    let Ok(value) = parse(answer, &Limits::HOST) else {
        return false;
    };
    match request.ask {
        Ask::Form(form) => match check::elicit_result::read(value) {
            None => false,
            Some((_, None)) => true,
            Some((_, Some(content))) => {
                let schema = form.requested_schema.as_value();
                // Forms outside the restricted subset are the server's own business.
                check::form::check_schema(schema).is_err()
                    || check::form::check_content(schema, content.as_value())
            }
        },
        Ask::Url(_) => check::elicit_result::read(value).is_some(),
        Ask::Sampling(_) => check::sampling::check_result(value),
        Ask::Roots(_) => check::roots::check_result(value),
    }
}
