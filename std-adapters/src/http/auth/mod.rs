//! The MCP endpoint as an OAuth 2.1 resource server (MCP 2026-07-28 authorization), off
//! unless configured (feature `auth`).
//!
//! Every request to the endpoint must carry `Authorization: Bearer <token>`. The token is
//! checked by a [`TokenVerifier`] — [`JwksVerifier`] for JWTs signed with a key of the
//! authorization server's JWKS, or the application's own — and never passed on. Then:
//!
//! - no token, or one that does not verify: `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…"` (plus `scope` and `error="invalid_token"`
//!   where they apply);
//! - a token the keys cannot check yet (the JWKS is unreachable, or the token names a key
//!   id the key set lacks inside the refetch cool-down): `503` with `Retry-After`;
//! - a token without the scopes the request needs: `403` with `error="insufficient_scope"`
//!   and every scope the operation needs. The endpoint's own scopes are checked with the
//!   token, before the body is read; those of the tool, resource or prompt the request
//!   targets ([`ScopePolicy`]) once the endpoint has parsed the body, from the body itself
//!   (never from the `Mcp-Method`/`Mcp-Name` headers, which 2025-11-25 requests do not
//!   carry), before anything runs — in both eras, on [`McpService`](super::McpService)
//!   and on the serial bridge's HTTP side;
//! - otherwise the token's subject is the round's principal, so state sealed for one user
//!   does not open for another.
//!
//! The Protected Resource Metadata (RFC 9728) is served unauthenticated at
//! `/.well-known/oauth-protected-resource` plus the endpoint's path, and at the bare
//! well-known path.
//!
//! Put it in front of the endpoint with [`McpService::with_auth`](super::McpService::with_auth)
//! (what the [`HttpListener`](super::HttpListener) serves), or as the tower layer
//! [`AuthLayer`] in front of any service answering with [`McpBody`](super::McpBody):
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use snodo_core::server::{Config, Done, Error, Registry, Server, ToolCall, ToolReply};
//! # use snodo_std::AsyncHandler;
//! # struct App;
//! # impl Registry for App {}
//! # impl AsyncHandler for App {
//! #     async fn call_tool<'o>(&self, _: &ToolCall<'_>, r: ToolReply<'o>) -> Result<Done<'o>, Error> {
//! #         Ok(r.text(""))
//! #     }
//! # }
//! use snodo_std::http::auth::{Authorization, JwksVerifier, ResourceServer, ScopePolicy};
//! use snodo_std::http::{HttpConfig, HttpListener, McpService};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let resource = ResourceServer::new("https://mcp.example.com/mcp")?
//!     .authorization_server("https://auth.example.com")
//!     .scopes_supported(["prefs:read", "prefs:write"])
//!     .required_scopes(["prefs:read"])
//!     .policy(ScopePolicy::new().tool("preference_preview", ["prefs:write"]));
//! let verifier = JwksVerifier::new(
//!     "https://auth.example.com/.well-known/jwks.json",
//!     "https://auth.example.com",
//!     resource.resource(),
//! )?;
//! let server = Arc::new(Server::new(Config::new("prefs", "1.0.0"), App)?);
//! let service = McpService::new(server, HttpConfig::new())
//!     .with_auth(Authorization::new(resource, verifier));
//! HttpListener::bind_service(service).await?.serve().await?;
//! # Ok(())
//! # }
//! ```

mod challenge;
mod fetch;
mod gate;
mod jwks;
mod layer;
mod metadata;
mod scopes;
mod token_cache;
mod verifier;

pub use gate::Authorization;
pub(crate) use gate::Grant;
pub use jwks::{JwksError, JwksVerifier};
pub use layer::{AuthLayer, AuthService};
pub use metadata::{ResourceServer, ResourceUriError};
pub use scopes::ScopePolicy;
pub use verifier::{Rejected, TokenVerifier, Verified, VerifyFuture};
