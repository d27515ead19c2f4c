//! The option lists of select properties: a plain `enum` of strings, or a titled list of
//! `{const, title}` objects (`oneOf` for a single select, `anyOf` for a multi select).

use super::super::super::BuildError;
use super::super::util::{is_str, only_keys};
use crate::json::{Array, JsonStr, Value};

/// The options of a select property, in schema order.
#[derive(Clone, Copy, Debug)]
pub(super) enum Options<'a> {
    /// `enum`: an array of strings.
    Plain(Array<'a>),
    /// `oneOf`/`anyOf`: an array of `{const, title}` objects.
    Titled(Array<'a>),
}

impl<'a> Options<'a> {
    /// Reads an `enum`: a non-empty array of strings.
    pub(super) fn plain(v: Value<'a>) -> Result<Self, BuildError> {
        let items = v
            .as_array()
            .filter(|a| !a.is_empty() && a.iter().all(|item| item.as_str().is_some()))
            .ok_or(BuildError::new(
                "form enum must be a non-empty array of strings",
            ))?;
        Ok(Options::Plain(items))
    }

    /// Reads a titled list: a non-empty array of objects holding exactly a string `const`
    /// and a string `title`.
    pub(super) fn titled(v: Value<'a>) -> Result<Self, BuildError> {
        let items = v
            .as_array()
            .filter(|a| !a.is_empty())
            .ok_or(BuildError::new(
                "form oneOf/anyOf must be a non-empty array of {const, title} options",
            ))?;
        for item in items {
            let option = item.as_object().ok_or(BuildError::new(
                "form oneOf/anyOf must be a non-empty array of {const, title} options",
            ))?;
            if !only_keys(option, &["const", "title"]) {
                return Err(BuildError::new(
                    "form option has an unsupported keyword (allowed: const, title)",
                ));
            }
            if !is_str(option.get("const")) || !is_str(option.get("title")) {
                return Err(BuildError::new(
                    "form option needs a string const and a string title",
                ));
            }
        }
        Ok(Options::Titled(items))
    }

    /// The option values (for a titled list, each `const`).
    pub(super) fn values(self) -> impl Iterator<Item = JsonStr<'a>> {
        let (items, titled) = match self {
            Options::Plain(items) => (items, false),
            Options::Titled(items) => (items, true),
        };
        items.iter().filter_map(move |item| {
            if titled {
                item.get("const").and_then(|c| c.as_str())
            } else {
                item.as_str()
            }
        })
    }

    /// How many options there are.
    pub(super) fn count(self) -> usize {
        self.values().count()
    }

    /// Whether no value occurs twice (quadratic in the options, which the server wrote).
    pub(super) fn all_unique(self) -> bool {
        self.values()
            .enumerate()
            .all(|(i, value)| !self.values().take(i).any(|earlier| earlier == value))
    }

    /// Whether `items`, each one of these options already, repeat none of them. More items
    /// than options means a repeat: refused before any quadratic work, so the pairwise check
    /// is bounded by the options the server wrote.
    pub(super) fn none_repeated(self, items: Array<'_>) -> bool {
        items.len() <= self.count()
            && items.iter().enumerate().all(|(i, item)| {
                item.as_str().is_some_and(|s| {
                    !items
                        .iter()
                        .take(i)
                        .any(|earlier| earlier.as_str().is_some_and(|e| e == s))
                })
            })
    }
}
