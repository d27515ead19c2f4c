//! Decoding a call's arguments into the handler's argument type.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{Deserialize, DeserializeOwned, Deserializer, IgnoredAny};

/// The arguments of something that takes none (its schema is `{"type":"object"}`; whatever
/// arguments come are ignored).
///
/// ```
/// use snodo_std::typed::{Cx, NoArgs, Stop};
///
/// async fn ping(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
///     Ok("pong")
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoArgs;

impl<'de> Deserialize<'de> for NoArgs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| NoArgs)
    }
}

impl JsonSchema for NoArgs {
    fn schema_name() -> Cow<'static, str> {
        "NoArgs".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "object"})
    }
}

/// Decodes `json` into `T`. The error names where the arguments stop fitting (a path of
/// member names and indexes) and never the value found there.
pub(crate) fn decode<T: DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    // The common case decodes once; only a failure pays for tracking where it happened.
    serde_json::from_slice(json).or_else(|_| decode_tracked(json))
}

fn decode_tracked<T: DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            "arguments do not fit this tool".to_owned()
        } else {
            format!("argument {path} does not fit its type")
        }
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::decode;

    #[allow(dead_code, reason = "only decoded")]
    #[derive(Debug, Deserialize)]
    struct Point {
        x: u8,
        tags: Vec<String>,
    }

    #[test]
    fn errors_name_the_member_and_never_its_value() {
        let e = decode::<Point>(br#"{"x":"SECRET","tags":[]}"#).unwrap_err();
        assert_eq!(e, "argument x does not fit its type");
        let e = decode::<Point>(br#"{"x":1,"tags":["a",7]}"#).unwrap_err();
        assert_eq!(e, "argument tags[1] does not fit its type");
        assert!(decode::<Point>(br#"{"x":1,"tags":["a"]}"#).is_ok());
    }
}
