//! Matching URIs against RFC 6570 templates: `{var}` (one non-empty segment without `/`,
//! `?` or `#`) and `{+var}` (reserved expansion: anything up to the next literal).

/// Whether `uri` matches `template`.
pub fn matches(template: &str, uri: &str) -> bool {
    walk(template, uri, None).is_some()
}

/// The value `var` takes when `uri` matches `template`.
pub fn variable<'u>(template: &str, uri: &'u str, var: &str) -> Option<&'u str> {
    walk(template, uri, Some(var)).flatten()
}

/// Walks template and URI together; returns `Some(found)` on a match, where `found` is the
/// value of `want` if it was asked for and present.
fn walk<'u>(template: &str, uri: &'u str, want: Option<&str>) -> Option<Option<&'u str>> {
    let mut t = template;
    let mut u = uri;
    let mut found = None;
    while !t.is_empty() {
        if let Some(rest) = t.strip_prefix('{') {
            let close = rest.find('}')?;
            let expr = &rest[..close];
            t = &rest[close + 1..];
            let (reserved, name) = match expr.strip_prefix('+') {
                Some(name) => (true, name),
                None => (false, expr),
            };
            let literal_end = t.find('{').unwrap_or(t.len());
            let next_literal = &t[..literal_end];
            let limit = if next_literal.is_empty() {
                if t.is_empty() { u.len() } else { return None }
            } else {
                u.find(next_literal)?
            };
            let value = &u[..limit];
            let stop = |c: char| matches!(c, '/' | '?' | '#');
            if value.is_empty() || (!reserved && value.contains(stop)) {
                return None;
            }
            if want == Some(name) {
                found = Some(value);
            }
            u = &u[limit..];
        } else {
            let literal_end = t.find('{').unwrap_or(t.len());
            u = u.strip_prefix(&t[..literal_end])?;
            t = &t[literal_end..];
        }
    }
    u.is_empty().then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_simple_and_reserved_expressions() {
        assert!(matches("file:///{name}", "file:///a.txt"));
        assert!(!matches("file:///{name}", "file:///dir/a.txt"));
        assert!(matches("file:///{+path}", "file:///dir/a.txt"));
        assert!(matches("users://{id}/profile", "users://42/profile"));
        assert!(!matches("users://{id}/profile", "users:///profile"));
        assert!(!matches("users://{id}/profile", "users://42/other"));
        assert_eq!(
            variable("users://{id}/profile", "users://42/profile", "id"),
            Some("42")
        );
        assert_eq!(variable("a://{x}-{y}", "a://1-2", "y"), Some("2"));
        assert!(!matches("a://{x", "a://1"));
    }
}
