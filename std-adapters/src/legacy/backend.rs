//! What answers a legacy session, on every transport: a server in this process
//! ([`ServerBackend`]) or the device behind the serial bridge. `initialize` is read and
//! answered here once ([`session_of`], [`initialize_reply`]) for stdio, HTTP and both sides of
//! the bridge; the transports only open the session and say the answer their way.

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use snodo_core::legacy::{Session, parse_initialize, write_initialize_result};
use snodo_core::rpc::{self, ErrorCode, Id};
#[cfg(feature = "bridge")]
use snodo_core::server::ServerCapabilities;
use snodo_core::server::{Principal, Server};

use super::round::{Local, Rounds};
use crate::handler::AsyncHandler;
use crate::message;

/// What serves a legacy session's requests: a server in this process, or the device
/// behind the serial bridge.
pub(crate) trait Backend: Clone + Send + Sync + 'static {
    /// The modern round of each lifted request.
    type Rounds<'b>: Rounds + Send + Sync
    where
        Self: 'b;

    /// What the backend serves, as the session answers it (`ping`, `logging/setLevel`, ...).
    #[cfg(feature = "bridge")]
    fn served(&self) -> ServerCapabilities;

    /// The round that runs a request of `principal`.
    fn rounds<'b>(&'b self, principal: Principal<'b>) -> Self::Rounds<'b>;

    /// The `initialize` result for request `id` opening `session`, or why it cannot be
    /// answered (-32603).
    fn initialize(
        &self,
        id: Id<'_>,
        session: &Session,
    ) -> impl Future<Output = Result<Bytes, String>> + Send;
}

/// A server in this process as a [`Backend`] (a type without a lifetime, so the futures
/// that hold it are `Send` for every lifetime the compiler erases). A clone is the `Arc`'s:
/// a POST takes the server the endpoint loaded without allocating.
pub(crate) struct ServerBackend<A: 'static>(pub(crate) Arc<Server<'static, A>>);

impl<A> Clone for ServerBackend<A> {
    fn clone(&self) -> Self {
        ServerBackend(Arc::clone(&self.0))
    }
}

impl<A: AsyncHandler + 'static> Backend for ServerBackend<A> {
    type Rounds<'b> = Local<'b, A>;

    #[cfg(feature = "bridge")]
    fn served(&self) -> ServerCapabilities {
        self.0.app().capabilities()
    }

    fn rounds<'b>(&'b self, principal: Principal<'b>) -> Local<'b, A> {
        Local {
            server: &self.0,
            principal,
        }
    }

    async fn initialize(&self, id: Id<'_>, session: &Session) -> Result<Bytes, String> {
        let served = self.0.app().capabilities();
        Ok(written(|w| {
            write_initialize_result(w, id, session, self.0.config(), served);
        }))
    }
}

/// The session an `initialize` request asks for (version negotiated, capabilities kept), or
/// its -32602 refusal saying what is wrong with the params.
pub(crate) fn session_of(request: &rpc::Request<'_>) -> Result<Session, Bytes> {
    parse_initialize(request.params).map_err(|refused| {
        written(|w| {
            let code = ErrorCode::INVALID_PARAMS;
            rpc::write_error(w, Some(request.id), code, refused.0, None);
        })
    })
}

/// `backend`'s answer to the `initialize` request `id` opening `session`, or a -32603
/// naming why it cannot be answered (the device did not tell its discovery). Asked before
/// the session opens, so a backend that cannot answer leaves none behind.
pub(crate) async fn initialize_reply<B: Backend>(
    backend: &B,
    id: Id<'_>,
    session: &Session,
) -> Result<Bytes, Bytes> {
    backend.initialize(id, session).await.map_err(|why| {
        tracing::error!("initialize not answered: {why}");
        written(|w| rpc::write_error(w, Some(id), ErrorCode::INTERNAL_ERROR, &why, None))
    })
}

/// The message `write` writes, as the bytes a transport sends.
pub(crate) fn written(write: impl Fn(&mut snodo_core::json::Writer<'_>)) -> Bytes {
    Bytes::from(message::written(write))
}
