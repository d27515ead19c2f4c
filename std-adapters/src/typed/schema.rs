//! JSON Schemas generated from Rust types, cleaned for MCP.
//!
//! `schemars` describes Rust types faithfully; MCP clients want plain schemas. So every
//! generated schema is inlined (no `$ref`), loses the root `$schema` and `title` (the type's
//! Rust name is no use to a model), the `format` that only names a Rust number width
//! (`uint32`, `double`, ...), and the `null` that `Option` adds (an absent optional member is
//! how MCP says "not given"). Each schema is made once, at registration, and kept for the
//! process's lifetime ([`leak`]) as the `&'static str` the core's definitions borrow.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// `format` values that only say how wide a Rust number is.
const NUMBER_WIDTHS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// The cleaned schema of `T`, as a JSON value.
pub(crate) fn schema_of<T: schemars::JsonSchema + ?Sized>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(root) = &mut schema {
        root.remove("title");
        root.remove("$schema");
    }
    clean(&mut schema);
    schema
}

/// Keeps `text` for the rest of the process.
pub(crate) fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Text given to a builder, as `&'static str`: a literal as it is, an owned string kept for
/// the process's lifetime (definitions are built once, like their generated schemas).
pub(crate) fn static_text(text: impl Into<std::borrow::Cow<'static, str>>) -> &'static str {
    match text.into() {
        std::borrow::Cow::Borrowed(text) => text,
        std::borrow::Cow::Owned(text) => leak(text),
    }
}

fn clean(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            clean_object(o);
            o.values_mut().for_each(clean);
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

fn clean_object(o: &mut Map<String, Value>) {
    if o.get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| NUMBER_WIDTHS.contains(&f))
    {
        o.remove("format");
    }
    if let Some(Value::Array(types)) = o.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            o.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(options)) = o.get_mut("enum") {
        options.retain(|v| !v.is_null());
    }
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde_json::json;

    use super::schema_of;

    #[allow(dead_code, reason = "only its schema is used")]
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Count {
        /// How far to count
        #[schemars(range(min = 1, max = 100))]
        count: u32,
        #[serde(rename = "delayMs")]
        delay_ms: Option<u64>,
        ratio: f64,
    }

    #[test]
    fn generated_schemas_are_plain_json_schema() {
        assert_eq!(
            schema_of::<Count>(),
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How far to count"},
                    "delayMs": {"type": "integer", "minimum": 0},
                    "ratio": {"type": "number"}
                },
                "required": ["count", "ratio"],
                "additionalProperties": false
            })
        );
    }
}
