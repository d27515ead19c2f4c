//! The URL of a URL-mode elicitation.
//!
//! The client shows this URL to the user and, with consent, opens it in a browser. The seed
//! allows HTTP(S) navigation only, so anything a browser might treat as something else —
//! another scheme, a relative reference, a user-info part that disguises the real host
//! (`https://bank.example@evil.example/`), characters a browser would silently repair — is
//! refused when the request is built. The rules:
//!
//! - only characters RFC 3986 allows in a URI (ASCII letters, digits,
//!   `-._~:/?#[]@!$&'()*+,;=` and `%` followed by two hex digits); in particular no spaces,
//!   control characters, backslashes or non-ASCII text (percent-encode it, or use the
//!   punycode form of an internationalised host);
//! - the scheme is `http` or `https`, in any letter case, followed by `//` and an authority;
//! - the authority has no user info (no `@`) and a non-empty host: a registered name or a
//!   bracketed IPv6 literal, with an optional port of 0 to 65535;
//! - `[` and `]` appear only around an IP literal, and `#` at most once.

use super::super::BuildError;

/// Checks that `url` is an absolute `http`/`https` URL with a host and no user info.
pub fn check_elicitation_url(url: &str) -> Result<(), BuildError> {
    characters(url)?;
    let (scheme, rest) = url.split_once(':').ok_or(BuildError::new(
        "elicitation URL must be absolute (http or https)",
    ))?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(BuildError::new("elicitation URL must use http or https"));
    }
    let after_slashes = rest.strip_prefix("//").ok_or(BuildError::new(
        "elicitation URL needs an authority (//host)",
    ))?;
    let end = after_slashes
        .find(['/', '?', '#'])
        .unwrap_or(after_slashes.len());
    let (authority, tail) = after_slashes.split_at(end);
    self::authority(authority)?;
    if tail.contains(['[', ']']) {
        return Err(BuildError::new(
            "elicitation URL has brackets outside the host",
        ));
    }
    if tail.matches('#').count() > 1 {
        return Err(BuildError::new("elicitation URL has more than one '#'"));
    }
    Ok(())
}

/// Every character is one a URI may contain, and every `%` starts an escape.
fn characters(url: &str) -> Result<(), BuildError> {
    if url.is_empty() {
        return Err(BuildError::new("elicitation URL is empty"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(BuildError::new(
            "elicitation URL contains a space or control character",
        ));
    }
    let bytes = url.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' {
            let escape = bytes.get(i + 1..i + 3);
            if !escape.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                return Err(BuildError::new(
                    "elicitation URL has a malformed percent-escape",
                ));
            }
        } else if !is_unreserved(b) && !is_reserved(b) {
            return Err(BuildError::new(
                "elicitation URL contains a character a URI does not allow",
            ));
        }
    }
    Ok(())
}

/// `host [":" port]`, with no user info.
fn authority(authority: &str) -> Result<(), BuildError> {
    if authority.contains('@') {
        return Err(BuildError::new("elicitation URL must not carry user info"));
    }
    let (host_ok, port) = if let Some(literal) = authority.strip_prefix('[') {
        let (inside, after) = literal.split_once(']').ok_or(BuildError::new(
            "elicitation URL has a malformed IP literal",
        ))?;
        let valid = !inside.is_empty()
            && inside
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        if !valid {
            return Err(BuildError::new(
                "elicitation URL has a malformed IP literal",
            ));
        }
        match after.strip_prefix(':') {
            Some(port) => (true, Some(port)),
            None if after.is_empty() => (true, None),
            None => {
                return Err(BuildError::new(
                    "elicitation URL has a malformed IP literal",
                ));
            }
        }
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        if host.contains(['[', ']']) {
            return Err(BuildError::new(
                "elicitation URL has brackets outside the host",
            ));
        }
        (!host.is_empty(), port)
    };
    if !host_ok {
        return Err(BuildError::new("elicitation URL needs a host"));
    }
    if let Some(port) = port {
        let digits =
            !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
        if !digits || !port.parse::<u32>().is_ok_and(|p| p <= 65535) {
            return Err(BuildError::new("elicitation URL has an invalid port"));
        }
    }
    Ok(())
}

/// RFC 3986 `unreserved`: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `reserved`: `gen-delims / sub-delims`.
fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(url: &str) -> bool {
        check_elicitation_url(url).is_ok()
    }

    fn reason(url: &str) -> &'static str {
        check_elicitation_url(url).unwrap_err().reason
    }

    #[test]
    fn accepts_http_and_https_navigation() {
        for good in [
            "https://mcp.example.com/ui/set_api_key",
            "http://localhost:8080/connect?state=abc#top",
            "HTTPS://EXAMPLE.COM",
            "hTtP://example.com",
            "https://example.com:443",
            "https://example.com:0/",
            "https://example.com:65535/",
            "https://[::1]:8443/x",
            "https://[2001:db8::1]",
            "https://127.0.0.1/",
            "https://ex%41mple.com/a%20b",
            "https://example.com/path;p=1?q=a&r=(b)*c,d!$'+~",
            "https://example.com?x",
            "https://example.com#frag",
            "https://xn--bcher-kva.example/",
        ] {
            assert!(ok(good), "{good}: {:?}", check_elicitation_url(good));
        }
    }

    #[test]
    fn refuses_other_schemes_and_relative_references() {
        assert_eq!(
            reason("ftp://example.com"),
            "elicitation URL must use http or https"
        );
        assert_eq!(
            reason("javascript:alert(1)"),
            "elicitation URL must use http or https"
        );
        assert_eq!(
            reason("file:///etc/passwd"),
            "elicitation URL must use http or https"
        );
        assert_eq!(
            reason("httpx://example.com"),
            "elicitation URL must use http or https"
        );
        assert_eq!(
            reason(":/example.com"),
            "elicitation URL must use http or https"
        );
        assert_eq!(
            reason("/relative/path"),
            "elicitation URL must be absolute (http or https)"
        );
        assert_eq!(
            reason("example.com"),
            "elicitation URL must be absolute (http or https)"
        );
        assert_eq!(reason(""), "elicitation URL is empty");
        assert_eq!(
            reason("https:example.com"),
            "elicitation URL needs an authority (//host)"
        );
        assert_eq!(
            reason("https:/example.com"),
            "elicitation URL needs an authority (//host)"
        );
    }

    #[test]
    fn refuses_missing_hosts_and_user_info() {
        assert_eq!(reason("https://"), "elicitation URL needs a host");
        assert_eq!(reason("https:///path"), "elicitation URL needs a host");
        assert_eq!(reason("https://:443/"), "elicitation URL needs a host");
        assert_eq!(reason("https://?q"), "elicitation URL needs a host");
        let userinfo = "elicitation URL must not carry user info";
        assert_eq!(reason("https://bank.example@evil.example/"), userinfo);
        assert_eq!(reason("https://user:pass@example.com/"), userinfo);
        assert_eq!(reason("https://@example.com/"), userinfo);
        // An '@' after the authority is an ordinary path or query character.
        assert!(ok("https://example.com/@user"));
        assert!(ok("https://example.com/?mail=a@b.c"));
    }

    #[test]
    fn refuses_bad_ports_and_ip_literals() {
        let port = "elicitation URL has an invalid port";
        assert_eq!(reason("https://example.com:/"), port);
        assert_eq!(reason("https://example.com:65536/"), port);
        assert_eq!(reason("https://example.com:123456/"), port);
        assert_eq!(reason("https://example.com:8a/"), port);
        assert_eq!(reason("https://example.com:1:2/"), port);
        let literal = "elicitation URL has a malformed IP literal";
        assert_eq!(reason("https://[::1/"), literal);
        assert_eq!(reason("https://[]/"), literal);
        assert_eq!(reason("https://[::1]x/"), literal);
        assert_eq!(reason("https://[v1.x]/"), literal);
        let brackets = "elicitation URL has brackets outside the host";
        assert_eq!(reason("https://a[b]/"), brackets);
        assert_eq!(reason("https://example.com/[x]"), brackets);
        assert_eq!(
            reason("https://example.com/#a#b"),
            "elicitation URL has more than one '#'"
        );
    }

    #[test]
    fn refuses_characters_a_uri_cannot_hold() {
        let blank = "elicitation URL contains a space or control character";
        assert_eq!(reason("https://exa mple.com/"), blank);
        assert_eq!(reason(" https://example.com/"), blank);
        assert_eq!(reason("https://example.com/\n"), blank);
        assert_eq!(reason("https://example.com/\t"), blank);
        assert_eq!(reason("https://example.com/\u{7f}"), blank);
        assert_eq!(reason("https://example.com/\u{85}"), blank);
        let char = "elicitation URL contains a character a URI does not allow";
        assert_eq!(reason("https://example.com\\@evil.example/"), char);
        assert_eq!(reason("https://exämple.com/"), char);
        assert_eq!(reason("https://example.com/<script>"), char);
        assert_eq!(reason("https://example.com/\"x\""), char);
        assert_eq!(reason("https://example.com/{x}|^`"), char);
        let escape = "elicitation URL has a malformed percent-escape";
        assert_eq!(reason("https://example.com/%"), escape);
        assert_eq!(reason("https://example.com/%4"), escape);
        assert_eq!(reason("https://example.com/%zz"), escape);
    }
}
