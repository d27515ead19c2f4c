//! Property tests of sealing and opening over arbitrary data and params.

use proptest::prelude::*;
use proptest::sample::Index;
use snodo_core::json::{Limits, parse};
use snodo_core::state::{
    Binding, InvalidState, Keys, MAX_DATA_LEN, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal,
    StateOptions, open, seal,
};

const NOW: u64 = 1_800_000_000;

/// A JSON tree whose text can be written in several equivalent (or deliberately
/// inequivalent) ways.
#[derive(Clone, Debug, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    /// A literal with a fraction, e.g. `-12.50`.
    Dec(i32, String),
    Str(String),
    Arr(Vec<J>),
    /// Members with unique keys.
    Obj(Vec<(String, J)>),
}

/// How to write a tree.
#[derive(Clone, Copy, Default)]
struct Style {
    /// Write every object's members in reverse order.
    reverse_objects: bool,
    /// Write every string character as a `\u` escape.
    escape_strings: bool,
    /// Write the n-th integer (in writing order) as a float literal (`k.0`).
    int_as_float: Option<usize>,
    /// Swap the first two items of the n-th array whose first two items differ.
    swap_array: Option<usize>,
}

#[derive(Default)]
struct Counters {
    ints: usize,
    swappable_arrays: usize,
}

impl J {
    fn text(&self) -> String {
        self.write_with(Style::default()).0
    }

    fn write_with(&self, style: Style) -> (String, Counters) {
        let mut out = String::new();
        let mut counters = Counters::default();
        self.write(&mut out, style, &mut counters);
        (out, counters)
    }

    fn write(&self, out: &mut String, style: Style, c: &mut Counters) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Int(n) => {
                out.push_str(&n.to_string());
                if style.int_as_float == Some(c.ints) {
                    out.push_str(".0");
                }
                c.ints += 1;
            }
            J::Dec(int, frac) => out.push_str(&format!("{int}.{frac}")),
            J::Str(s) => write_str(out, s, style.escape_strings),
            J::Arr(items) => {
                let mut order: Vec<&J> = items.iter().collect();
                if items.len() >= 2 && items[0] != items[1] {
                    if style.swap_array == Some(c.swappable_arrays) {
                        order.swap(0, 1);
                    }
                    c.swappable_arrays += 1;
                }
                out.push('[');
                for (i, item) in order.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out, style, c);
                }
                out.push(']');
            }
            J::Obj(members) => {
                let mut order: Vec<&(String, J)> = members.iter().collect();
                if style.reverse_objects {
                    order.reverse();
                }
                out.push('{');
                for (i, (key, value)) in order.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, key, style.escape_strings);
                    out.push(':');
                    value.write(out, style, c);
                }
                out.push('}');
            }
        }
    }
}

fn write_str(out: &mut String, s: &str, escape_all: bool) {
    out.push('"');
    for ch in s.chars() {
        let mut units = [0u16; 2];
        match ch {
            _ if escape_all => {
                for unit in ch.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}",
        Just("_meta".to_string()),
        Just("requestState".to_string()),
        "[a-zé😀\"\\\\ ]{0,4}",
    ]
}

fn leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(J::Int),
        (any::<i32>(), "[0-9]{1,3}").prop_map(|(i, f)| J::Dec(i, f)),
        "\\PC{0,8}".prop_map(J::Str),
    ]
}

fn tree() -> impl Strategy<Value = J> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            prop::collection::btree_map(key(), inner, 0..6)
                .prop_map(|m| J::Obj(m.into_iter().collect())),
        ]
    })
}

/// Params: an object whose top level may hold retry fields, nested ones included.
fn params() -> impl Strategy<Value = J> {
    prop::collection::btree_map(key(), tree(), 0..14).prop_map(|m| J::Obj(m.into_iter().collect()))
}

fn data() -> impl Strategy<Value = J> {
    tree().prop_filter("fits the data bound", |j| j.text().len() <= MAX_DATA_LEN)
}

fn options() -> StateOptions {
    StateOptions::new(Keys::ring(&[("prop", [0x42u8; 32])]).unwrap())
}

fn seal_for(data: &str, params: &str) -> Vec<u8> {
    let params = parse(params.as_bytes(), &Limits::default()).unwrap();
    let binding = Binding::new("tools/call", Some(params), Principal::Id("p"));
    let mut out = [0u8; MAX_TOKEN_LEN];
    let n = seal(data.as_bytes(), &binding, &options(), NOW, &mut out).unwrap();
    out[..n].to_vec()
}

fn open_for(token: &[u8], params: &str) -> Result<Vec<u8>, InvalidState> {
    let params = parse(params.as_bytes(), &Limits::default()).unwrap();
    let binding = Binding::new("tools/call", Some(params), Principal::Id("p"));
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    open(token, &binding, &options(), NOW + 1, &mut scratch).map(|v| v.raw().to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn seal_then_open_round_trips(data in data(), params in params()) {
        let (data, params) = (data.text(), params.text());
        let token = seal_for(&data, &params);
        prop_assert!(token.len() <= MAX_TOKEN_LEN);
        prop_assert_eq!(open_for(&token, &params), Ok(data.into_bytes()));
    }

    #[test]
    fn changing_any_single_byte_of_a_token_fails(
        data in data(),
        params in params(),
        at in any::<Index>(),
        byte in any::<u8>(),
    ) {
        let params = params.text();
        let mut token = seal_for(&data.text(), &params);
        let i = at.index(token.len());
        prop_assume!(token[i] != byte);
        token[i] = byte;
        prop_assert_eq!(open_for(&token, &params), Err(InvalidState));
    }

    #[test]
    fn reordering_object_keys_in_params_still_opens(
        data in data(),
        params in params(),
        escape in any::<bool>(),
    ) {
        let token = seal_for(&data.text(), &params.text());
        let style = Style { reverse_objects: true, escape_strings: escape, ..Style::default() };
        let (reordered, _) = params.write_with(style);
        prop_assert!(open_for(&token, &reordered).is_ok());
    }

    #[test]
    fn reordering_an_array_in_params_does_not_open(
        data in data(),
        params in params(),
        which in any::<Index>(),
    ) {
        let (text, counters) = params.write_with(Style::default());
        prop_assume!(counters.swappable_arrays > 0);
        let token = seal_for(&data.text(), &text);
        let n = which.index(counters.swappable_arrays);
        let (swapped, _) = params.write_with(Style { swap_array: Some(n), ..Style::default() });
        // A swap inside a top-level retry field is not bound; everything else is.
        prop_assume!(!swap_is_in_excluded_field(&params, n));
        prop_assert_ne!(&swapped, &text);
        prop_assert_eq!(open_for(&token, &swapped), Err(InvalidState));
    }

    #[test]
    fn writing_an_integer_as_a_float_in_params_does_not_open(
        data in data(),
        params in params(),
        which in any::<Index>(),
    ) {
        let (text, counters) = params.write_with(Style::default());
        prop_assume!(counters.ints > 0);
        let n = which.index(counters.ints);
        prop_assume!(!int_is_in_excluded_field(&params, n));
        let token = seal_for(&data.text(), &text);
        let (floated, _) = params.write_with(Style { int_as_float: Some(n), ..Style::default() });
        prop_assert_eq!(open_for(&token, &floated), Err(InvalidState));
    }
}

/// Whether the n-th swappable array lies under a top-level `_meta`/`requestState` member.
fn swap_is_in_excluded_field(params: &J, n: usize) -> bool {
    locate(params, n, |c| c.swappable_arrays)
}

/// Whether the n-th integer lies under a top-level `_meta`/`requestState` member.
fn int_is_in_excluded_field(params: &J, n: usize) -> bool {
    locate(params, n, |c| c.ints)
}

fn locate(params: &J, n: usize, count: impl Fn(&Counters) -> usize) -> bool {
    let J::Obj(members) = params else {
        return false;
    };
    let mut seen = 0;
    for (key, value) in members {
        let here = count(&value.write_with(Style::default()).1);
        if n < seen + here {
            return matches!(key.as_str(), "_meta" | "requestState" | "inputResponses");
        }
        seen += here;
    }
    false
}

#[test]
fn generators_produce_valid_json() {
    // Sanity check of the writer above, escapes included.
    let j = J::Obj(vec![
        ("a\"é😀".into(), J::Str("\u{1}x\\".into())),
        (
            "b".into(),
            J::Arr(vec![J::Int(-3), J::Dec(-0, "50".into())]),
        ),
    ]);
    for escape in [false, true] {
        let (text, _) = j.write_with(Style {
            escape_strings: escape,
            reverse_objects: escape,
            ..Style::default()
        });
        assert!(parse(text.as_bytes(), &Limits::default()).is_ok(), "{text}");
    }
}
