//! Which scopes each tool, resource and prompt needs, and which scopes imply others.

use std::collections::HashMap;

use snodo_core::json::JsonStr;
use snodo_core::rpc::Request;

/// The scopes a request needs beyond the endpoint's own
/// ([`ResourceServer::required_scopes`](super::ResourceServer::required_scopes)), by the
/// tool, resource or prompt it names. Unlisted targets need nothing more.
///
/// A broader scope can imply narrower ones ([`implies`](Self::implies)): a token with the
/// broad one passes where a narrow one is needed.
#[derive(Clone, Debug, Default)]
pub struct ScopePolicy {
    tools: HashMap<String, Vec<String>>,
    resources: HashMap<String, Vec<String>>,
    prompts: HashMap<String, Vec<String>>,
    implied: HashMap<String, Vec<String>>,
}

fn owned<I: IntoIterator<Item = S>, S: Into<String>>(scopes: I) -> Vec<String> {
    scopes.into_iter().map(Into::into).collect()
}

impl ScopePolicy {
    /// No per-target scopes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calling tool `name` needs `scopes`.
    #[must_use]
    pub fn tool<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        name: &str,
        scopes: I,
    ) -> Self {
        self.tools.insert(name.to_owned(), owned(scopes));
        self
    }

    /// Reading the resource at `uri` (exactly this URI) needs `scopes`.
    #[must_use]
    pub fn resource<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        uri: &str,
        scopes: I,
    ) -> Self {
        self.resources.insert(uri.to_owned(), owned(scopes));
        self
    }

    /// Getting prompt `name` needs `scopes`.
    #[must_use]
    pub fn prompt<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        name: &str,
        scopes: I,
    ) -> Self {
        self.prompts.insert(name.to_owned(), owned(scopes));
        self
    }

    /// A token granted `broad` also counts as granted each of `narrower` (one level: list
    /// every scope a broad one covers).
    #[must_use]
    pub fn implies<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        broad: &str,
        narrower: I,
    ) -> Self {
        self.implied.insert(broad.to_owned(), owned(narrower));
        self
    }

    /// The scopes of the tool, resource or prompt `request` targets, read from the parsed
    /// request as the core routes it (names compared decoded): `tools/call` and
    /// `prompts/get` by `name`, `resources/read` by `uri`, and `completion/complete` by the
    /// prompt or resource its `ref` names. Other methods target nothing.
    pub(crate) fn for_request(&self, request: &Request<'_>) -> &[String] {
        let params = request.params;
        let member = |key| params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
        let method = request.method;
        let (table, name) = if method.eq_str("tools/call") {
            (&self.tools, member("name"))
        } else if method.eq_str("prompts/get") {
            (&self.prompts, member("name"))
        } else if method.eq_str("resources/read") {
            (&self.resources, member("uri"))
        } else if method.eq_str("completion/complete") {
            let reference = params
                .and_then(|p| p.get("ref"))
                .and_then(|r| r.as_object());
            let field = |key| reference.and_then(|r| r.get(key)).and_then(|v| v.as_str());
            match field("type") {
                Some(kind) if kind.eq_str("ref/prompt") => (&self.prompts, field("name")),
                Some(kind) if kind.eq_str("ref/resource") => (&self.resources, field("uri")),
                _ => return &[],
            }
        } else {
            return &[];
        };
        name.and_then(|name| lookup(table, name))
            .map_or(&[], Vec::as_slice)
    }

    /// `granted` with every scope they imply added.
    pub(crate) fn expand(&self, granted: &mut Vec<String>) {
        let implied: Vec<String> = granted
            .iter()
            .filter_map(|g| self.implied.get(g))
            .flatten()
            .filter(|s| !granted.contains(s))
            .cloned()
            .collect();
        granted.extend(implied);
    }
}

/// The entry of `table` for `name`, decoded.
fn lookup<'t>(
    table: &'t HashMap<String, Vec<String>>,
    name: JsonStr<'_>,
) -> Option<&'t Vec<String>> {
    match name.as_plain() {
        Some(plain) => table.get(plain),
        None => table.get(&name.chars().collect::<String>()),
    }
}

#[cfg(test)]
mod tests {
    use snodo_core::json::Limits;
    use snodo_core::rpc::{self, Incoming};

    use super::*;

    /// The scopes `policy` asks of the request `body`.
    fn needs<'p>(policy: &'p ScopePolicy, body: &str) -> &'p [String] {
        match rpc::parse(body.as_bytes(), &Limits::HOST) {
            Ok(Incoming::Request(request)) => policy.for_request(&request),
            _ => panic!("not a request: {body}"),
        }
    }

    fn request(method: &str, params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#)
    }

    #[test]
    fn targets_are_read_from_the_parsed_request() {
        let policy = ScopePolicy::new()
            .tool("write", ["files:write"])
            .resource("file:///a", ["files:read"])
            .prompt("p", ["prompts"]);
        let tool = request("tools/call", r#"{"name":"write"}"#);
        assert_eq!(needs(&policy, &tool), ["files:write"]);
        // Escaped names are the names they decode to, as the core routes them.
        let escaped = request("tools\\/call", r#"{"name":"\u0077rite"}"#);
        assert_eq!(needs(&policy, &escaped), ["files:write"]);
        let other = request("tools/call", r#"{"name":"other"}"#);
        assert!(needs(&policy, &other).is_empty());
        let read = request("resources/read", r#"{"uri":"file:///a"}"#);
        assert_eq!(needs(&policy, &read), ["files:read"]);
        let prompt = request("prompts/get", r#"{"name":"p"}"#);
        assert_eq!(needs(&policy, &prompt), ["prompts"]);
        let completion = request(
            "completion/complete",
            r#"{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"x","value":""}}"#,
        );
        assert_eq!(needs(&policy, &completion), ["prompts"]);
        let completion = request(
            "completion/complete",
            r#"{"ref":{"type":"ref/resource","uri":"file:///a"},"argument":{}}"#,
        );
        assert_eq!(needs(&policy, &completion), ["files:read"]);
        let list = request("tools/list", "{}");
        assert!(needs(&policy, &list).is_empty());
        let nameless = request("tools/call", r#"{"name":7}"#);
        assert!(needs(&policy, &nameless).is_empty());
    }

    #[test]
    fn broad_scopes_imply_narrower_ones() {
        let policy = ScopePolicy::new().implies("files", ["files:read", "files:write"]);
        let mut granted = vec!["files".to_owned()];
        policy.expand(&mut granted);
        assert_eq!(granted, ["files", "files:read", "files:write"]);
    }
}
