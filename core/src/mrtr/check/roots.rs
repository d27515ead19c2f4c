//! The `ListRootsResult` a client returns for a `roots/list` input request.
//!
//! A root is a client's claim about its file system, not an access grant: the check here is
//! only that the answer has the protocol's shape. `roots` is an array of objects, each with a
//! `uri` string that starts with `file://` (the only scheme the 2026-07-28 revision allows)
//! and an optional `name` string. Unknown fields are tolerated, at both levels.

use super::util::{opt_object, opt_str};
use crate::json::Value;

/// Whether `result` is a well-formed `ListRootsResult`.
pub fn check_result(result: Value<'_>) -> bool {
    let Some(roots) = result.get("roots").and_then(|r| r.as_array()) else {
        return false;
    };
    roots.iter().all(|root| {
        root.as_object().is_some_and(|root| {
            root.get("uri")
                .and_then(|uri| uri.as_str())
                .is_some_and(|uri| uri.starts_with("file://"))
                && opt_str(root, "name")
                && opt_object(root, "_meta")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};

    fn check(text: &str) -> bool {
        check_result(parse(text.as_bytes(), &Limits::default()).unwrap())
    }

    #[test]
    fn accepts_file_roots() {
        assert!(check(r#"{"roots":[]}"#));
        assert!(check(
            r#"{"roots":[{"uri":"file:///home/user/projects/myproject","name":"My Project"}]}"#
        ));
        assert!(check(
            r#"{"roots":[{"uri":"file:///a"},{"uri":"file:\/\/\/b","name":"B","_meta":{},"x":1}],
                "nextCursor":"tolerated","_meta":{}}"#
        ));
        assert!(check(r#"{"roots":[{"uri":"file://host/share"}]}"#));
    }

    #[test]
    fn refuses_malformed_results() {
        for bad in [
            "null",
            "[]",
            "{}",
            r#"{"roots":null}"#,
            r#"{"roots":{}}"#,
            r#"{"roots":[null]}"#,
            r#"{"roots":["file:///a"]}"#,
            r#"{"roots":[{}]}"#,
            r#"{"roots":[{"name":"no uri"}]}"#,
            r#"{"roots":[{"uri":1}]}"#,
            r#"{"roots":[{"uri":"https://example.com/"}]}"#,
            r#"{"roots":[{"uri":"FILE:///a"}]}"#,
            r#"{"roots":[{"uri":"file:/a"}]}"#,
            r#"{"roots":[{"uri":"/home/user"}]}"#,
            r#"{"roots":[{"uri":"file:///a","name":7}]}"#,
            r#"{"roots":[{"uri":"file:///a","_meta":"x"}]}"#,
            r#"{"roots":[{"uri":"file:///a"},{"uri":"ftp://b"}]}"#,
        ] {
            assert!(!check(bad), "{bad}");
        }
    }
}
