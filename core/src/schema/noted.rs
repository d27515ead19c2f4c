//! The members of an object as the scanner met them, so that validating the object does not
//! walk its text a second time (a tool call's arguments: the scanner reads them while parsing
//! the request, and the validator would otherwise skip over every value again to find the
//! next key).
//!
//! Bounded: at most [`NOTED`] members are kept; an object with more is walked in its text. On
//! a target without feature `schema-plans` (firmware) the capacity is 0, so the list costs
//! no stack and every object is walked.

use crate::json::{JsonStr, Key, Value, Visitor};

/// Most members noted per object: enough for most tools' arguments. Zero without feature
/// `schema-plans`, where a device keeps the stack (each member costs 32 bytes on a 64-bit
/// host) rather than the instructions.
pub(crate) const NOTED: usize = if cfg!(any(feature = "schema-plans", test)) {
    8
} else {
    0
};

/// The members of one object in document order, noted one by one while it is scanned and
/// then closed with the object itself (see [`NotedMembers::members_of`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NotedMembers<'a> {
    members: [(JsonStr<'a>, Value<'a>); NOTED],
    len: u8,
    /// More members than fit: the list is incomplete, and never handed out.
    overflowed: bool,
    /// The object whose members these are, once it has been scanned whole.
    object: Option<Value<'a>>,
}

impl Default for NotedMembers<'_> {
    fn default() -> Self {
        NotedMembers {
            members: [(JsonStr::from_validated(b""), Value::from_validated(b"")); NOTED],
            len: 0,
            overflowed: false,
            object: None,
        }
    }
}

impl<'a> NotedMembers<'a> {
    /// Notes the next member of the object being scanned.
    #[inline]
    pub(crate) fn note(&mut self, key: JsonStr<'a>, value: Value<'a>) {
        match self.members.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = (key, value);
                self.len += 1;
            }
            None => self.overflowed = true,
        }
    }

    /// Says that the members noted so far are all those of `object`, just scanned.
    pub(crate) fn close(&mut self, object: Value<'a>) {
        self.object = Some(object);
    }

    /// Every member of `object`, in order, when these are they (the very same text was
    /// noted whole); `None` otherwise, and the object is walked.
    pub(crate) fn members_of(&self, object: Value<'a>) -> Option<&[(JsonStr<'a>, Value<'a>)]> {
        if NOTED == 0 {
            // Known at compile time: a device links no code for noted members.
            return None;
        }
        let noted = self.object?;
        let same = noted.raw().as_ptr() == object.raw().as_ptr()
            && noted.raw().len() == object.raw().len();
        if !same || self.overflowed {
            return None;
        }
        self.members.get(..usize::from(self.len))
    }
}

/// Noting the members of the document's root object (tests scan instances this way).
impl<'a> Visitor<'a> for NotedMembers<'a> {
    const DEPTH: u16 = 1;

    fn enter(&mut self, _: u16, _: &Key<'a>) {}

    fn leave(&mut self, _: u16, key: &Key<'a>, value: Value<'a>) {
        self.note(key.text(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse, parse_visiting};

    fn noted(text: &str) -> (Value<'_>, NotedMembers<'_>) {
        let mut noted = NotedMembers::default();
        let value = parse_visiting(text.as_bytes(), &Limits::HOST, &mut noted).unwrap();
        noted.close(value);
        (value, noted)
    }

    #[test]
    fn members_are_handed_out_only_for_the_object_noted_whole() {
        let (object, members) = noted(r#"{"a":1,"b":{"c":2},"\u0064":"x"}"#);
        let listed = members.members_of(object).expect("noted");
        let keys: std::vec::Vec<_> = listed.iter().map(|(k, _)| k.raw()).collect();
        assert_eq!(keys, [&b"a"[..], b"b", br"\u0064"]);
        assert_eq!(listed[1].1.raw(), br#"{"c":2}"#);
        // The same text elsewhere is another object.
        let text = std::string::String::from_utf8(object.raw().to_vec()).unwrap();
        let copy = parse(text.as_bytes(), &Limits::HOST).unwrap();
        assert!(members.members_of(copy).is_none());
        // Not closed: nothing.
        let mut open = members;
        open.object = None;
        assert!(open.members_of(object).is_none());
    }

    #[test]
    fn an_object_with_more_members_than_fit_is_walked() {
        let fits: std::vec::Vec<_> = (0..NOTED).map(|i| std::format!(r#""k{i}":{i}"#)).collect();
        let fits = std::format!("{{{}}}", fits.join(","));
        let (object, members) = noted(&fits);
        assert_eq!(members.members_of(object).map(<[_]>::len), Some(NOTED));
        let more = fits.replacen('{', r#"{"extra":0,"#, 1);
        let (object, members) = noted(&more);
        assert!(members.members_of(object).is_none());
    }
}
