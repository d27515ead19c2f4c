use super::*;
use crate::json::{Limits, parse};

fn v(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &Limits::default()).unwrap()
}

/// [`super::check_content`], and for a schema that passes [`check_schema`] the check through
/// its [`FormShape`] (what a built `FormSchema` uses), which must agree with it.
fn check_content(schema: Value<'_>, content: Value<'_>) -> bool {
    let verdict = super::check_content(schema, content);
    if check_schema(schema).is_ok() {
        let shape = FormShape::of(schema);
        assert_ne!(
            shape,
            FormShape::NONE,
            "a checked schema of a few properties"
        );
        assert_eq!(
            shape.check_content(schema, content),
            verdict,
            "{:?} {:?}",
            core::str::from_utf8(schema.raw()),
            core::str::from_utf8(content.raw())
        );
    }
    verdict
}

#[test]
fn a_shape_is_taken_of_checked_schemas_of_up_to_32_properties() {
    let properties = |n: usize| {
        let p: std::vec::Vec<_> = (0..n)
            .map(|i| std::format!(r#""p{i}":{{"type":"boolean"}}"#))
            .collect();
        std::format!(
            r#"{{"type":"object","properties":{{{}}},"required":["p{}"]}}"#,
            p.join(","),
            n - 1
        )
    };
    let (wide, wider) = (properties(32), properties(33));
    let wide = v(&wide);
    let shape = FormShape::of(wide);
    assert_ne!(shape, FormShape::NONE, "32 properties");
    assert!(
        !shape.check_content(wide, v(r#"{"p0":true}"#)),
        "p31 is required"
    );
    assert!(shape.check_content(wide, v(r#"{"p31":false}"#)));
    // Wider: no shape, and the answer is checked by walking the schema.
    let wider = v(&wider);
    assert_eq!(FormShape::of(wider), FormShape::NONE);
    assert!(
        !FormShape::NONE.check_content(wider, v(r#"{"p0":true}"#)),
        "p32 is required"
    );
    assert!(FormShape::NONE.check_content(wider, v(r#"{"p32":true}"#)));
}

fn schema(text: &str) -> Result<(), &'static str> {
    check_schema(v(text)).map_err(|e| e.reason)
}

/// A schema with the single property `p` declared as `property`.
fn one(property: &str) -> Result<(), &'static str> {
    let text = std::format!(r#"{{"type":"object","properties":{{"p":{property}}}}}"#);
    schema(&text)
}

/// Whether `{"p": value}` satisfies the one-property schema (which must itself pass).
fn accepts(property: &str, value: &str) -> bool {
    let schema_text = std::format!(r#"{{"type":"object","properties":{{"p":{property}}}}}"#);
    let content_text = std::format!(r#"{{"p":{value}}}"#);
    let s = v(&schema_text);
    assert_eq!(check_schema(s), Ok(()), "{schema_text}");
    check_content(s, v(&content_text))
}

// --- the spec's examples ---

#[test]
fn accepts_every_example_of_the_spec() {
    for property in [
        r#"{"type":"string","title":"Display Name","description":"Description text",
            "minLength":3,"maxLength":50,"format":"email","default":"user@example.com"}"#,
        r#"{"type":"number","title":"Display Name","description":"Description text",
            "minimum":0,"maximum":100,"default":50}"#,
        r#"{"type":"integer","minimum":0,"maximum":100,"default":50}"#,
        r#"{"type":"boolean","title":"Display Name","description":"Description text",
            "default":false}"#,
        r#"{"type":"string","title":"Color Selection","description":"Choose your favorite color",
            "enum":["Red","Green","Blue"],"default":"Red"}"#,
        r##"{"type":"string","title":"Color Selection","description":"Choose your favorite color",
            "oneOf":[{"const":"#FF0000","title":"Red"},{"const":"#00FF00","title":"Green"},
                     {"const":"#0000FF","title":"Blue"}],"default":"#FF0000"}"##,
        r#"{"type":"array","title":"Color Selection","description":"Choose your favorite colors",
            "minItems":1,"maxItems":2,"items":{"type":"string","enum":["Red","Green","Blue"]},
            "default":["Red","Green"]}"#,
        r##"{"type":"array","title":"Color Selection","description":"Choose your favorite colors",
            "minItems":1,"maxItems":2,
            "items":{"anyOf":[{"const":"#FF0000","title":"Red"},{"const":"#00FF00","title":"Green"},
                              {"const":"#0000FF","title":"Blue"}]},
            "default":["#FF0000","#00FF00"]}"##,
        r#"{"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"b"}"#,
    ] {
        assert_eq!(one(property), Ok(()), "{property}");
    }
}

#[test]
fn accepts_the_spec_forms_and_their_answers() {
    let simple =
        v(r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#);
    assert_eq!(check_schema(simple), Ok(()));
    assert!(check_content(simple, v(r#"{"name":"octocat"}"#)));
    assert!(!check_content(simple, v(r#"{}"#)));

    let contact = v(r#"{"type":"object","properties":{
        "name":{"type":"string","description":"Your full name"},
        "email":{"type":"string","format":"email","description":"Your email address"},
        "age":{"type":"number","minimum":18,"description":"Your age"}},
        "required":["name","email"]}"#);
    assert_eq!(check_schema(contact), Ok(()));
    assert!(check_content(
        contact,
        v(r#"{"name":"Monalisa Octocat","email":"octocat@github.com","age":30}"#)
    ));
    assert!(check_content(
        contact,
        v(r#"{"name":"M","email":"octocat@github.com"}"#)
    ));
    assert!(!check_content(
        contact,
        v(r#"{"name":"M","email":"octocat@github.com","age":17}"#)
    ));
    assert!(!check_content(
        contact,
        v(r#"{"name":"M","email":"not an email"}"#)
    ));
    assert!(!check_content(
        contact,
        v(r#"{"email":"octocat@github.com"}"#)
    ));
}

// --- the schema object ---

#[test]
fn top_level_shape() {
    assert_eq!(schema(r#"{"type":"object","properties":{}}"#), Ok(()));
    assert_eq!(
        schema(
            r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
                "title":"T","description":"D","properties":{},"required":[]}"#
        ),
        Ok(())
    );
    assert_eq!(schema("[]"), Err("form schema must be an object"));
    assert_eq!(schema("null"), Err("form schema must be an object"));
    assert_eq!(
        schema(r#"{"properties":{}}"#),
        Err("form schema type must be \"object\"")
    );
    assert_eq!(
        schema(r#"{"type":"array","properties":{}}"#),
        Err("form schema type must be \"object\"")
    );
    assert_eq!(
        schema(r#"{"type":["object"],"properties":{}}"#),
        Err("form schema type must be \"object\"")
    );
    assert_eq!(
        schema(r#"{"type":"object"}"#),
        Err("form schema needs properties")
    );
    assert_eq!(
        schema(r#"{"type":"object","properties":[]}"#),
        Err("form schema properties must be an object")
    );
    assert_eq!(
        schema(r#"{"type":"object","properties":{},"$schema":1}"#),
        Err("form schema $schema must be a string")
    );
    assert_eq!(
        schema(r#"{"type":"object","properties":{},"title":1}"#),
        Err("form schema title and description must be strings")
    );
    assert_eq!(
        schema(r#"{"type":"object","properties":{},"description":null}"#),
        Err("form schema title and description must be strings")
    );
}

#[test]
fn refuses_every_other_top_level_keyword() {
    for keyword in [
        r#""additionalProperties":false"#,
        r#""$defs":{}"#,
        r##""$ref":"#""##,
        r#""allOf":[]"#,
        r#""if":{}"#,
        r#""minProperties":1"#,
        r#""x-extension":1"#,
    ] {
        let text = std::format!(r#"{{"type":"object","properties":{{}},{keyword}}}"#);
        assert_eq!(
            schema(&text),
            Err("form schema has an unsupported keyword \
                 (allowed: $schema, type, title, description, properties, required)"),
            "{keyword}"
        );
    }
}

#[test]
fn required_names_declared_properties_once() {
    let base = r#""type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"}}"#;
    let with = |required: &str| {
        let text = std::format!(r#"{{{base},"required":{required}}}"#);
        schema(&text)
    };
    assert_eq!(with(r#"["a","b"]"#), Ok(()));
    assert_eq!(with(r#"["\u0061"]"#), Ok(()));
    assert_eq!(with("[]"), Ok(()));
    assert_eq!(
        with(r#"["c"]"#),
        Err("form schema required names an undeclared property")
    );
    assert_eq!(
        with(r#"["a","a"]"#),
        Err("form schema required names a property twice")
    );
    assert_eq!(
        with(r#"["a","\u0061"]"#),
        Err("form schema required names a property twice")
    );
    assert_eq!(
        with(r#""a""#),
        Err("form schema required must be an array of strings")
    );
    assert_eq!(
        with("[1]"),
        Err("form schema required must be an array of strings")
    );
    assert_eq!(
        with("true"),
        Err("form schema required must be an array of strings")
    );
}

// --- properties ---

#[test]
fn property_types() {
    assert_eq!(one("[]"), Err("form property must be an object"));
    assert_eq!(one("{}"), Err("form property needs a type"));
    assert_eq!(
        one(r#"{"type":["string","null"]}"#),
        Err("form property type must be a single string")
    );
    assert_eq!(
        one(r#"{"type":"object","properties":{}}"#),
        Err("form properties cannot be nested objects (the schema is flat)")
    );
    assert_eq!(
        one(r#"{"type":"null"}"#),
        Err("form property type must be string, number, integer, boolean or array")
    );
    assert_eq!(
        one(r#"{"type":"String"}"#),
        Err("form property type must be string, number, integer, boolean or array")
    );
    assert_eq!(
        one(r#"{"type":"string","title":5}"#),
        Err("form property title and description must be strings")
    );
    assert_eq!(
        one(r#"{"type":"boolean","description":{}}"#),
        Err("form property title and description must be strings")
    );
}

#[test]
fn refuses_every_other_property_keyword() {
    let string = "form string property has an unsupported keyword \
                  (allowed: type, title, description, minLength, maxLength, format, default)";
    let number = "form number property has an unsupported keyword \
                  (allowed: type, title, description, minimum, maximum, default)";
    let boolean = "form boolean property has an unsupported keyword \
                   (allowed: type, title, description, default)";
    let single = "form single select has an unsupported keyword \
                  (allowed: type, title, description, enum, enumNames, oneOf, default)";
    let multi = "form multi select has an unsupported keyword \
                 (allowed: type, title, description, items, minItems, maxItems, default)";
    for (property, reason) in [
        (r#"{"type":"string","pattern":"^a"}"#, string),
        (r#"{"type":"string","required":true}"#, string),
        (r#"{"type":"string","const":"a"}"#, string),
        (r#"{"type":"string","anyOf":[]}"#, string),
        (r#"{"type":"string","examples":["a"]}"#, string),
        (r#"{"type":"number","exclusiveMinimum":0}"#, number),
        (r#"{"type":"integer","multipleOf":2}"#, number),
        (r#"{"type":"number","minLength":1}"#, number),
        (r#"{"type":"boolean","const":true}"#, boolean),
        (r#"{"type":"boolean","enum":[true]}"#, boolean),
        (r#"{"type":"string","enum":["a"],"minLength":1}"#, single),
        (r#"{"type":"string","enum":["a"],"format":"email"}"#, single),
        (
            r#"{"type":"string","oneOf":[{"const":"a","title":"A"}],"x":1}"#,
            single,
        ),
        (
            r#"{"type":"array","items":{"type":"string","enum":["a"]},"uniqueItems":true}"#,
            multi,
        ),
        (
            r#"{"type":"array","items":{"type":"string","enum":["a"]},"contains":{}}"#,
            multi,
        ),
    ] {
        assert_eq!(one(property), Err(reason), "{property}");
    }
}

#[test]
fn string_constraints() {
    assert_eq!(
        one(r#"{"type":"string","minLength":0,"maxLength":0}"#),
        Ok(())
    );
    assert_eq!(one(r#"{"type":"string","minLength":2.0}"#), Ok(()));
    assert_eq!(
        one(r#"{"type":"string","minLength":-1}"#),
        Err("form string minLength must be a non-negative integer")
    );
    assert_eq!(
        one(r#"{"type":"string","minLength":1.5}"#),
        Err("form string minLength must be a non-negative integer")
    );
    assert_eq!(
        one(r#"{"type":"string","maxLength":"3"}"#),
        Err("form string maxLength must be a non-negative integer")
    );
    assert_eq!(
        one(r#"{"type":"string","minLength":3,"maxLength":2}"#),
        Err("form string minLength exceeds maxLength")
    );
    for format in ["email", "uri", "date", "date-time"] {
        let property = std::format!(r#"{{"type":"string","format":"{format}"}}"#);
        assert_eq!(one(&property), Ok(()));
    }
    for format in [r#""ipv4""#, r#""Email""#, r#""""#, "1", "null"] {
        let property = std::format!(r#"{{"type":"string","format":{format}}}"#);
        assert_eq!(
            one(&property),
            Err("form string format must be email, uri, date or date-time"),
            "{format}"
        );
    }
    assert_eq!(
        one(r#"{"type":"string","enumNames":["A"]}"#),
        Err("form enumNames needs enum")
    );
}

#[test]
fn number_constraints() {
    assert_eq!(
        one(r#"{"type":"number","minimum":-1.5,"maximum":1.5}"#),
        Ok(())
    );
    assert_eq!(one(r#"{"type":"number","minimum":1,"maximum":1}"#), Ok(()));
    assert_eq!(
        one(r#"{"type":"integer","minimum":-2,"maximum":1e1}"#),
        Ok(())
    );
    assert_eq!(
        one(r#"{"type":"number","minimum":"0"}"#),
        Err("form number bounds must be numbers")
    );
    assert_eq!(one(r#"{"type":"number","maximum":1e400}"#), Ok(()));
    assert_eq!(
        one(r#"{"type":"integer","minimum":0.5}"#),
        Err("form integer bounds must be integers")
    );
    assert_eq!(
        one(r#"{"type":"number","minimum":2,"maximum":1}"#),
        Err("form number minimum exceeds maximum")
    );
}

#[test]
fn single_select_constraints() {
    assert_eq!(
        one(r#"{"type":"string","enum":[]}"#),
        Err("form enum must be a non-empty array of strings")
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a",1]}"#),
        Err("form enum must be a non-empty array of strings")
    );
    assert_eq!(
        one(r#"{"type":"string","enum":"a"}"#),
        Err("form enum must be a non-empty array of strings")
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a","b","a"]}"#),
        Err("form select options must be unique")
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a","\u0061"]}"#),
        Err("form select options must be unique")
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a"],"oneOf":[{"const":"a","title":"A"}]}"#),
        Err("form single select takes enum or oneOf, not both")
    );
    let names = "form enumNames must be strings, one per enum value";
    assert_eq!(
        one(r#"{"type":"string","enum":["a","b"],"enumNames":["A"]}"#),
        Err(names)
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a"],"enumNames":["A","B"]}"#),
        Err(names)
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a"],"enumNames":[1]}"#),
        Err(names)
    );
    assert_eq!(
        one(r#"{"type":"string","enum":["a"],"enumNames":"A"}"#),
        Err(names)
    );
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":"a","title":"A"}],"enumNames":["A"]}"#),
        Err("form enumNames needs enum")
    );
    let list = "form oneOf/anyOf must be a non-empty array of {const, title} options";
    assert_eq!(one(r#"{"type":"string","oneOf":[]}"#), Err(list));
    assert_eq!(one(r#"{"type":"string","oneOf":{}}"#), Err(list));
    assert_eq!(one(r#"{"type":"string","oneOf":["a"]}"#), Err(list));
    let option = "form option needs a string const and a string title";
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":"a"}]}"#),
        Err(option)
    );
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"title":"A"}]}"#),
        Err(option)
    );
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":1,"title":"A"}]}"#),
        Err(option)
    );
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":"a","title":"A","description":"d"}]}"#),
        Err("form option has an unsupported keyword (allowed: const, title)")
    );
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"a","title":"B"}]}"#),
        Err("form select options must be unique")
    );
    // Titles may repeat; only values must be unique.
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"A"}]}"#),
        Ok(())
    );
}

#[test]
fn multi_select_constraints() {
    assert_eq!(
        one(r#"{"type":"array"}"#),
        Err("form multi select needs items")
    );
    assert_eq!(
        one(r#"{"type":"array","items":[]}"#),
        Err("form multi select items must be an object")
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"type":"string"}}"#),
        Err("form multi select items need enum or anyOf")
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"enum":["a"]}}"#),
        Err("form multi select items must have type \"string\"")
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"type":"number","enum":["a"]}}"#),
        Err("form multi select items must have type \"string\"")
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"type":"string","anyOf":[{"const":"a","title":"A"}]}}"#),
        Ok(())
    );
    let items = "form multi select items have an unsupported keyword \
                 (allowed: type and enum, or anyOf)";
    assert_eq!(
        one(r#"{"type":"array","items":{"type":"string","enum":["a"],"minLength":1}}"#),
        Err(items)
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}],"enum":["a"]}}"#),
        Err(items)
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"type":"string","oneOf":[{"const":"a","title":"A"}]}}"#),
        Err(items)
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"type":"string","enum":["a","a"]}}"#),
        Err("form select options must be unique")
    );
    assert_eq!(
        one(r#"{"type":"array","items":{"anyOf":[]}}"#),
        Err("form oneOf/anyOf must be a non-empty array of {const, title} options")
    );
    let e = r#""items":{"type":"string","enum":["a","b"]}"#;
    let with = |extra: &str| one(&std::format!(r#"{{"type":"array",{e},{extra}}}"#));
    assert_eq!(with(r#""minItems":0,"maxItems":0"#), Ok(()));
    assert_eq!(with(r#""minItems":2,"maxItems":5"#), Ok(()));
    assert_eq!(
        with(r#""minItems":-1"#),
        Err("form multi select minItems must be a non-negative integer")
    );
    assert_eq!(
        with(r#""maxItems":0.5"#),
        Err("form multi select maxItems must be a non-negative integer")
    );
    assert_eq!(
        with(r#""minItems":2,"maxItems":1"#),
        Err("form multi select minItems exceeds maxItems")
    );
    assert_eq!(
        with(r#""minItems":3"#),
        Err("form multi select minItems exceeds the number of options")
    );
}

#[test]
fn defaults_must_satisfy_their_property() {
    let bad = Err("form property default does not satisfy the property");
    assert_eq!(one(r#"{"type":"string","default":""}"#), Ok(()));
    assert_eq!(one(r#"{"type":"string","default":1}"#), bad);
    assert_eq!(one(r#"{"type":"string","minLength":2,"default":"é"}"#), bad);
    assert_eq!(
        one(r#"{"type":"string","maxLength":1,"default":"éé"}"#),
        bad
    );
    assert_eq!(
        one(r#"{"type":"string","maxLength":1,"default":"é"}"#),
        Ok(())
    );
    assert_eq!(
        one(r#"{"type":"string","format":"date","default":"2023-02-29"}"#),
        bad
    );
    assert_eq!(
        one(r#"{"type":"string","format":"uri","default":"nope"}"#),
        bad
    );
    assert_eq!(one(r#"{"type":"number","default":"1"}"#), bad);
    assert_eq!(one(r#"{"type":"number","minimum":1,"default":0.5}"#), bad);
    assert_eq!(one(r#"{"type":"number","maximum":1,"default":1.5}"#), bad);
    assert_eq!(one(r#"{"type":"number","default":1.5}"#), Ok(()));
    assert_eq!(one(r#"{"type":"integer","default":1.5}"#), bad);
    assert_eq!(one(r#"{"type":"integer","default":2.0}"#), Ok(()));
    assert_eq!(one(r#"{"type":"boolean","default":"false"}"#), bad);
    assert_eq!(one(r#"{"type":"boolean","default":null}"#), bad);
    assert_eq!(one(r#"{"type":"string","enum":["a"],"default":"b"}"#), bad);
    assert_eq!(
        one(r#"{"type":"string","oneOf":[{"const":"a","title":"A"}],"default":"A"}"#),
        bad
    );
    let multi = r#""type":"array","items":{"type":"string","enum":["a","b","c"]}"#;
    let with = |extra: &str| one(&std::format!(r#"{{{multi},{extra}}}"#));
    assert_eq!(with(r#""default":[]"#), Ok(()));
    assert_eq!(with(r#""default":["c","a"]"#), Ok(()));
    assert_eq!(with(r#""default":"a""#), bad);
    assert_eq!(with(r#""default":["a","a"]"#), bad);
    assert_eq!(with(r#""default":["d"]"#), bad);
    assert_eq!(with(r#""default":[1]"#), bad);
    assert_eq!(with(r#""minItems":1,"default":[]"#), bad);
    assert_eq!(with(r#""maxItems":1,"default":["a","b"]"#), bad);
}

// --- content ---

#[test]
fn string_content() {
    let p = r#"{"type":"string","minLength":2,"maxLength":3}"#;
    assert!(accepts(p, r#""ab""#));
    assert!(accepts(p, r#""abc""#));
    assert!(!accepts(p, r#""a""#));
    assert!(!accepts(p, r#""abcd""#));
    // Code points, not bytes nor UTF-16 units.
    assert!(accepts(p, r#""ééé""#));
    assert!(accepts(p, r#""😀😀""#));
    assert!(accepts(p, r#""\ud83d\ude00\ud83d\ude00""#));
    assert!(!accepts(p, r#""😀""#));
    assert!(accepts(p, r#""\u0061\n""#));
    for not_a_string in ["1", "true", "null", r#"["ab"]"#, r#"{"a":"b"}"#] {
        assert!(!accepts(p, not_a_string), "{not_a_string}");
    }
    assert!(accepts(r#"{"type":"string"}"#, r#""""#));
}

#[test]
fn formatted_content() {
    let email = r#"{"type":"string","format":"email"}"#;
    assert!(accepts(email, r#""a@b.co""#));
    assert!(accepts(email, r#""a\u0040b.co""#));
    assert!(!accepts(email, r#""a@b""#));
    let uri = r#"{"type":"string","format":"uri"}"#;
    assert!(accepts(uri, r#""https://example.com/x""#));
    assert!(!accepts(uri, r#""example.com""#));
    let date = r#"{"type":"string","format":"date"}"#;
    assert!(accepts(date, r#""2024-02-29""#));
    assert!(!accepts(date, r#""2023-02-29""#));
    let date_time = r#"{"type":"string","format":"date-time"}"#;
    assert!(accepts(date_time, r#""2024-02-29T10:00:00+02:00""#));
    assert!(!accepts(date_time, r#""2024-02-29""#));
}

#[test]
fn number_content() {
    let n = r#"{"type":"number","minimum":-1,"maximum":2.5}"#;
    assert!(accepts(n, "-1"));
    assert!(accepts(n, "0.5"));
    assert!(accepts(n, "2.5"));
    assert!(accepts(n, "25e-1"));
    assert!(!accepts(n, "-1.01"));
    assert!(!accepts(n, "2.6"));
    assert!(!accepts(n, "1e400"));
    // Compared exactly, as `schema` does: `f64` would call these two equal.
    let near = r#"{"type":"integer","maximum":9007199254740992}"#;
    assert!(accepts(near, "9007199254740992"));
    assert!(!accepts(near, "9007199254740993"));
    assert!(accepts(r#"{"type":"number","minimum":1e300}"#, "1e400"));
    assert!(!accepts(n, r#""1""#));
    assert!(!accepts(n, "true"));
    assert!(!accepts(n, "null"));
    let i = r#"{"type":"integer","minimum":0,"maximum":10}"#;
    assert!(accepts(i, "0"));
    assert!(accepts(i, "10"));
    assert!(accepts(i, "3.0"));
    assert!(accepts(i, "1e1"));
    assert!(!accepts(i, "3.5"));
    assert!(!accepts(i, "11"));
    assert!(!accepts(i, "-1"));
    assert!(accepts(r#"{"type":"integer"}"#, "-123456789012"));
    assert!(accepts(r#"{"type":"number"}"#, "-0.0001"));
}

#[test]
fn an_answer_at_a_decimal_bound_gets_the_verdict_a_tool_argument_gets() {
    // As `f64`, 0.30000000000000001 is 0.3 and would pass; as decimals it exceeds 0.3.
    let property = r#"{"type":"number","maximum":0.3}"#;
    let (over, at) = ("0.30000000000000001", "0.3");
    assert!(!accepts(property, over));
    assert!(accepts(property, at));
    let tool = v(property);
    assert!(crate::schema::validate(tool, v(over)).is_err());
    assert!(crate::schema::validate(tool, v(at)).is_ok());
    // Below a minimum by less than `f64` can tell.
    let floor = r#"{"type":"integer","minimum":9007199254740993}"#;
    assert!(!accepts(floor, "9007199254740992"));
    assert!(crate::schema::validate(v(floor), v("9007199254740992")).is_err());
}

#[test]
fn boolean_content() {
    let b = r#"{"type":"boolean"}"#;
    assert!(accepts(b, "true"));
    assert!(accepts(b, "false"));
    assert!(!accepts(b, r#""true""#));
    assert!(!accepts(b, "1"));
    assert!(!accepts(b, "null"));
}

#[test]
fn single_select_content() {
    let plain = r#"{"type":"string","enum":["Red","Green"]}"#;
    assert!(accepts(plain, r#""Red""#));
    assert!(accepts(plain, r#""\u0047reen""#));
    assert!(!accepts(plain, r#""red""#));
    assert!(!accepts(plain, r#""Blue""#));
    assert!(!accepts(plain, r#"["Red"]"#));
    let legacy = r#"{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}"#;
    assert!(accepts(legacy, r#""g""#));
    assert!(!accepts(legacy, r#""Green""#));
    let titled = r##"{"type":"string","oneOf":[{"const":"#f00","title":"Red"},
                     {"const":"#0f0","title":"Green"}]}"##;
    assert!(accepts(titled, r##""#0f0""##));
    assert!(!accepts(titled, r#""Green""#));
    assert!(!accepts(titled, "0"));
}

#[test]
fn multi_select_content() {
    let plain = r#"{"type":"array","minItems":1,"maxItems":2,
                   "items":{"type":"string","enum":["a","b","c"]}}"#;
    assert!(accepts(plain, r#"["a"]"#));
    assert!(accepts(plain, r#"["c","a"]"#));
    assert!(!accepts(plain, "[]"));
    assert!(!accepts(plain, r#"["a","b","c"]"#));
    assert!(!accepts(plain, r#"["a","a"]"#));
    assert!(!accepts(plain, r#"["a","\u0061"]"#));
    assert!(!accepts(plain, r#"["d"]"#));
    assert!(!accepts(plain, r#"["a",1]"#));
    assert!(!accepts(plain, r#""a""#));
    assert!(!accepts(plain, r#"["a","b","c","a","b"]"#));
    let titled = r#"{"type":"array","items":{"anyOf":[{"const":"x","title":"X"},
                    {"const":"y","title":"Y"}]}}"#;
    assert!(accepts(titled, "[]"));
    assert!(accepts(titled, r#"["y","x"]"#));
    assert!(!accepts(titled, r#"["X"]"#));
    assert!(!accepts(titled, r#"["x","y","x"]"#));
}

#[test]
fn content_object_rules() {
    let s = v(r#"{"type":"object","properties":{
        "a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},
        "required":["a","c"]}"#);
    assert_eq!(check_schema(s), Ok(()));
    assert!(check_content(s, v(r#"{"a":"x","c":true}"#)));
    assert!(check_content(s, v(r#"{"a":"x","b":2,"c":false}"#)));
    // Unknown keys are ignored, whatever they hold.
    assert!(check_content(
        s,
        v(r#"{"a":"x","c":true,"z":{"deep":[null]}}"#)
    ));
    // Keys compare after unescaping.
    assert!(check_content(s, v(r#"{"\u0061":"x","c":true}"#)));
    assert!(!check_content(s, v(r#"{"a":"x"}"#)));
    assert!(!check_content(s, v(r#"{"c":true}"#)));
    assert!(!check_content(s, v(r#"{"a":"x","c":true,"b":"2"}"#)));
    assert!(!check_content(s, v(r#"{"a":null,"c":true}"#)));
    assert!(!check_content(s, v(r#"{"a":"x","c":true,"b":null}"#)));
    for not_an_object in ["null", "[]", r#""a""#, "1"] {
        assert!(!check_content(s, v(not_an_object)));
    }
    let none_required = v(r#"{"type":"object","properties":{"a":{"type":"string"}}}"#);
    assert!(check_content(none_required, v("{}")));
    let empty = v(r#"{"type":"object","properties":{}}"#);
    assert!(check_content(empty, v(r#"{"anything":1}"#)));
}

#[test]
fn content_checks_are_total_on_schemas_that_did_not_pass() {
    for bad_schema in [
        "null",
        "{}",
        r#"{"properties":[]}"#,
        r#"{"properties":{"a":1}}"#,
        r#"{"properties":{"a":{"type":"object"}}}"#,
        r#"{"properties":{},"required":"a"}"#,
        r#"{"properties":{},"required":[1]}"#,
    ] {
        assert!(check_schema(v(bad_schema)).is_err());
        assert!(
            !check_content(v(bad_schema), v(r#"{"a":"x"}"#)),
            "{bad_schema}"
        );
    }
    // A keyword forms refuse but JSON Schema ignores: a verdict, of no particular meaning.
    let pattern = v(r#"{"properties":{"a":{"type":"string","pattern":"x"}}}"#);
    assert!(check_schema(pattern).is_err());
    let _ = check_content(pattern, v(r#"{"a":"x"}"#));
}

#[test]
fn a_huge_multi_select_answer_is_refused_without_quadratic_work() {
    let schema_text = r#"{"type":"object","properties":{"p":{"type":"array",
        "items":{"type":"string","enum":["a","b"]}}}}"#;
    let mut content = std::string::String::from(r#"{"p":["#);
    for i in 0..100_000 {
        if i > 0 {
            content.push(',');
        }
        content.push_str(r#""a""#);
    }
    content.push_str("]}");
    let s = v(schema_text);
    assert_eq!(check_schema(s), Ok(()));
    assert!(!check_content(s, v(&content)));
}
