extern crate std;

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use super::*;
use crate::json::{Limits, parse};

const DEEP: Limits = Limits {
    max_size: 1 << 22,
    max_depth: 4096,
    max_members: 1024,
};

fn j(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &DEEP).expect(text)
}

/// `Ok` or the violation's message; checks that a compiled plan of the schema changes nothing.
fn run(schema: &str, instance: &str) -> Result<(), String> {
    checked(schema, instance).map_err(|v| v.to_string())
}

fn reason_of<'a>(schema: &'a str, instance: &'a str) -> Reason<'a> {
    checked(schema, instance).expect_err(instance).reason()
}

/// The instance parsed with its root's members noted, as a server notes a call's arguments.
fn noted(instance: &str) -> (Value<'_>, NotedMembers<'_>) {
    let mut noted = NotedMembers::default();
    let value =
        crate::json::parse_visiting(instance.as_bytes(), &DEEP, &mut noted).expect(instance);
    noted.close(value);
    (value, noted)
}

/// [`validate`], after checking that [`validate_prepared`] with the schema's [`Plan`] (when it
/// has one), with the instance's members noted, and with both, reaches the very same outcome.
fn checked<'a>(schema: &'a str, instance: &'a str) -> Result<(), Violation<'a>> {
    let unplanned = validate(j(schema), j(instance));
    let expected = format!("{unplanned:?}");
    let (value, members) = noted(instance);
    let with_noted = validate_prepared(j(schema), None, value, Some(&members));
    assert_eq!(
        format!("{with_noted:?}"),
        expected,
        "noted: {schema} on {instance}"
    );
    if let Some(plan) = Plan::compile(j(schema)) {
        let planned = validate_prepared(j(schema), Some(&plan), j(instance), None);
        assert_eq!(format!("{planned:?}"), expected, "{schema} on {instance}");
        let both = validate_prepared(j(schema), Some(&plan), value, Some(&members));
        assert_eq!(
            format!("{both:?}"),
            expected,
            "both: {schema} on {instance}"
        );
        assert_eq!(Plan::from_words(*plan.words()), plan, "{schema}");
    }
    unplanned
}

fn accepts(schema: &str, instances: &[&str]) {
    for instance in instances {
        if let Err(message) = run(schema, instance) {
            panic!("{schema} should accept {instance}: {message}");
        }
    }
}

fn rejects(schema: &str, instances: &[&str]) {
    for instance in instances {
        assert!(
            run(schema, instance).is_err(),
            "{schema} should reject {instance}"
        );
    }
}

fn message(schema: &str, instance: &str) -> String {
    run(schema, instance).expect_err(instance)
}

// ---------------------------------------------------------------- type

#[test]
fn type_names() {
    accepts(r#"{"type":"null"}"#, &["null"]);
    rejects(r#"{"type":"null"}"#, &["0", "false", r#""""#, "[]", "{}"]);
    accepts(r#"{"type":"boolean"}"#, &["true", "false"]);
    rejects(r#"{"type":"boolean"}"#, &["0", "null", r#""true""#]);
    accepts(r#"{"type":"string"}"#, &[r#""""#, r#""x""#, r#""\u00e9""#]);
    rejects(r#"{"type":"string"}"#, &["1", "null", "[]"]);
    accepts(r#"{"type":"array"}"#, &["[]", "[1,[2]]"]);
    rejects(r#"{"type":"array"}"#, &["{}", r#""[]""#]);
    accepts(r#"{"type":"object"}"#, &["{}", r#"{"a":1}"#]);
    rejects(r#"{"type":"object"}"#, &["[]", "null"]);
    accepts(r#"{"type":"number"}"#, &["0", "-1", "2.5", "1e400", "-0.0"]);
    rejects(r#"{"type":"number"}"#, &[r#""1""#, "null", "true"]);
}

#[test]
fn integer_accepts_integral_numbers() {
    accepts(
        r#"{"type":"integer"}"#,
        &[
            "2",
            "2.0",
            "-0",
            "0.0",
            "1e2",
            "20e-1",
            "-3.000",
            "1e400",
            "123456789012345678901234567890",
        ],
    );
    rejects(
        r#"{"type":"integer"}"#,
        &["2.5", "1e-1", "0.1", "-3.0001", r#""2""#, "null"],
    );
    assert_eq!(
        message(r#"{"type":"integer"}"#, "2.5"),
        "arguments: must be integer"
    );
}

#[test]
fn type_arrays() {
    let schema = r#"{"type":["string","null"]}"#;
    accepts(schema, &[r#""a""#, "null"]);
    rejects(schema, &["1", "[]"]);
    assert_eq!(message(schema, "1"), "arguments: must be string or null");
    let schema = r#"{"type":["null","integer","array"]}"#;
    accepts(schema, &["null", "3", "[]"]);
    assert_eq!(
        message(schema, "1.5"),
        "arguments: must be array, integer or null"
    );
    accepts(r#"{"type":["number","integer"]}"#, &["1.5", "1"]);
}

// ---------------------------------------------------------------- objects

const COUNT: &str = r#"{
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1},
        "name": {"type": "string", "minLength": 1}
    },
    "required": ["count"]
}"#;

#[test]
fn the_message_names_the_argument() {
    assert_eq!(
        message(COUNT, r#"{"count":0}"#),
        r#"argument "count": must be >= 1"#
    );
    assert_eq!(message(COUNT, r#"{}"#), r#"argument "count": is required"#);
    assert_eq!(
        message(COUNT, r#"{"count":1,"name":""}"#),
        r#"argument "name": must be at least 1 character long"#
    );
    assert_eq!(message(COUNT, "[]"), "arguments: must be object");
    accepts(
        COUNT,
        &[r#"{"count":1}"#, r#"{"count":5,"name":"x","other":[]}"#],
    );
}

#[test]
fn required_and_properties_only_apply_to_objects() {
    let schema = r#"{"properties":{"a":{"type":"string"}},"required":["a"]}"#;
    accepts(schema, &["1", "[]", "null", r#""s""#, r#"{"a":"x"}"#]);
    rejects(schema, &["{}", r#"{"a":1}"#]);
}

#[test]
fn required_matches_escaped_names() {
    accepts(
        r#"{"required":["\u0061b"]}"#,
        &[r#"{"ab":1}"#, r#"{"a\u0062":1}"#],
    );
    let violation = validate(j(r#"{"required":["a\"b"]}"#), j("{}")).unwrap_err();
    match violation.reason() {
        Reason::Required { name } => assert!(name.eq_str("a\"b")),
        other => panic!("{other:?}"),
    }
    assert_eq!(violation.to_string(), r#"argument "a\"b": is required"#);
}

#[test]
fn additional_properties_false_and_schema() {
    let schema = r#"{"properties":{"a":{}},"additionalProperties":false}"#;
    accepts(schema, &["{}", r#"{"a":[1]}"#, "3"]);
    assert_eq!(
        message(schema, r#"{"a":1,"extra":2}"#),
        r#"argument "extra": is not allowed"#
    );
    let schema = r#"{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}"#;
    accepts(schema, &[r#"{"a":"s","b":1,"c":2}"#]);
    assert_eq!(
        message(schema, r#"{"a":"s","b":"x"}"#),
        r#"argument "b": must be integer"#
    );
    accepts(r#"{"additionalProperties":true}"#, &[r#"{"x":1}"#]);
    rejects(r#"{"additionalProperties":false}"#, &[r#"{"x":1}"#]);
}

#[test]
fn min_and_max_properties() {
    let schema = r#"{"minProperties":1,"maxProperties":2}"#;
    accepts(schema, &[r#"{"a":1}"#, r#"{"a":1,"b":2}"#, "[]"]);
    assert_eq!(
        message(schema, "{}"),
        "arguments: must have at least 1 member"
    );
    assert_eq!(
        message(schema, r#"{"a":1,"b":2,"c":3}"#),
        "arguments: must have at most 2 members"
    );
}

#[test]
fn nested_paths() {
    let schema = r#"{"properties":{"config":{"properties":{"retries":{
        "type":"array","items":{"type":"integer","maximum":9}}}}}}"#;
    assert_eq!(
        message(schema, r#"{"config":{"retries":[1,2,10]}}"#),
        r#"argument "config"."retries"[2]: must be <= 9"#
    );
    let violation = validate(j(schema), j(r#"{"config":{"retries":[1,2,10]}}"#)).unwrap_err();
    let segments: Vec<Segment<'_>> = violation.path().segments().collect();
    assert_eq!(segments.len(), 3);
    assert!(matches!(segments[0], Segment::Key(k) if k.eq_str("config")));
    assert!(matches!(segments[2], Segment::Index(2)));
    assert_eq!(violation.value().raw(), b"10");
    // Nested `required`: the path ends with the missing name.
    let schema = r#"{"properties":{"a":{"items":{"required":["id"]}}}}"#;
    assert_eq!(
        message(schema, r#"{"a":[{"id":1},{"x":1}]}"#),
        r#"argument "a"[1]."id": is required"#
    );
    // Non-ASCII and escaped keys are shown decoded.
    let schema = r#"{"additionalProperties":{"type":"string"}}"#;
    assert_eq!(
        message(schema, r#"{"caf\u00e9":1}"#),
        "argument \"café\": must be string"
    );
}

#[test]
fn path_segments_with_identical_values() {
    // The same text at several places: the path must name the one that failed.
    let schema = r#"{"items":{"items":{"maximum":1}}}"#;
    assert_eq!(
        message(schema, "[[1],[1],[1,2]]"),
        "argument [2][1]: must be <= 1"
    );
}

// ---------------------------------------------------------------- enum and const

#[test]
fn enum_uses_json_equality() {
    let schema = r#"{"enum":["red","green",1,{"a":1,"b":[1,2]},[1,{"x":null}],null,true]}"#;
    accepts(
        schema,
        &[
            r#""red""#,
            r#""gr\u0065en""#,
            "1",
            "1.0",
            "10e-1",
            r#"{"b":[1,2.0],"a":1}"#,
            r#"[1.0,{"x":null}]"#,
            "null",
            "true",
        ],
    );
    rejects(
        schema,
        &[
            r#""blue""#,
            "2",
            "false",
            r#""1""#,
            r#"{"a":1}"#,
            r#"{"a":1,"b":[2,1]}"#,
            r#"{"a":1,"b":[1,2],"c":3}"#,
            r#"[{"x":null},1]"#,
            r#"[1,{"x":null},2]"#,
            "[]",
            "{}",
        ],
    );
}

#[test]
fn enum_messages() {
    assert_eq!(
        message(r#"{"enum":["a","b",3]}"#, r#""c""#),
        r#"arguments: must be one of "a", "b", 3"#
    );
    assert_eq!(
        message(r#"{"enum":[{"a":1}]}"#, "1"),
        "arguments: must be one of the allowed values"
    );
    assert_eq!(
        message(r#"{"enum":[]}"#, "1"),
        "arguments: must be one of the allowed values"
    );
}

#[test]
fn const_uses_json_equality() {
    let schema = r#"{"const":{"k":[1,"\u00e9"],"z":false}}"#;
    accepts(schema, &[r#"{"z":false,"k":[1.0,"é"]}"#]);
    rejects(schema, &[r#"{"z":false,"k":[1,"e"]}"#, "null"]);
    assert_eq!(
        message(r#"{"const":"on"}"#, r#""off""#),
        r#"arguments: must be "on""#
    );
    accepts(r#"{"const":null}"#, &["null"]);
    rejects(r#"{"const":null}"#, &["0"]);
    accepts(r#"{"const":-0}"#, &["0", "0.0"]);
}

#[test]
fn numbers_compare_exactly() {
    accepts(r#"{"const":9007199254740993}"#, &["9007199254740993"]);
    rejects(r#"{"const":9007199254740993}"#, &["9007199254740992"]);
    accepts(r#"{"maximum":9007199254740992}"#, &["9007199254740992"]);
    rejects(r#"{"maximum":9007199254740992}"#, &["9007199254740993"]);
    rejects(r#"{"maximum":1e400}"#, &["2e400"]);
    accepts(r#"{"minimum":-1e400}"#, &["-1e399", "0"]);
}

// ---------------------------------------------------------------- numbers

#[test]
fn numeric_bounds() {
    let schema = r#"{"minimum":1,"maximum":10}"#;
    accepts(schema, &["1", "10", "5.5", "1.0", "1e1", r#""x""#]);
    rejects(schema, &["0", "0.999", "10.0001", "-5", "1e2"]);
    assert_eq!(message(schema, "11"), "arguments: must be <= 10");
    let schema = r#"{"exclusiveMinimum":1,"exclusiveMaximum":10}"#;
    accepts(schema, &["1.5", "9.99"]);
    rejects(schema, &["1", "10", "1.0"]);
    assert_eq!(message(schema, "1"), "arguments: must be > 1");
    assert_eq!(message(schema, "10"), "arguments: must be < 10");
    // Draft 4: booleans next to minimum/maximum.
    let schema = r#"{"minimum":0,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":false}"#;
    accepts(schema, &["0.1", "5"]);
    assert_eq!(message(schema, "0"), "arguments: must be > 0");
    // The limit is shown as written.
    assert_eq!(
        message(r#"{"minimum":2.50}"#, "1"),
        "arguments: must be >= 2.50"
    );
}

// ---------------------------------------------------------------- strings

#[test]
fn string_lengths_count_code_points() {
    let schema = r#"{"minLength":2,"maxLength":3}"#;
    accepts(
        schema,
        &[
            r#""ab""#,
            r#""abc""#,
            r#""é€""#,
            r#""\u00e9\u20ac""#,
            r#""😀😀😀""#,
            r#""\ud83d\ude00\ud83d\ude00""#,
            "5",
        ],
    );
    rejects(
        schema,
        &[
            r#""a""#,
            r#""😀""#,
            r#""\ud83d\ude00""#,
            r#""abcd""#,
            r#""a\nbc""#,
        ],
    );
    assert_eq!(
        message(schema, r#""abcd""#),
        "arguments: must be at most 3 characters long"
    );
    assert_eq!(
        message(r#"{"maxLength":1}"#, r#""ab""#),
        "arguments: must be at most 1 character long"
    );
    accepts(r#"{"minLength":2.0}"#, &[r#""ab""#]);
    accepts(r#"{"maxLength":1e30}"#, &[r#""abc""#]);
}

// ---------------------------------------------------------------- arrays

#[test]
fn items_and_counts() {
    let schema = r#"{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}"#;
    accepts(schema, &[r#"["a"]"#, r#"["a","b","c"]"#]);
    assert_eq!(
        message(schema, "[]"),
        "arguments: must have at least 1 item"
    );
    assert_eq!(
        message(schema, r#"["a","b","c","d"]"#),
        "arguments: must have at most 3 items"
    );
    assert_eq!(
        message(
            r#"{"properties":{"tags":{"items":{"type":"string"}}}}"#,
            r#"{"tags":["a","b",3]}"#
        ),
        r#"argument "tags"[2]: must be string"#
    );
    rejects(r#"{"items":false}"#, &["[1]"]);
    accepts(r#"{"items":false}"#, &["[]"]);
}

#[test]
fn prefix_items_and_tuples() {
    let schema =
        r#"{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"null"}}"#;
    accepts(
        schema,
        &["[]", r#"["a"]"#, r#"["a",1]"#, r#"["a",1,null,null]"#],
    );
    rejects(schema, &["[1]", r#"["a","b"]"#, r#"["a",1,2]"#]);
    // Older drafts: `items` as an array is positional; the rest is unconstrained.
    let schema = r#"{"items":[{"type":"string"},{"type":"integer"}]}"#;
    accepts(schema, &[r#"["a",1,{},[]]"#]);
    rejects(schema, &[r#"[1]"#]);
}

#[test]
fn unique_items() {
    let schema = r#"{"uniqueItems":true}"#;
    accepts(
        schema,
        &["[]", "[1,2,3]", r#"[{"a":1},{"a":2}]"#, "[[1],[1,1]]"],
    );
    rejects(
        schema,
        &[
            "[1,1.0]",
            r#"[{"a":1,"b":2},{"b":2,"a":1}]"#,
            r#"["x","\u0078"]"#,
        ],
    );
    assert_eq!(
        message(
            r#"{"properties":{"v":{"uniqueItems":true}}}"#,
            r#"{"v":[1,2,1]}"#
        ),
        r#"argument "v"[2]: must not contain duplicate items"#
    );
    accepts(r#"{"uniqueItems":false}"#, &["[1,1]"]);
}

// ---------------------------------------------------------------- combinators

#[test]
fn any_one_all_not() {
    let any = r#"{"anyOf":[{"type":"string"},{"minimum":10}]}"#;
    accepts(any, &[r#""x""#, "10", "null"]);
    assert_eq!(
        message(any, "5"),
        "arguments: must match at least one of the allowed schemas"
    );
    let one = r#"{"oneOf":[{"type":"integer"},{"minimum":10}]}"#;
    accepts(one, &["1", "10.5"]);
    assert_eq!(
        message(one, "10"),
        "arguments: must match exactly one schema of oneOf, matched several"
    );
    assert_eq!(
        message(one, "1.5"),
        "arguments: must match exactly one schema of oneOf, matched none"
    );
    let all = r#"{"allOf":[{"type":"integer"},{"minimum":10}]}"#;
    accepts(all, &["10", "11"]);
    assert_eq!(message(all, "9"), "arguments: must be >= 10");
    let not = r#"{"not":{"type":"null"}}"#;
    accepts(not, &["1", "{}"]);
    assert_eq!(
        message(not, "null"),
        "arguments: must not match the schema of not"
    );
}

#[test]
fn schema_errors_inside_combinators_are_not_swallowed() {
    // A broken branch is an error even though another branch would match.
    let reason = reason_of(r#"{"anyOf":[{"minimum":"x"},{}]}"#, "1");
    assert_eq!(reason, Reason::BadSchema { keyword: "minimum" });
    let reason = reason_of(r#"{"not":{"$ref":"https://example.com/s"}}"#, "1");
    assert!(matches!(reason, Reason::UnsupportedRef { .. }));
    let reason = reason_of(r#"{"oneOf":[{}, 7]}"#, "1");
    assert_eq!(reason, Reason::BadSchema { keyword: "" });
}

#[test]
fn boolean_schemas() {
    accepts("true", &["1", "null", "{}"]);
    assert_eq!(message("false", "1"), "arguments: is not allowed");
    assert_eq!(
        message(r#"{"properties":{"gone":false}}"#, r#"{"gone":1}"#),
        r#"argument "gone": is not allowed"#
    );
    accepts("{}", &["1", "[]", r#""x""#]);
}

#[test]
fn unknown_keywords_are_ignored() {
    accepts(
        r#"{"pattern":"^a$","format":"email","multipleOf":3,"x-custom":{"type":"null"},
            "title":"T","description":"D","default":5,"examples":[1],"$schema":"x","$id":"y"}"#,
        &[r#""zzz""#, "7"],
    );
    // A keyword name too long to be one we know is skipped, not refused.
    accepts(
        r#"{"aVeryLongKeywordNameNobodyDefines":1,"t\u0079pe":"string"}"#,
        &[r#""x""#],
    );
    rejects(r#"{"t\u0079pe":"string"}"#, &["1"]);
}

// ---------------------------------------------------------------- $ref

#[test]
fn local_refs_resolve() {
    let schema = r##"{
        "$defs": {"pos": {"type":"integer","minimum":1}, "a/b": {"type":"string"}, "t~": {"type":"null"}},
        "definitions": {"old": {"type":"boolean"}},
        "properties": {
            "n": {"$ref":"#/$defs/pos"},
            "s": {"$ref":"#/$defs/a~1b"},
            "z": {"$ref":"#/$defs/t~0"},
            "b": {"$ref":"#/definitions/old"},
            "deep": {"$ref":"#/properties/n"},
            "first": {"$ref":"#/$defs/list/items/0"}
        }
    }"##;
    accepts(
        schema,
        &[r#"{"n":1,"s":"x","z":null,"b":true,"deep":3}"#, "{}"],
    );
    assert_eq!(
        message(schema, r#"{"n":0}"#),
        r#"argument "n": must be >= 1"#
    );
    assert_eq!(
        message(schema, r#"{"deep":0}"#),
        r#"argument "deep": must be >= 1"#
    );
    rejects(schema, &[r#"{"s":1}"#, r#"{"z":1}"#, r#"{"b":1}"#]);
    assert!(matches!(
        reason_of(schema, r#"{"first":1}"#),
        Reason::UnresolvedRef { .. }
    ));
    // Array indices in pointers.
    let schema =
        r##"{"$defs":{"list":[{"type":"string"},{"type":"null"}]},"$ref":"#/$defs/list/1"}"##;
    accepts(schema, &["null"]);
    rejects(schema, &["1"]);
    for bad in [
        "#/$defs/list/01",
        "#/$defs/list/2",
        "#/$defs/list/-1",
        "#/$defs/list/",
    ] {
        let schema = format!(r#"{{"$defs":{{"list":[{{}},{{}}]}},"$ref":"{bad}"}}"#);
        assert!(
            matches!(reason_of(&schema, "1"), Reason::UnresolvedRef { .. }),
            "{bad}"
        );
    }
}

#[test]
fn ref_siblings_apply_too() {
    let schema = r##"{"$defs":{"int":{"type":"integer"}},"$ref":"#/$defs/int","minimum":5}"##;
    accepts(schema, &["5"]);
    rejects(schema, &["4", "5.5"]);
}

#[test]
fn recursive_schemas_validate_finite_instances() {
    let tree = r##"{"type":"object","properties":{"value":{"type":"integer"},
        "children":{"type":"array","items":{"$ref":"#"}}},"required":["value"]}"##;
    accepts(
        tree,
        &[r#"{"value":1,"children":[{"value":2},{"value":3,"children":[{"value":4}]}]}"#],
    );
    assert_eq!(
        message(
            tree,
            r#"{"value":1,"children":[{"value":2,"children":[{"value":"x"}]}]}"#
        ),
        r#"argument "children"[0]."children"[0]."value": must be integer"#
    );
}

#[test]
fn non_local_refs_are_refused_never_fetched() {
    for reference in [
        "https://example.com/schema.json",
        "other.json#/$defs/a",
        "#anchor",
        "urn:x",
        "",
        "#/$defs/a~2",
    ] {
        let schema = format!(r#"{{"$defs":{{"a":{{}}}},"$ref":"{reference}"}}"#);
        let violation = validate(j(&schema), j("1")).unwrap_err();
        assert!(
            matches!(violation.reason(), Reason::UnsupportedRef { .. }),
            "{reference}"
        );
        assert!(violation.is_schema_error());
        assert_eq!(
            violation.to_string(),
            format!("invalid schema: unsupported $ref \"{reference}\"")
        );
    }
    assert_eq!(
        message(r##"{"$ref":"#/$defs/missing"}"##, "1"),
        r##"invalid schema: $ref "#/$defs/missing" does not resolve"##
    );
}

#[test]
fn ref_cycles_terminate() {
    let cycles = [
        r##"{"$ref":"#"}"##,
        r##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        r##"{"allOf":[{"$ref":"#"}]}"##,
        r##"{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}"##,
        r##"{"oneOf":[{"$ref":"#"},{"$ref":"#"},{"$ref":"#"}]}"##,
        r##"{"not":{"$ref":"#"}}"##,
        r##"{"properties":{"a":{"$ref":"#/properties/a"}}}"##,
    ];
    for schema in cycles {
        for instance in ["1", r#"{"a":1}"#] {
            match validate(j(schema), j(instance)) {
                Ok(()) => {}
                Err(v) => assert!(
                    matches!(v.reason(), Reason::TooDeep | Reason::TooComplex),
                    "{schema} on {instance}: {v}"
                ),
            }
        }
    }
    assert_eq!(reason_of(r##"{"$ref":"#"}"##, "1"), Reason::TooDeep);
    assert_eq!(
        message(r##"{"$ref":"#"}"##, "1"),
        "invalid schema: nested too deeply"
    );
}

#[test]
fn exponential_schemas_run_out_of_steps() {
    // Each level applies the next one twice: 2^40 applications without a budget.
    let mut schema = String::from(r#"{"$defs":{"d40":{}"#);
    for level in (0..40).rev() {
        let next = level + 1;
        schema.push_str(&format!(
            r##","d{level}":{{"allOf":[{{"$ref":"#/$defs/d{next}"}},{{"$ref":"#/$defs/d{next}"}}]}}"##
        ));
    }
    schema.push_str(r##"},"$ref":"#/$defs/d0"}"##);
    let options = Options {
        max_depth: 100,
        ..Options::DEFAULT
    };
    let violation = validate_with(j(&schema), j("1"), &options).unwrap_err();
    assert_eq!(violation.reason(), Reason::TooComplex);
    assert_eq!(
        violation.to_string(),
        "invalid schema: too costly to evaluate"
    );
    // Same with anyOf whose branches all fail.
    let mut schema = String::from(r#"{"$defs":{"d40":false"#);
    for level in (0..40).rev() {
        let next = level + 1;
        schema.push_str(&format!(
            r##","d{level}":{{"anyOf":[{{"$ref":"#/$defs/d{next}"}},{{"$ref":"#/$defs/d{next}"}}]}}"##
        ));
    }
    schema.push_str(r##"},"$ref":"#/$defs/d0"}"##);
    let violation = validate_with(j(&schema), j("1"), &options).unwrap_err();
    assert_eq!(violation.reason(), Reason::TooComplex);
}

#[test]
fn small_budgets_are_honoured() {
    let options = Options {
        max_depth: 32,
        max_steps: 10,
        ..Options::DEFAULT
    };
    let schema = r#"{"items":{"type":"integer"}}"#;
    assert!(validate_with(j(schema), j("[1,2,3]"), &options).is_ok());
    let many = format!("[{}1]", "1,".repeat(20));
    assert_eq!(
        validate_with(j(schema), j(&many), &options)
            .unwrap_err()
            .reason(),
        Reason::TooComplex
    );
    let zero = Options {
        max_depth: 0,
        max_steps: 0,
        ..Options::DEFAULT
    };
    assert_eq!(
        validate_with(j("{}"), j("1"), &zero).unwrap_err().reason(),
        Reason::TooComplex
    );
}

// ---------------------------------------------------------------- adversarial schemas

#[test]
fn non_schema_values_are_schema_errors() {
    for schema in [
        "1",
        "null",
        r#""object""#,
        "[]",
        r#"[{"type":"string"}]"#,
        "-0.5",
    ] {
        let violation = validate(j(schema), j("1")).unwrap_err();
        assert_eq!(
            violation.reason(),
            Reason::BadSchema { keyword: "" },
            "{schema}"
        );
        assert!(violation.is_schema_error());
        assert_eq!(
            violation.to_string(),
            "invalid schema: a schema is neither an object nor a boolean"
        );
    }
    // Nested non-schemas are found when reached.
    let schema = r#"{"properties":{"a":3}}"#;
    accepts(schema, &["{}", r#"{"b":1}"#]);
    assert_eq!(
        reason_of(schema, r#"{"a":1}"#),
        Reason::BadSchema { keyword: "" }
    );
}

#[test]
fn wrong_typed_keywords_are_schema_errors() {
    let cases = [
        (r#"{"type":"strin"}"#, "type"),
        (r#"{"type":1}"#, "type"),
        (r#"{"type":[]}"#, "type"),
        (r#"{"type":["string",1]}"#, "type"),
        (r#"{"type":["string","nope"]}"#, "type"),
        (r#"{"type":{"a":1}}"#, "type"),
        (r#"{"type":"integerxx"}"#, "type"),
        (r#"{"enum":"a"}"#, "enum"),
        (r#"{"minimum":"1"}"#, "minimum"),
        (r#"{"maximum":null}"#, "maximum"),
        (r#"{"exclusiveMinimum":"1"}"#, "exclusiveMinimum"),
        (r#"{"exclusiveMaximum":[]}"#, "exclusiveMaximum"),
        (r#"{"minLength":-1}"#, "minLength"),
        (r#"{"maxLength":1.5}"#, "maxLength"),
        (r#"{"minItems":"2"}"#, "minItems"),
        (r#"{"maxItems":-0.5}"#, "maxItems"),
        (r#"{"minProperties":true}"#, "minProperties"),
        (r#"{"maxProperties":{}}"#, "maxProperties"),
        (r#"{"uniqueItems":1}"#, "uniqueItems"),
        (r#"{"required":"a"}"#, "required"),
        (r#"{"required":["a",1]}"#, "required"),
        (r#"{"properties":[]}"#, "properties"),
        (r#"{"additionalProperties":1}"#, "additionalProperties"),
        (r#"{"items":"x"}"#, "items"),
        (r#"{"prefixItems":{}}"#, "prefixItems"),
        (r#"{"allOf":[]}"#, "allOf"),
        (r#"{"anyOf":{}}"#, "anyOf"),
        (r#"{"oneOf":null}"#, "oneOf"),
        (r#"{"not":[]}"#, "not"),
        (r#"{"$ref":1}"#, "$ref"),
        (r#"{"$defs":[]}"#, "$defs"),
        (r#"{"definitions":"x"}"#, "definitions"),
    ];
    for (schema, keyword) in cases {
        let violation = validate(j(schema), j("1")).unwrap_err();
        assert_eq!(
            violation.reason(),
            Reason::BadSchema { keyword },
            "{schema}"
        );
        assert_eq!(
            violation.to_string(),
            format!("invalid schema: keyword \"{keyword}\" is malformed")
        );
        assert!(
            check_schema(j(schema), &Options::DEFAULT).is_err(),
            "{schema}"
        );
    }
}

#[test]
fn deep_schemas_are_refused_not_overflowed() {
    // 3000 nested `items`: far beyond the depth bound.
    let depth = 3000;
    let schema = format!("{}{{}}{}", r#"{"items":"#.repeat(depth), "}".repeat(depth));
    let instance = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert_eq!(reason_of(&schema, &instance), Reason::TooDeep);
    // Deep `not` chains do not need an instance to go deep.
    let schema = format!("{}{{}}{}", r#"{"not":"#.repeat(depth), "}".repeat(depth));
    assert_eq!(reason_of(&schema, "1"), Reason::TooDeep);
    assert_eq!(
        check_schema(j(&schema), &Options::DEFAULT)
            .unwrap_err()
            .reason(),
        Reason::TooDeep
    );
    // Up to the bound works.
    let schema = format!("{}{{}}{}", r#"{"not":"#.repeat(30), "}".repeat(30));
    assert!(validate(j(&schema), j("1")).is_ok());
}

#[test]
fn deep_values_in_enum_and_const_are_bounded() {
    let depth = 2000;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let schema = format!(r#"{{"const":{deep}}}"#);
    assert_eq!(reason_of(&schema, &deep), Reason::TooDeep);
    let schema = format!(r#"{{"enum":[1,{deep}]}}"#);
    assert_eq!(reason_of(&schema, &deep), Reason::TooDeep);
    let pair = format!("[{deep},{deep}]");
    assert_eq!(reason_of(r#"{"uniqueItems":true}"#, &pair), Reason::TooDeep);
    // Shallow comparisons with deep values fail fast on kind or length.
    assert!(run(r#"{"const":1}"#, &deep).is_err());
}

#[test]
fn huge_numbers_in_keywords() {
    accepts(
        r#"{"maxItems":1e999,"minLength":0e999,"maximum":1e99999}"#,
        &[r#""""#, "[]", "1"],
    );
    rejects(r#"{"minItems":1e999}"#, &["[1,2,3]"]);
    accepts(
        r#"{"minimum":-99999999999999999999999999999999999999999999999999}"#,
        &["-1e49"],
    );
}

// ---------------------------------------------------------------- check_schema

#[test]
fn check_schema_walks_everything() {
    let good = r##"{"type":"object","$defs":{"p":{"type":"integer"}},
        "properties":{"a":{"$ref":"#/$defs/p"},"b":{"items":[{},true],"prefixItems":[false]},
        "c":{"anyOf":[{},{"not":{}}],"allOf":[{}],"oneOf":[{}]}},
        "additionalProperties":{"type":"string"}}"##;
    assert!(check_schema(j(good), &Options::DEFAULT).is_ok());
    assert!(check_schema(j("true"), &Options::DEFAULT).is_ok());

    let schema = r##"{"properties":{"a":{"properties":{"b":{"minimum":"x"}}}}}"##;
    let violation = check_schema(j(schema), &Options::DEFAULT).unwrap_err();
    assert_eq!(violation.reason(), Reason::BadSchema { keyword: "minimum" });
    assert_eq!(
        violation.path().to_string(),
        r#""properties"."a"."properties"."b"."minimum""#
    );

    let schema = r##"{"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/y"}]}}}"##;
    let violation = check_schema(j(schema), &Options::DEFAULT).unwrap_err();
    assert!(matches!(violation.reason(), Reason::UnresolvedRef { .. }));
    assert_eq!(
        violation.path().to_string(),
        r#""$defs"."x"."anyOf"[0]."$ref""#
    );

    let schema = r##"{"properties":{"a":5}}"##;
    let violation = check_schema(j(schema), &Options::DEFAULT).unwrap_err();
    assert_eq!(violation.reason(), Reason::BadSchema { keyword: "" });
    assert_eq!(violation.path().to_string(), r#""properties"."a""#);

    assert!(check_schema(j("3"), &Options::DEFAULT).is_err());
    // A cycle is fine for check_schema: references are resolved, not followed.
    assert!(check_schema(j(r##"{"$ref":"#"}"##), &Options::DEFAULT).is_ok());
}

// ---------------------------------------------------------------- messages and types

#[test]
fn every_reason_displays() {
    let root = j(r#"{"k":[1]}"#);
    let number = j("3").as_number().unwrap();
    let name = j(r#""n""#).as_str().unwrap();
    let reasons = [
        Reason::Type {
            expected: TypeSet::STRING,
        },
        Reason::Enum {
            allowed: j("[1]").as_array().unwrap(),
        },
        Reason::Const { expected: j("1") },
        Reason::Minimum {
            limit: number,
            exclusive: false,
        },
        Reason::Maximum {
            limit: number,
            exclusive: true,
        },
        Reason::MinLength { limit: 1 },
        Reason::MaxLength { limit: 2 },
        Reason::MinItems { limit: 1 },
        Reason::MaxItems { limit: 2 },
        Reason::UniqueItems,
        Reason::MinProperties { limit: 0 },
        Reason::MaxProperties { limit: 1 },
        Reason::Required { name },
        Reason::NotAllowed,
        Reason::AnyOf,
        Reason::OneOfNone,
        Reason::OneOfSeveral,
        Reason::Not,
        Reason::BadSchema { keyword: "type" },
        Reason::UnsupportedRef { reference: name },
        Reason::UnresolvedRef { reference: name },
        Reason::TooDeep,
        Reason::TooComplex,
    ];
    for reason in reasons {
        let text = reason.to_string();
        assert!(!text.is_empty());
        let v = Violation::new(reason, root, root);
        let _ = v.to_string();
        let _ = format!("{v:?}");
    }
}

#[test]
fn type_set_behaves_as_a_set() {
    let set = TypeSet::STRING.union(TypeSet::NULL);
    assert!(set.contains(TypeSet::NULL));
    assert!(!set.contains(TypeSet::NUMBER));
    assert_eq!(set.to_string(), "string or null");
    assert_eq!(format!("{set:?}"), r#"{"string", "null"}"#);
    assert_eq!(TypeSet::from_name("integer"), Some(TypeSet::INTEGER));
    assert_eq!(TypeSet::from_name("Integer"), None);
    assert!(TypeSet::default().is_empty());
    assert_eq!(TypeSet::default().to_string(), "");
}

#[test]
fn violations_are_small_and_copy() {
    fn is_copy<T: Copy>() {}
    is_copy::<Violation<'static>>();
    assert!(core::mem::size_of::<Violation<'static>>() <= 64);
}

#[test]
fn a_tool_schema_from_the_spec() {
    let schema = r#"{
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City name or zip code"},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 7}
        },
        "required": ["location"],
        "additionalProperties": false
    }"#;
    accepts(
        schema,
        &[
            r#"{"location":"Paris"}"#,
            r#"{"location":"10001","units":"celsius","days":7.0}"#,
        ],
    );
    assert_eq!(
        message(schema, r#"{"location":"Paris","units":"kelvin"}"#),
        r#"argument "units": must be one of "celsius", "fahrenheit""#
    );
    assert_eq!(
        message(schema, r#"{"location":"Paris","days":8}"#),
        r#"argument "days": must be <= 7"#
    );
    assert_eq!(
        message(schema, r#"{"location":"Paris","day":1}"#),
        r#"argument "day": is not allowed"#
    );
    assert_eq!(
        message(schema, r#"{"units":"celsius"}"#),
        r#"argument "location": is required"#
    );
}

// ---------------------------------------------------------------- never panics

/// A tiny deterministic generator of JSON texts drawn from schema-ish vocabulary.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items[(self.next() % items.len() as u64) as usize]
    }

    fn value(&mut self, out: &mut String, depth: u32) {
        const KEYWORDS: &[&str] = &[
            "type",
            "enum",
            "const",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "properties",
            "required",
            "additionalProperties",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "$ref",
            "$defs",
            "definitions",
            "a",
            "b",
            "x",
            "minProperties",
            "maxProperties",
        ];
        const SCALARS: &[&str] = &[
            "0",
            "1",
            "-1",
            "2.5",
            "1e400",
            "-0",
            "1.0",
            "3",
            "true",
            "false",
            "null",
            r#""string""#,
            r#""integer""#,
            r#""number""#,
            r#""object""#,
            r#""array""#,
            r#""null""#,
            r#""boolean""#,
            r##""#""##,
            r##""#/$defs/a""##,
            r##""#/definitions/b""##,
            r##""#/properties/a""##,
            r#""a""#,
            r#""b""#,
            r#""\u00e9""#,
            r#""http://x""#,
            r##""#/$defs/a~1b""##,
            r##""#/items/0""##,
        ];
        let choice = if depth > 6 { 0 } else { self.next() % 4 };
        match choice {
            0 => out.push_str(self.pick(SCALARS)),
            1 => {
                out.push('[');
                let n = self.next() % 4;
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(out, depth + 1);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                let n = self.next() % 5;
                let mut used: Vec<&str> = Vec::new();
                for _ in 0..n {
                    let key = self.pick(KEYWORDS);
                    if used.contains(&key) {
                        continue;
                    }
                    if !used.is_empty() {
                        out.push(',');
                    }
                    used.push(key);
                    out.push('"');
                    out.push_str(key);
                    out.push_str("\":");
                    self.value(out, depth + 1);
                }
                out.push('}');
            }
        }
    }
}

#[test]
fn random_schemas_and_instances_never_panic() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let options = Options {
        max_depth: 16,
        max_steps: 5_000,
        ..Options::DEFAULT
    };
    let mut outcomes = [0usize; 2];
    for _ in 0..20_000 {
        let mut schema = String::new();
        let mut instance = String::new();
        g.value(&mut schema, 0);
        g.value(&mut instance, 0);
        let (s, i) = (j(&schema), j(&instance));
        let result = validate_with(s, i, &options);
        outcomes[usize::from(result.is_err())] += 1;
        if let Err(v) = result {
            let _ = v.to_string();
            let _ = v.path().segments().count();
        }
        if let Err(v) = check_schema(s, &options) {
            let _ = v.to_string();
        }
        // The instance against itself as a schema, too.
        let _ = validate_with(i, s, &options).map_err(|v| v.to_string());
        // With a plan and the instance's members noted, the outcome is the same.
        let (noted_i, members) = noted(&instance);
        let plan = Plan::compile(s);
        assert_eq!(
            format!(
                "{:?}",
                validate_prepared(s, plan.as_ref(), noted_i, Some(&members))
            ),
            format!("{:?}", validate(s, i)),
            "{schema} on {instance}"
        );
    }
    assert!(outcomes[0] > 100 && outcomes[1] > 100, "{outcomes:?}");
}

#[test]
fn rescanning_large_schemas_is_paid_for() {
    // A 256 KiB description before the definitions: every `$ref` rescans it.
    let padding = "x".repeat(256 * 1024);
    let schema = format!(
        r##"{{"description":"{padding}","items":{{"$ref":"#/$defs/item"}},"$defs":{{"item":{{"type":"integer"}}}}}}"##
    );
    let instance = format!("[{}0]", "0,".repeat(10_000));
    assert_eq!(reason_of(&schema, &instance), Reason::TooComplex);
    // A few items are fine.
    assert!(run(&schema, "[1,2,3]").is_ok());
}

#[test]
fn keyword_frames_stay_small() {
    assert!(core::mem::size_of::<super::keywords::Keywords<'static>>() <= 512);
}

// ---------------------------------------------------------------- plans

const INGEST: &str = r#"{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100},"records":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}}}}},"required":["query"]}"#;

#[test]
fn a_plan_covers_the_root_and_its_property_schemas() {
    let schema = j(INGEST);
    let plan = Plan::compile(schema).expect("a plan");
    let properties = schema.get("properties").unwrap();
    let mut k = keywords::Keywords::default();
    assert!(plan.keywords(schema.raw(), schema.raw(), &mut k));
    assert!(
        k.object.properties.is_some()
            && k.object.required.is_some()
            && k.object.property_table.is_some()
    );
    for name in ["query", "limit", "records"] {
        let sub = properties.get(name).unwrap();
        k = keywords::Keywords::default();
        assert!(plan.keywords(schema.raw(), sub.raw(), &mut k), "{name}");
        assert!(k.types.is_some(), "{name}");
    }
    assert_eq!(k.items, properties.get("records").unwrap().get("items"));
    // Deeper objects are read on use; a text of another length is not the plan's.
    let items = properties.get("records").unwrap().get("items").unwrap();
    assert!(!plan.keywords(schema.raw(), items.raw(), &mut k));
    let longer = format!("{INGEST} ");
    assert!(!plan.keywords(longer.as_bytes(), longer.as_bytes(), &mut k));
}

#[test]
fn planned_and_unplanned_validation_agree() {
    let instances = [
        r#"{"query":"lab","limit":25}"#,
        r#"{"query":"","limit":25}"#,
        r#"{"query":"lab","limit":0}"#,
        r#"{"query":"lab","limit":2.5}"#,
        r#"{"limit":5}"#,
        r#"{"query":"lab","records":[{"id":1},{"id":"x"}]}"#,
        r#"{"query":"lab","note":"anything"}"#,
        r#"[]"#,
    ];
    for instance in instances {
        let _ = checked(INGEST, instance);
    }
    let exclusive = r#"{"properties":{"n":{"minimum":1,"exclusiveMinimum":true,"maximum":3,"exclusiveMaximum":true}}}"#;
    for instance in [r#"{"n":1}"#, r#"{"n":2}"#, r#"{"n":3}"#] {
        let _ = checked(exclusive, instance);
    }
}

#[test]
fn keywords_a_plan_keeps_as_values_validate_as_read() {
    // `type` lists, counts, `uniqueItems`, numeric exclusive bounds and `required`, each
    // replayed from the plan without reading again, on both sides of every limit.
    let schema = r#"{"type":["object","null"],"minProperties":1,"maxProperties":3,"required":["s"],"properties":{"s":{"type":["string","integer"],"minLength":2,"maxLength":3,"exclusiveMinimum":0,"exclusiveMaximum":5},"a":{"type":"array","minItems":1,"maxItems":2,"uniqueItems":true},"o":{"minProperties":1,"maxProperties":1}}}"#;
    let plan = Plan::compile(j(schema)).expect("a plan");
    let mut k = keywords::Keywords::default();
    assert!(plan.keywords(j(schema).raw(), j(schema).raw(), &mut k));
    assert_eq!(k.types, Some(TypeSet::OBJECT.union(TypeSet::NULL)));
    assert_eq!(
        (k.object.min_properties, k.object.max_properties),
        (Some(1), Some(3))
    );
    let instances = [
        "null",
        "{}",
        r#"{"s":"ab"}"#,
        r#"{"s":"a"}"#,
        r#"{"s":"abcd"}"#,
        r#"{"s":0}"#,
        r#"{"s":5}"#,
        r#"{"s":4.5}"#,
        r#"{"s":true}"#,
        r#"{"s":"ab","a":[]}"#,
        r#"{"s":"ab","a":[1,1]}"#,
        r#"{"s":"ab","a":[1,2,3]}"#,
        r#"{"s":"ab","a":[1,2]}"#,
        r#"{"s":"ab","o":{}}"#,
        r#"{"s":"ab","o":{"x":1,"y":2}}"#,
        r#"{"s":"ab","a":[1],"o":{"x":1},"z":0}"#,
        r#"{"a":[1]}"#,
    ];
    for instance in instances {
        let _ = checked(schema, instance);
    }
    // A count that does not fit a plan's word leaves its object to be read on use.
    let huge = r#"{"properties":{"s":{"maxLength":4294967296},"t":{"maxLength":4294967295}}}"#;
    for instance in [r#"{"s":"x","t":"y"}"#, r#"{"t":1}"#] {
        let _ = checked(huge, instance);
    }
    let (plan, text) = (Plan::compile(j(huge)).expect("a plan"), j(huge));
    let properties = text.get("properties").unwrap();
    let (s, t) = (properties.get("s").unwrap(), properties.get("t").unwrap());
    k = keywords::Keywords::default();
    assert!(!plan.keywords(text.raw(), s.raw(), &mut k));
    k = keywords::Keywords::default();
    assert!(plan.keywords(text.raw(), t.raw(), &mut k));
    assert_eq!(k.max_length, Some(u64::from(u32::MAX)));
}

#[test]
fn schemas_a_plan_cannot_hold_are_validated_unplanned() {
    // Not an object, or malformed keywords at the root: no plan.
    assert!(Plan::compile(j("true")).is_none());
    assert!(Plan::compile(j(r#"{"minimum":"1"}"#)).is_none());
    // A malformed property schema is left out and still reported when reached.
    let schema = r#"{"properties":{"a":{"minLength":-1},"b":{"type":"string"}}}"#;
    assert!(Plan::compile(j(schema)).is_some());
    assert!(
        checked(schema, r#"{"a":"x"}"#)
            .unwrap_err()
            .is_schema_error()
    );
    assert!(checked(schema, r#"{"b":1}"#).is_err());
    // More keywords than a plan holds: the rest are read on use.
    let many: Vec<String> = (0..40)
        .map(|i| format!(r#""p{i}":{{"type":"integer","minimum":{i}}}"#))
        .collect();
    let wide = format!(r#"{{"properties":{{{}}}}}"#, many.join(","));
    for instance in [r#"{"p3":3,"p39":39}"#, r#"{"p39":38}"#, r#"{"p2":1}"#] {
        let _ = checked(&wide, instance);
    }
}

#[test]
fn planned_objects_spend_the_budget_as_read_ones() {
    // A planned object schema is applied from the plan's words, not from keywords read
    // again: the verdict and what is left of the budget must be the same either way, or a
    // budget limit would refuse a call with a plan that passes without one.
    let with_counts = r#"{"type":"object","minProperties":1,"maxProperties":3,"required":["query"],"properties":{"query":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":{"type":"string"}}"#;
    let cases = [
        (
            INGEST,
            r#"{"query":"lab","limit":25,"note":"padding padding padding padding padding padding padding padding"}"#,
        ),
        (INGEST, r#"{"limit":25}"#),
        (INGEST, r#"{"query":"lab","records":[{"id":1},{"id":2}]}"#),
        (INGEST, r#"[1,2]"#),
        (with_counts, r#"{"query":"a","n":1,"x":"y"}"#),
        (with_counts, r#"{"query":"a","x":7}"#),
        (with_counts, r#"{}"#),
        (with_counts, r#"{"query":"a","n":1,"x":"y","z":"w"}"#),
    ];
    for (schema, instance) in cases {
        let plan = Plan::compile(j(schema)).expect("a plan");
        let options = Options::DEFAULT;
        let mut read = validate::Validator::new(j(schema), j(instance), &options);
        let read_outcome = format!("{:?}", read.node(None, j(schema), j(instance), 0));
        let mut planned =
            validate::Validator::new(j(schema), j(instance), &options).with_plan(Some(&plan));
        let planned_outcome = format!("{:?}", planned.node(None, j(schema), j(instance), 0));
        assert_eq!(planned_outcome, read_outcome, "{schema} on {instance}");
        assert_eq!(
            planned.steps_left(),
            read.steps_left(),
            "{schema} on {instance}"
        );
        assert!(
            read.steps_left() < options.max_steps,
            "{instance} spent nothing"
        );
    }
}

#[test]
fn a_property_is_found_however_either_side_escapes_its_name() {
    // The property table rules names out by their first byte; an escape there must not
    // hide a declared property, on either side.
    let schema = r#"{"properties":{"\u006eame":{"type":"string"},"id":{"type":"integer"}}}"#;
    rejects(
        schema,
        &[r#"{"name":5}"#, r#"{"n\u0061me":5}"#, r#"{"\u006eame":5}"#],
    );
    rejects(schema, &[r#"{"\u0069d":"x"}"#, r#"{"id":"x"}"#]);
    accepts(
        schema,
        &[
            r#"{"name":"x","id":1,"zz":1}"#,
            r#"{"\u006eame":"x"}"#,
            r#"{".":1}"#,
        ],
    );
    let plain = r#"{"properties":{"name":{"type":"string"}}}"#;
    rejects(plain, &[r#"{"\u006eame":5}"#, r#"{"name":5}"#]);
    accepts(plain, &[r#"{".ame":5}"#, r#"{"":5}"#]);
}

// ---------------------------------------------------------------- formats

#[test]
fn formats_annotate_unless_asserted() {
    let schema = j(r#"{"type":"string","format":"email"}"#);
    let (good, bad) = (j(r#""a@b.c""#), j(r#""not an address""#));
    // By default `format` is an annotation, as 2020-12 has it: a tool argument passes.
    assert!(validate(schema, bad).is_ok());
    let asserted = validate_with(schema, bad, &Options::FORM).unwrap_err();
    assert_eq!(
        asserted.reason(),
        Reason::Format {
            format: super::format::Format::Email
        }
    );
    assert_eq!(asserted.to_string(), "arguments: must be a valid email");
    assert!(validate_with(schema, good, &Options::FORM).is_ok());
    // A name the validator does not know stays an annotation; a non-string is a bad schema.
    let unknown = j(r#"{"type":"string","format":"uuid"}"#);
    assert!(validate_with(unknown, bad, &Options::FORM).is_ok());
    let broken = j(r#"{"format":7}"#);
    assert!(check_schema(broken, &Options::DEFAULT).is_err());
}
