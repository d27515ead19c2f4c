//! The resource server as a tower layer, for a stack other than the listener's.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{Request, Response};
use tower_service::Service;

use super::gate::Authorization;
use crate::http::body::McpBody;

/// A tower layer that puts an [`Authorization`] in front of a service answering with
/// [`McpBody`] (usually an [`McpService`](crate::http::McpService)). It answers the
/// metadata paths itself, refuses unauthorized requests, and hands the rest on with the
/// [`Verified`](super::Verified) caller in the request's extensions, where `McpService`
/// takes its principal from.
///
/// The layer checks the token and the endpoint's own scopes; the scopes of the tool,
/// resource or prompt a request targets are checked by the `McpService` behind it, on the
/// body it parses (the layer leaves it what the token grants, in the same extensions).
#[derive(Clone, Debug)]
pub struct AuthLayer {
    auth: Authorization,
}

impl AuthLayer {
    /// A layer checking requests with `auth`.
    pub fn new(auth: Authorization) -> Self {
        AuthLayer { auth }
    }
}

impl<S> tower_layer::Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> AuthService<S> {
        AuthService {
            auth: self.auth.clone(),
            inner,
        }
    }
}

/// The service [`AuthLayer`] makes.
#[derive(Clone, Debug)]
pub struct AuthService<S> {
    auth: Authorization,
    inner: S,
}

impl<S, B> Service<Request<B>> for AuthService<S>
where
    S: Service<Request<B>, Response = Response<McpBody>> + Clone + Send + 'static,
    S::Future: Send,
    B: Send + 'static,
{
    type Response = Response<McpBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The ready service goes with this call; the clone waits for the next poll_ready.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let auth = self.auth.clone();
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            if let Some(metadata) = auth.metadata(&parts) {
                return Ok(metadata);
            }
            match auth.admit(&mut parts).await {
                Err(refusal) => Ok(refusal),
                Ok(()) => inner.call(Request::from_parts(parts, body)).await,
            }
        })
    }
}
