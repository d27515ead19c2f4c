//! The `--http` deployment flags: authorization (feature `auth`), TLS (feature `tls`) and
//! the operations endpoint. Without any of them the server listens as before.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use snodo_std::AsyncHandler;
use snodo_std::http::ops::{Health, Metrics, OpsServer};
use snodo_std::http::{AllowList, HttpConfig, HttpListener, McpService};
use snodo_std::legacy::NodeName;

/// The lines `--help` adds for these flags.
pub const USAGE: &str = "\
with --http:
  --auth-issuer URL         require bearer JWTs issued by URL (the authorization server)
  --auth-jwks URL           ... signed by a key of the JWKS at URL
  --auth-resource URI       ... for this canonical server URI (the audience; its host is
                            allowed in Host and Origin), e.g. https://mcp.example.com/mcp
  --auth-scopes \"A B\"       scopes every request needs (also the metadata's scopes_supported)
  --auth-tool-scope T=A,B   calling tool T also needs scopes A and B (repeatable)
  --tls-cert PATH           serve HTTPS with this PEM certificate chain ...
  --tls-key PATH            ... and this PEM private key
  --metrics ADDR            serve /metrics, /healthz and /readyz on ADDR (keep it private)
  --legacy-idle-secs N      end a legacy (2025-11-25) session idle this long (default 1800)
  --answer-timeout-secs N   end a bridged request whose client has not answered in N s
                            (default 300)
  --node-name NAME          this node's name in a cluster, at the front of the legacy
                            session ids it mints (a-z, 0-9, -; also SNODO_NODE_NAME), for
                            routing by Mcp-Session-Id (docs/deploy.md)
";

/// The deployment flags given.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DeployOptions {
    auth_issuer: Option<String>,
    auth_jwks: Option<String>,
    auth_resource: Option<String>,
    auth_scopes: Vec<String>,
    auth_tool_scopes: Vec<(String, Vec<String>)>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    metrics: Option<SocketAddr>,
    legacy_idle: Option<Duration>,
    answer_timeout: Option<Duration>,
    node_name: Option<String>,
}

impl DeployOptions {
    /// Takes `flag` and its value from `rest` when it is one of these flags (`Ok(false)`
    /// otherwise).
    pub fn take(
        &mut self,
        flag: &str,
        rest: &mut impl Iterator<Item = String>,
    ) -> Result<bool, String> {
        let mut value = || rest.next().ok_or(format!("{flag} needs a value"));
        match flag {
            "--auth-issuer" => self.auth_issuer = Some(value()?),
            "--auth-jwks" => self.auth_jwks = Some(value()?),
            "--auth-resource" | "--auth-audience" => self.auth_resource = Some(value()?),
            "--auth-scopes" => {
                self.auth_scopes = value()?.split_whitespace().map(str::to_owned).collect();
            }
            "--auth-tool-scope" => {
                let given = value()?;
                let (tool, scopes) = given.split_once('=').ok_or(format!(
                    "--auth-tool-scope wants TOOL=SCOPE,SCOPE, not `{given}`"
                ))?;
                let scopes = scopes.split(',').map(str::to_owned).collect();
                self.auth_tool_scopes.push((tool.to_owned(), scopes));
            }
            "--tls-cert" => self.tls_cert = Some(value()?.into()),
            "--tls-key" => self.tls_key = Some(value()?.into()),
            "--metrics" => {
                let addr = value()?;
                let addr = addr
                    .parse()
                    .map_err(|e| format!("`{addr}` is not an address ({e})"))?;
                self.metrics = Some(addr);
            }
            "--legacy-idle-secs" => self.legacy_idle = Some(seconds(flag, &value()?)?),
            "--answer-timeout-secs" => self.answer_timeout = Some(seconds(flag, &value()?)?),
            "--node-name" => self.node_name = Some(value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// This node's name in a cluster: `--node-name`, else `SNODO_NODE_NAME`.
    pub fn node_name(&self) -> Option<String> {
        self.node_name
            .clone()
            .or_else(|| std::env::var("SNODO_NODE_NAME").ok())
    }

    /// Whether any authorization flag was given.
    fn auth_wanted(&self) -> bool {
        self.auth_issuer.is_some()
            || self.auth_jwks.is_some()
            || self.auth_resource.is_some()
            || !self.auth_scopes.is_empty()
            || !self.auth_tool_scopes.is_empty()
    }

    /// Binds the endpoint that `service` makes from `config`, as these flags say, and starts
    /// the operations endpoint when asked (ready once bound, unready from the first
    /// `SIGTERM` or Ctrl-C, when the listener starts draining).
    pub async fn listen<A: AsyncHandler + 'static>(
        self,
        config: HttpConfig,
        service: impl FnOnce(HttpConfig) -> McpService<A>,
    ) -> io::Result<HttpListener<McpService<A>>> {
        let refuse = |problem: String| io::Error::new(io::ErrorKind::InvalidInput, problem);
        let mut config = config;
        if let Some(idle) = self.legacy_idle {
            let sessions = config.legacy_sessions.with_idle_timeout(idle);
            config = config.with_legacy_sessions(sessions);
        }
        if let Some(node) = self.node_name() {
            let node = NodeName::new(&node).map_err(|e| refuse(format!("`{node}`: {e}")))?;
            let sessions = config.legacy_sessions.with_node(node);
            config = config.with_legacy_sessions(sessions);
        }
        if let Some(timeout) = self.answer_timeout {
            let bridge = config.bridge.with_answer_timeout(timeout);
            config = config.with_bridge(bridge);
        }
        if let Some(resource) = &self.auth_resource {
            config = allow_resource_host(config, resource).map_err(refuse)?;
        }
        let mut service = service(config);
        if self.auth_wanted() {
            service = self.with_auth(service).map_err(refuse)?;
        }
        let health = Health::new();
        // Unready while the task store is out of reach (a shared database down).
        let tasks = service.tasks().clone();
        health.require(move || tasks.store_reachable());
        if let Some(addr) = self.metrics {
            let metrics = Metrics::new();
            service = service.with_metrics(metrics.clone());
            let ops = OpsServer::bind(addr, Some(metrics), health.clone()).await?;
            tracing::info!(addr = %ops.local_addr()?, "operations endpoint: /metrics /healthz /readyz");
            tokio::spawn(ops.serve());
        }
        let listener = HttpListener::bind_service(service).await?;
        let listener = match (&self.tls_cert, &self.tls_key) {
            (None, None) => listener,
            (Some(cert), Some(key)) => with_tls(listener, cert, key)?,
            _ => return Err(refuse("--tls-cert and --tls-key go together".into())),
        };
        health.set_ready(true);
        unready_on_terminate(health)?;
        Ok(listener)
    }

    #[cfg(feature = "auth")]
    fn with_auth<A: AsyncHandler + 'static>(
        &self,
        service: McpService<A>,
    ) -> Result<McpService<A>, String> {
        use snodo_std::http::auth::{Authorization, JwksVerifier, ResourceServer, ScopePolicy};

        let (Some(issuer), Some(jwks), Some(resource)) =
            (&self.auth_issuer, &self.auth_jwks, &self.auth_resource)
        else {
            return Err(
                "authorization needs --auth-issuer, --auth-jwks and --auth-resource".into(),
            );
        };
        let policy = self
            .auth_tool_scopes
            .iter()
            .fold(ScopePolicy::new(), |policy, (tool, scopes)| {
                policy.tool(tool, scopes.iter().map(String::as_str))
            });
        let resource = ResourceServer::new(resource)
            .map_err(|e| e.to_string())?
            .authorization_server(issuer)
            .scopes_supported(self.auth_scopes.iter().map(String::as_str))
            .required_scopes(self.auth_scopes.iter().map(String::as_str))
            .policy(policy);
        let verifier =
            JwksVerifier::new(jwks, issuer, resource.resource()).map_err(|e| e.to_string())?;
        tracing::info!(resource = resource.resource(), %issuer, "bearer tokens required");
        Ok(service.with_auth(Authorization::new(resource, verifier)))
    }

    #[cfg(not(feature = "auth"))]
    fn with_auth<A: AsyncHandler + 'static>(
        &self,
        _: McpService<A>,
    ) -> Result<McpService<A>, String> {
        Err("this build has no authorization: build with feature `auth`".into())
    }
}

/// A whole number of seconds, at least 1.
fn seconds(flag: &str, given: &str) -> Result<Duration, String> {
    match given.parse::<u64>() {
        Ok(n) if n > 0 => Ok(Duration::from_secs(n)),
        _ => Err(format!(
            "{flag} wants a whole number of seconds, not `{given}`"
        )),
    }
}

/// Marks `health` unready at the signals that drain the listener.
fn unready_on_terminate(health: Health) -> io::Result<()> {
    #[cfg(unix)]
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::spawn(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = terminate.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        health.set_ready(false);
    });
    Ok(())
}

/// `config` with the host of the canonical `resource` URI allowed in `Host` and `Origin`.
fn allow_resource_host(config: HttpConfig, resource: &str) -> Result<HttpConfig, String> {
    let uri: http::Uri = resource
        .parse()
        .map_err(|_| format!("`{resource}` is not a URI"))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(format!("`{resource}` is not an absolute URI"));
    };
    let add = |list: AllowList, entry: String| match list {
        AllowList::Any => AllowList::Any,
        AllowList::Only(mut entries) => {
            entries.push(entry);
            AllowList::Only(entries)
        }
    };
    let hosts = add(config.hosts.clone(), authority.as_str().to_owned());
    let origins = add(config.origins.clone(), format!("{scheme}://{authority}"));
    Ok(config.with_hosts(hosts).with_origins(origins))
}

#[cfg(feature = "tls")]
fn with_tls<A: AsyncHandler + 'static>(
    listener: HttpListener<McpService<A>>,
    cert: &std::path::Path,
    key: &std::path::Path,
) -> io::Result<HttpListener<McpService<A>>> {
    let tls = snodo_std::http::TlsConfig::from_pem_files(cert, key)?;
    Ok(listener.with_tls(tls))
}

#[cfg(not(feature = "tls"))]
fn with_tls<A: AsyncHandler + 'static>(
    _: HttpListener<McpService<A>>,
    _: &std::path::Path,
    _: &std::path::Path,
) -> io::Result<HttpListener<McpService<A>>> {
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "this build has no TLS: build with feature `tls`",
    ))
}
