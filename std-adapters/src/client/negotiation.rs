//! Which era the client speaks with its server, found once per client: the 2026-07-28
//! binding pages' probe (`server/discover`) and fallback to the `initialize` handshake.

use std::time::Duration;

use snodo_core::client::legacy::{
    INITIALIZED, legacy_status, probe_era, read_initialize_result, write_initialize,
};
use snodo_core::client::{Exchange, Operation};
use snodo_core::json::parse;
use snodo_core::legacy::LegacyVersion;
pub use snodo_core::protocol::Era;

use super::{Client, ClientError, Transport, grow};

/// How long the probe waits by default before taking a silent server for a legacy one.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Which eras a client speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Negotiation {
    /// Both, as the 2026-07-28 stdio and Streamable HTTP pages prescribe for a dual-era
    /// client: the first operation is preceded by a `server/discover` probe. A result or a
    /// recognised modern error (-32020, -32021, -32022) keeps the client modern; any other
    /// error, a `4xx` without a JSON-RPC body over HTTP, or no answer within
    /// [`ClientBuilder::probe_timeout`](super::ClientBuilder::probe_timeout) makes it fall
    /// back to `initialize`.
    #[default]
    Auto,
    /// 2026-07-28 only: no probe, every request carries the `_meta` envelope.
    Modern,
    /// The `initialize` era only: no probe, the handshake first.
    Legacy,
}

impl Client {
    /// The server's era: found by the first operation (probe and, on a legacy server, the
    /// handshake) and kept for the client's life.
    pub async fn era(&self) -> Result<Era, ClientError> {
        let version = self.legacy_version().await?;
        Ok(if version.is_some() {
            Era::Legacy
        } else {
            Era::Modern
        })
    }

    /// The version of the `initialize` session when the server is of the legacy era, `None`
    /// when it speaks 2026-07-28; found as [`Client::era`] finds the era.
    pub async fn legacy_version(&self) -> Result<Option<LegacyVersion>, ClientError> {
        self.negotiated
            .get_or_try_init(|| self.negotiate())
            .await
            .copied()
    }

    /// Whether the session is a legacy one (known once [`Client::era`] has run).
    pub(crate) fn is_legacy(&self) -> bool {
        matches!(self.negotiated.get(), Some(Some(_)))
    }

    /// The legacy session's version, or `None` for a 2026-07-28 server.
    async fn negotiate(&self) -> Result<Option<LegacyVersion>, ClientError> {
        let era = match self.negotiation {
            Negotiation::Modern => return Ok(None),
            Negotiation::Legacy => Era::Legacy,
            Negotiation::Auto => self.probe().await?,
        };
        match era {
            Era::Modern => Ok(None),
            Era::Legacy => self.initialize().await.map(Some),
        }
    }

    /// Sends `server/discover` and reads the era from what comes back.
    async fn probe(&self) -> Result<Era, ClientError> {
        let config = self.config();
        let mut exchange =
            Exchange::new(&config, Operation::discover(), self.handlers.capabilities());
        let mut out = Vec::new();
        let id = self.next_id();
        let len = grow(&mut out, |buf| exchange.write_request(id, buf))?;
        let answer = self
            .round_trip_within(id, &out[..len], None, Some(self.probe_timeout))
            .await;
        let era = match answer {
            Ok(response) => match exchange.read_response(&response) {
                Ok(reply) => probe_era(&reply),
                // Not even a JSON-RPC response to the probe: not a modern server.
                Err(_) => Era::Legacy,
            },
            Err(ClientError::Timeout) => Era::Legacy,
            Err(ClientError::Http { status, .. }) if legacy_status(status) => Era::Legacy,
            Err(e) => return Err(e),
        };
        tracing::debug!(?era, "server/discover probe");
        Ok(era)
    }

    /// The `initialize` handshake: the request, the server's version (one this client
    /// speaks), then `notifications/initialized`.
    async fn initialize(&self) -> Result<LegacyVersion, ClientError> {
        let config = self.config();
        let mut out = Vec::new();
        let id = self.next_id();
        let capabilities = self.handlers.capabilities();
        let len = grow(&mut out, |buf| {
            write_initialize(&config, capabilities, id, buf)
        })?;
        let request = &out[..len];
        let (response, session) = match &self.transport {
            Transport::Stdio(stdio) => (stdio.round_trip(id, request, self.timeout).await?, None),
            Transport::Http(http) => http.initialize(id, request, self.timeout).await?,
        };
        let negotiated = read_initialize_result(&response, id, &self.limits).map_err(|e| match e {
            snodo_core::client::ClientError::UnsupportedVersion => {
                ClientError::UnsupportedVersion(chosen_version(&response, &self.limits))
            }
            other => ClientError::from(other),
        });
        let negotiated = match negotiated {
            Err(ClientError::Server { code, .. }) => {
                return Err(server_error(&response, code, &self.limits));
            }
            other => other?,
        };
        let version = negotiated.version;
        match &self.transport {
            Transport::Stdio(stdio) => {
                stdio.set_legacy();
                stdio.send_line(INITIALIZED).await?;
            }
            Transport::Http(http) => {
                http.set_legacy(session, version.name());
                http.post_message(INITIALIZED, self.timeout).await?;
                let listen = http.listen();
                if let Some(limit) = self.timeout {
                    let _ = tokio::time::timeout(limit, listen).await;
                } else {
                    listen.await;
                }
            }
        }
        tracing::debug!(version = version.name(), "legacy session initialized");
        Ok(version)
    }
}

impl Client {
    /// Replaces the legacy HTTP session `gone` (the one a request was sent with) by a new
    /// one, unless another request already did.
    pub(crate) async fn reopen(
        &self,
        gone: Option<::http::HeaderValue>,
    ) -> Result<(), ClientError> {
        let _one_at_a_time = self.reopening.lock().await;
        let Transport::Http(http) = &self.transport else {
            return Ok(());
        };
        if http.session_id() != gone {
            return Ok(());
        }
        tracing::info!("the legacy session ended; opening a new one");
        self.initialize().await.map(|_| ())
    }
}

/// The `protocolVersion` a server chose, for the error that names it.
fn chosen_version(response: &[u8], limits: &snodo_core::json::Limits) -> String {
    parse(response, limits)
        .ok()
        .and_then(|m| m.get("result"))
        .and_then(|r| r.get("protocolVersion"))
        .and_then(|v| v.as_str())
        .map(super::handlers::text)
        .unwrap_or_default()
}

/// The server's error to `initialize`, with its message and data.
fn server_error(response: &[u8], code: i64, limits: &snodo_core::json::Limits) -> ClientError {
    let error = parse(response, limits).ok().and_then(|m| m.get("error"));
    ClientError::Server {
        code,
        message: error
            .and_then(|e| e.get("message"))
            .and_then(|m| m.as_str())
            .map(super::handlers::text)
            .unwrap_or_default(),
        data: error
            .and_then(|e| e.get("data"))
            .map(|d| super::handlers::json_of(d.raw())),
    }
}
