//! Where `x-mcp-header` annotations may appear in a tool's input schema.

use crate::json::{Object, Value};

use super::MAX_PARAM_NAME_LEN;
use super::value::is_token;

/// Checks the `x-mcp-header` annotations of a tool's input schema as the specification
/// constrains them: each a non-empty token of at most [`MAX_PARAM_NAME_LEN`] bytes, unique
/// case-insensitively, on a property of type `string`, `integer` or `boolean` reached through
/// `properties` alone, and nowhere else. Returns how many there are.
pub fn check_annotations(schema: Value<'_>) -> Result<usize, &'static str> {
    let schema = schema
        .as_object()
        .ok_or("the input schema is not an object")?;
    if schema.contains("x-mcp-header") {
        return Err("x-mcp-header is allowed only on properties, not on the schema root");
    }
    let mut count = 0;
    annotations_under(schema, schema, true, &mut count)?;
    Ok(count)
}

/// Keywords whose values are instances, not schemas, and hold no annotations.
const INSTANCE_KEYWORDS: [&str; 5] = ["x-mcp-header", "default", "const", "enum", "examples"];

fn annotations_under(
    root: Object<'_>,
    schema: Object<'_>,
    reachable: bool,
    count: &mut usize,
) -> Result<(), &'static str> {
    for (key, value) in schema {
        if key.eq_str("x-mcp-header") && !reachable {
            return Err("x-mcp-header is allowed only on properties reached through properties");
        }
        let through_properties = key.eq_str("properties");
        let walk = |v: Value<'_>, reachable: bool, count: &mut usize| match v.as_object() {
            Some(o) => annotations_under(root, o, reachable, count),
            None => Ok(()),
        };
        if through_properties {
            if let Some(properties) = value.as_object() {
                for (_, property) in properties {
                    if let Some(p) = property.as_object() {
                        if let Some(name) = p.get("x-mcp-header") {
                            check_annotation(root, p, name)?;
                            *count += 1;
                        }
                    }
                    walk(property, reachable, count)?;
                }
            }
        } else if let Some(items) = value.as_array() {
            for item in items {
                walk(item, false, count)?;
            }
        } else if !INSTANCE_KEYWORDS.iter().any(|k| key.eq_str(k)) {
            walk(value, false, count)?;
        }
    }
    Ok(())
}

fn check_annotation(
    root: Object<'_>,
    property: Object<'_>,
    name: Value<'_>,
) -> Result<(), &'static str> {
    let mut buf = [0u8; MAX_PARAM_NAME_LEN];
    let name = name
        .as_str()
        .and_then(|n| n.decode_into(&mut buf))
        .filter(|n| is_token(n))
        .ok_or("x-mcp-header must be a non-empty HTTP token of at most 64 bytes")?;
    let primitive = property
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("string") || t.eq_str("integer") || t.eq_str("boolean"));
    if !primitive {
        return Err("x-mcp-header is allowed only on string, integer and boolean properties");
    }
    let mut same = 0;
    count_named(root, name, &mut same);
    if same > 1 {
        return Err("x-mcp-header names must be unique, ignoring case");
    }
    Ok(())
}

/// Counts the annotations reached through `properties` whose name equals `name` ignoring case.
fn count_named(schema: Object<'_>, name: &str, same: &mut usize) {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return;
    };
    for (_, property) in properties {
        let Some(p) = property.as_object() else {
            continue;
        };
        let mut buf = [0u8; MAX_PARAM_NAME_LEN];
        let other = p
            .get("x-mcp-header")
            .and_then(|n| n.as_str())
            .and_then(|n| n.decode_into(&mut buf));
        if other.is_some_and(|o| o.eq_ignore_ascii_case(name)) {
            *same += 1;
        }
        count_named(p, name, same);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};

    const LIMITS: Limits = Limits::HOST;

    #[test]
    fn annotations_are_checked_against_the_constraints() {
        let ok = parse(
            br#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"n":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}}},"default":{"x-mcp-header":1}}"#,
            &LIMITS,
        )
        .unwrap();
        assert_eq!(check_annotations(ok), Ok(2));
        for bad in [
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}"#,
            r#"{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":""}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}"#,
            r#"{"properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}}"#,
            r#"{"anyOf":[{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}]}"#,
            r#"{"x-mcp-header":"Root"}"#,
        ] {
            let v = parse(bad.as_bytes(), &LIMITS).unwrap();
            assert!(check_annotations(v).is_err(), "{bad}");
        }
    }
}
