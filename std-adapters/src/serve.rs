//! Serving a checked server: [`Checked`] proves [`Server::check`] passed, and the entry
//! points [`serve_stdio`] and [`serve_http`] start the tokio runtime themselves.

use std::io;
use std::sync::Arc;

use snodo_core::server::{Registry, Server};

use crate::AsyncHandler;
use crate::http::{HttpConfig, HttpListener};
use crate::stdio::StdioConfig;

/// A definition the server refused: which one, and why.
///
/// ```
/// let e = snodo_std::CheckError { name: "echo".into(), problem: "defined twice".into() };
/// assert_eq!(e.to_string(), "echo: defined twice");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// The tool, resource, template or prompt.
    pub name: String,
    /// What is wrong with it.
    pub problem: String,
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.problem)
    }
}

impl std::error::Error for CheckError {}

/// A server whose definitions passed [`Server::check`]: the only kind the entry points
/// serve, so a bad definition is found at start-up, never on the wire.
///
/// ```
/// use snodo_core::server::{Config, Registry, Server, Tool};
/// use snodo_std::Checked;
///
/// #[derive(Debug)]
/// struct Bad;
/// impl Registry for Bad {
///     fn tools(&self) -> &[Tool<'_>] {
///         const TOOLS: &[Tool<'static>] = &[Tool::new("x").input_schema("[]")];
///         TOOLS
///     }
/// }
/// let refused = Checked::new(Server::new(Config::new("s", "1.0"), Bad)).unwrap_err();
/// assert_eq!(refused.name, "x");
/// ```
#[derive(Debug)]
pub struct Checked<A> {
    server: Server<'static, A>,
}

impl<A: Registry> Checked<A> {
    /// Checks `server`.
    pub fn new(server: Server<'static, A>) -> Result<Self, CheckError> {
        if let Err(e) = server.check() {
            return Err(CheckError {
                name: e.name.to_owned(),
                problem: e.problem.to_owned(),
            });
        }
        Ok(Checked { server })
    }

    /// The server.
    pub fn server(&self) -> &Server<'static, A> {
        &self.server
    }

    /// The server, for an adapter that takes one (`stdio::serve_stdio`, `HttpListener`,
    /// `McpService`).
    pub fn into_server(self) -> Server<'static, A> {
        self.server
    }

    /// The server, shared, for the adapters.
    pub fn into_shared(self) -> Arc<Server<'static, A>> {
        Arc::new(self.server)
    }
}

fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

/// Serves `server` on standard input and output until the input ends, on a multi-threaded
/// tokio runtime of its own (call it from `main`, not from inside a runtime).
///
/// ```no_run
/// # fn server() -> snodo_std::Checked<snodo_std::typed::TypedApp> { unimplemented!() }
/// fn main() -> std::io::Result<()> {
///     snodo_std::serve_stdio(server())
/// }
/// ```
pub fn serve_stdio<A: AsyncHandler + 'static>(server: Checked<A>) -> io::Result<()> {
    runtime()?.block_on(crate::stdio::serve_stdio(
        server.into_shared(),
        StdioConfig::default(),
    ))
}

/// Serves `server` over Streamable HTTP as `config` says, on a multi-threaded tokio runtime
/// of its own, until Ctrl-C (then it shuts down gracefully). `listening` is told the
/// endpoint's URL once the listener is bound (port 0 picks a free port).
///
/// ```no_run
/// # fn server() -> snodo_std::Checked<snodo_std::typed::TypedApp> { unimplemented!() }
/// use snodo_std::http::HttpConfig;
///
/// fn main() -> std::io::Result<()> {
///     snodo_std::serve_http(server(), HttpConfig::new(), |url| {
///         println!("{url}");
///         Ok(())
///     })
/// }
/// ```
pub fn serve_http<A: AsyncHandler + 'static>(
    server: Checked<A>,
    config: HttpConfig,
    listening: impl FnOnce(&str) -> io::Result<()>,
) -> io::Result<()> {
    runtime()?.block_on(async {
        let listener = HttpListener::bind(server.into_shared(), config).await?;
        listening(&listener.url()?)?;
        let shutdown = listener.shutdown_handle();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                tracing::info!("interrupted; shutting down");
                shutdown.shutdown();
            }
        });
        listener.serve().await
    })
}
