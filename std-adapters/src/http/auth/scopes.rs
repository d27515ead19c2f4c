//! Which scopes each tool, resource and prompt needs, and which scopes imply others.

use std::collections::HashMap;

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

    /// The scopes of the target a request of `method` names (`None` for unnamed methods).
    pub(crate) fn for_target(&self, method: &[u8], name: Option<&str>) -> &[String] {
        let table = match method {
            b"tools/call" => &self.tools,
            b"resources/read" => &self.resources,
            b"prompts/get" => &self.prompts,
            _ => return &[],
        };
        name.and_then(|n| table.get(n)).map_or(&[], Vec::as_slice)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_implied_scopes() {
        let policy = ScopePolicy::new()
            .tool("write", ["files:write"])
            .resource("file:///a", ["files:read"])
            .prompt("p", ["prompts"])
            .implies("files", ["files:read", "files:write"]);
        assert_eq!(
            policy.for_target(b"tools/call", Some("write")),
            ["files:write"]
        );
        assert!(policy.for_target(b"tools/call", Some("other")).is_empty());
        assert_eq!(
            policy.for_target(b"resources/read", Some("file:///a")),
            ["files:read"]
        );
        assert_eq!(policy.for_target(b"prompts/get", Some("p")), ["prompts"]);
        assert!(policy.for_target(b"tools/list", None).is_empty());
        let mut granted = vec!["files".to_owned()];
        policy.expand(&mut granted);
        assert_eq!(granted, ["files", "files:read", "files:write"]);
    }
}
