//! `WWW-Authenticate: Bearer …` challenges (RFC 6750 section 3, RFC 9728 section 5.1).

use std::fmt::Write;

use http::HeaderValue;

/// The OAuth error of a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChallengeError {
    /// No token was sent: the challenge carries no error (RFC 6750 section 3.1).
    None,
    /// The token did not verify.
    InvalidToken,
    /// The token lacks scopes the request needs.
    InsufficientScope,
}

/// `Bearer` with the metadata URL, the error and the scopes the operation needs.
pub(crate) fn challenge(metadata_url: &str, error: ChallengeError, scopes: &[&str]) -> HeaderValue {
    let mut value = String::from("Bearer ");
    match error {
        ChallengeError::None => {}
        ChallengeError::InvalidToken => value.push_str("error=\"invalid_token\", "),
        ChallengeError::InsufficientScope => value.push_str("error=\"insufficient_scope\", "),
    }
    if !scopes.is_empty() {
        value.push_str("scope=");
        quoted(&mut value, &scopes.join(" "));
        value.push_str(", ");
    }
    value.push_str("resource_metadata=");
    quoted(&mut value, metadata_url);
    // Every piece is configuration, not request data; a byte a header cannot carry would be
    // a configuration mistake, answered with the bare scheme rather than a panic.
    HeaderValue::try_from(value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

/// Appends `text` as an HTTP quoted-string.
fn quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        let _ = out.write_char(c);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_name_the_metadata_the_error_and_the_scopes() {
        let url = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            challenge(url, ChallengeError::None, &[]),
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
        assert_eq!(
            challenge(
                url,
                ChallengeError::InsufficientScope,
                &["a:read", "a:write"]
            ),
            "Bearer error=\"insufficient_scope\", scope=\"a:read a:write\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
        assert_eq!(
            challenge("x\"y", ChallengeError::InvalidToken, &[]),
            "Bearer error=\"invalid_token\", resource_metadata=\"x\\\"y\""
        );
    }
}
