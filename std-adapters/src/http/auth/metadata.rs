//! The resource server's identity and its Protected Resource Metadata (RFC 9728).

use std::fmt;

use bytes::Bytes;

use super::scopes::ScopePolicy;

/// The well-known path prefix of RFC 9728.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What the endpoint is as an OAuth protected resource: its canonical URI (the audience its
/// tokens must name), the authorization servers that issue them, and the scopes it needs.
#[derive(Clone, Debug)]
pub struct ResourceServer {
    resource: String,
    origin_len: usize,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    resource_name: Option<String>,
    pub(crate) policy: ScopePolicy,
}

/// A resource URI that cannot be an MCP server's canonical URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceUriError(String);

impl fmt::Display for ResourceUriError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a canonical server URI (http or https, a host, no query or fragment)",
            self.0
        )
    }
}

impl std::error::Error for ResourceUriError {}

impl ResourceServer {
    /// The resource with canonical URI `resource`, e.g. `https://mcp.example.com/mcp`.
    /// Scheme and host are lowercased and a lone trailing `/` dropped (RFC 8707).
    pub fn new(resource: &str) -> Result<Self, ResourceUriError> {
        let error = || ResourceUriError(resource.to_owned());
        if resource.contains(['#', '?']) {
            return Err(error());
        }
        let uri: http::Uri = resource.parse().map_err(|_| error())?;
        let scheme = uri.scheme_str().ok_or_else(error)?.to_ascii_lowercase();
        if scheme != "https" && scheme != "http" {
            return Err(error());
        }
        let authority = uri.authority().ok_or_else(error)?;
        if authority.as_str().contains('@') {
            return Err(error());
        }
        let origin = format!("{scheme}://{}", authority.as_str().to_ascii_lowercase());
        let path = uri.path().trim_end_matches('/');
        Ok(ResourceServer {
            resource: format!("{origin}{path}"),
            origin_len: origin.len(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            policy: ScopePolicy::new(),
        })
    }

    /// Adds an authorization server (its issuer URL) to the metadata.
    #[must_use]
    pub fn authorization_server(mut self, issuer: &str) -> Self {
        self.authorization_servers.push(issuer.to_owned());
        self
    }

    /// The scopes the metadata lists as `scopes_supported` (the few needed for basic use).
    #[must_use]
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes every request needs (also named in the `401` challenge).
    #[must_use]
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A human-readable name for the metadata's `resource_name`.
    #[must_use]
    pub fn resource_name(mut self, name: &str) -> Self {
        self.resource_name = Some(name.to_owned());
        self
    }

    /// The scopes each tool, resource and prompt needs.
    #[must_use]
    pub fn policy(mut self, policy: ScopePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The canonical URI: the audience tokens must be issued for.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The scopes every request needs.
    pub fn required(&self) -> &[String] {
        &self.required_scopes
    }

    /// The metadata's own path: the well-known prefix followed by the resource's path.
    pub fn metadata_path(&self) -> String {
        format!("{WELL_KNOWN}{}", &self.resource[self.origin_len..])
    }

    /// The metadata's URL, as named in `WWW-Authenticate`.
    pub fn metadata_url(&self) -> String {
        format!(
            "{}{}",
            &self.resource[..self.origin_len],
            self.metadata_path()
        )
    }

    /// Whether `path` is where the metadata is served (with the resource's path inserted,
    /// or at the root).
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        path == WELL_KNOWN
            || path
                .strip_prefix(WELL_KNOWN)
                .is_some_and(|rest| rest == &self.resource[self.origin_len..])
    }

    /// The metadata document.
    pub(crate) fn document(&self) -> Bytes {
        let mut doc = serde_json::json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            doc["scopes_supported"] = serde_json::json!(self.scopes_supported);
        }
        if let Some(name) = &self.resource_name {
            doc["resource_name"] = serde_json::json!(name);
        }
        Bytes::from(doc.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_uri_and_metadata_location() {
        let r = ResourceServer::new("HTTPS://MCP.Example.com/mcp/").unwrap();
        assert_eq!(r.resource(), "https://mcp.example.com/mcp");
        assert_eq!(
            r.metadata_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            r.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert!(r.is_metadata_path("/.well-known/oauth-protected-resource"));
        assert!(r.is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
        assert!(!r.is_metadata_path("/.well-known/oauth-protected-resource/other"));
        let root = ResourceServer::new("https://mcp.example.com:8443").unwrap();
        assert_eq!(root.resource(), "https://mcp.example.com:8443");
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com:8443/.well-known/oauth-protected-resource"
        );
        for bad in [
            "mcp.example.com",
            "https://mcp.example.com#fragment",
            "https://mcp.example.com/?q=1",
            "ftp://mcp.example.com",
            "https://user@mcp.example.com",
            "/mcp",
        ] {
            assert!(ResourceServer::new(bad).is_err(), "{bad}");
        }
    }
}
