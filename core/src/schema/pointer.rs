//! Resolution of local `$ref`s: `#` and JSON pointers such as `#/$defs/NAME` or
//! `#/definitions/NAME`, always within the root schema. Nothing is ever fetched.

use crate::json::{Chars, JsonStr, Value};

use super::lookup::find_member;

/// Why a `$ref` did not lead to a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RefError {
    /// Not a local JSON pointer (another document, an anchor, a malformed `~` escape).
    Unsupported,
    /// A local pointer to nothing.
    Unresolved,
}

/// The value `reference` points at within `root`, and how many bytes were scanned to find it.
pub(crate) fn resolve<'a>(
    root: Value<'a>,
    reference: JsonStr<'_>,
) -> Result<(Value<'a>, usize), RefError> {
    let mut chars = reference.chars();
    if chars.next() != Some('#') {
        return Err(RefError::Unsupported);
    }
    let mut node = root;
    let mut scanned = reference.raw().len();
    loop {
        match chars.next() {
            None => return Ok((node, scanned)),
            Some('/') => {}
            Some(_) => return Err(RefError::Unsupported),
        }
        let token = Token {
            chars: chars.clone(),
            ended: false,
        };
        if !token.clone().well_formed() {
            return Err(RefError::Unsupported);
        }
        let (found, cost) = child(node, token);
        scanned = scanned.saturating_add(cost);
        node = found.ok_or(RefError::Unresolved)?;
        // Move past this token, up to (not over) the next '/'.
        loop {
            let before = chars.clone();
            match chars.next() {
                None => break,
                Some('/') => {
                    chars = before;
                    break;
                }
                Some(_) => {}
            }
        }
    }
}

/// The member or item `token` names, and the bytes scanned looking for it.
fn child<'a>(node: Value<'a>, token: Token<'_>) -> (Option<Value<'a>>, usize) {
    if let Some(object) = node.as_object() {
        return find_member(object, |key| key.chars().eq(token.clone()));
    }
    let scanned = node.raw().len();
    let Some(array) = node.as_array() else {
        return (None, 0);
    };
    (array_index(token).and_then(|i| array.get(i)), scanned)
}

/// A token as an array index: decimal digits without a leading zero.
fn array_index(token: Token<'_>) -> Option<usize> {
    let mut index: usize = 0;
    let mut digits = 0;
    for c in token {
        let digit = c.to_digit(10)?;
        if digits > 0 && index == 0 {
            return None; // leading zero
        }
        index = index.checked_mul(10)?.checked_add(digit as usize)?;
        digits += 1;
    }
    (digits > 0).then_some(index)
}

/// One reference token of a JSON pointer, decoded (`~0` is `~`, `~1` is `/`).
#[derive(Clone, Debug)]
struct Token<'a> {
    chars: Chars<'a>,
    ended: bool,
}

impl Token<'_> {
    /// Whether every `~` starts `~0` or `~1`.
    fn well_formed(mut self) -> bool {
        loop {
            match self.chars.next() {
                None | Some('/') => return true,
                Some('~') => {
                    if !matches!(self.chars.next(), Some('0' | '1')) {
                        return false;
                    }
                }
                Some(_) => {}
            }
        }
    }
}

impl Iterator for Token<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        if self.ended {
            return None;
        }
        match self.chars.next()? {
            '/' => {
                self.ended = true;
                None
            }
            '~' => match self.chars.next()? {
                '0' => Some('~'),
                _ => Some('/'),
            },
            c => Some(c),
        }
    }
}
