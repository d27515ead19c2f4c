//! The `ElicitResult` a client returns for an `elicitation/create` input request.
//!
//! Reading it is the same for both modes: `action` is required and one of `accept`, `decline`
//! or `cancel`; `content`, when present, must be an object. Only an accepted form carries
//! meaningful content, and only that is handed back: a content object sent with a decline or
//! a cancel is checked for shape and then dropped, so a handler cannot mistake it for an
//! answer. Validating accepted content against the form's schema is
//! [`form::check_content`](super::form::check_content)'s job. Unknown fields are tolerated.

use crate::json::{Object, Value};

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Action {
    /// `accept`: the user submitted the form, or consented to open the URL. For URL mode this
    /// is consent, not completion of the external interaction.
    Accept,
    /// `decline`: the user explicitly refused.
    Decline,
    /// `cancel`: the user dismissed the request without choosing.
    Cancel,
}

impl Action {
    /// The action's name on the wire: `accept`, `decline` or `cancel`.
    pub const fn name(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }

    /// The action named by `v`, if `v` is one of the three names.
    pub fn from_value(v: Value<'_>) -> Option<Action> {
        let name = v.as_str()?;
        [Action::Accept, Action::Decline, Action::Cancel]
            .into_iter()
            .find(|action| name.eq_str(action.name()))
    }
}

impl core::fmt::Display for Action {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads an `ElicitResult`: its action and, for `accept`, its `content` object when present.
/// `None` when the result is malformed (not an object, no or an unknown `action`, a `content`
/// that is not an object).
pub fn read(result: Value<'_>) -> Option<(Action, Option<Object<'_>>)> {
    // `action` and `content`, found in one walk of the result.
    let (mut action, mut content) = (None, None);
    for (key, value) in result.as_object()? {
        if key.eq_str("action") {
            action = Some(value);
        } else if key.eq_str("content") {
            content = Some(value.as_object()?);
        }
    }
    let action = Action::from_value(action?)?;
    let content = if action == Action::Accept {
        content
    } else {
        None
    };
    Some((action, content))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};

    fn read_text(text: &str) -> Option<(Action, Option<Object<'_>>)> {
        read(parse(text.as_bytes(), &Limits::default()).unwrap())
    }

    #[test]
    fn reads_the_three_actions() {
        let (action, content) =
            read_text(r#"{"action":"accept","content":{"name":"octocat"}}"#).unwrap();
        assert_eq!(action, Action::Accept);
        let content = content.unwrap();
        assert!(
            content
                .get("name")
                .unwrap()
                .as_str()
                .unwrap()
                .eq_str("octocat")
        );
        assert_eq!(
            read_text(r#"{"action":"accept"}"#),
            Some((Action::Accept, None))
        );
        assert_eq!(
            read_text(r#"{"action":"decline"}"#),
            Some((Action::Decline, None))
        );
        assert_eq!(
            read_text(r#"{"action":"cancel"}"#),
            Some((Action::Cancel, None))
        );
        assert_eq!(
            read_text(r#"{"action":"\u0063ancel","extra":[1,2]}"#),
            Some((Action::Cancel, None))
        );
    }

    #[test]
    fn drops_content_that_comes_with_a_refusal() {
        assert_eq!(
            read_text(r#"{"action":"decline","content":{"a":1}}"#),
            Some((Action::Decline, None))
        );
        assert_eq!(
            read_text(r#"{"content":{},"action":"cancel"}"#),
            Some((Action::Cancel, None))
        );
        // Still checked for shape.
        assert_eq!(read_text(r#"{"action":"decline","content":[]}"#), None);
    }

    #[test]
    fn refuses_malformed_results() {
        for bad in [
            "null",
            "[]",
            r#""accept""#,
            "{}",
            r#"{"action":null}"#,
            r#"{"action":"Accept"}"#,
            r#"{"action":"accepted"}"#,
            r#"{"action":"ok"}"#,
            r#"{"action":1}"#,
            r#"{"action":"accept","content":null}"#,
            r#"{"action":"accept","content":"x"}"#,
            r#"{"action":"accept","content":[{"a":1}]}"#,
        ] {
            assert_eq!(read_text(bad), None, "{bad}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(Action::Accept.name(), "accept");
        assert_eq!(Action::Decline.name(), "decline");
        assert_eq!(Action::Cancel.name(), "cancel");
        extern crate std;
        use std::string::ToString;
        assert_eq!(Action::Cancel.to_string(), "cancel");
    }
}
