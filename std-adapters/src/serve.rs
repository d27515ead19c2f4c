//! The entry points [`serve_stdio`] and [`serve_http`], which start the tokio runtime
//! themselves. A [`Server`] exists only once its definitions passed the core's check.

use std::io;
use std::sync::Arc;

use snodo_core::server::{Refused, Registry, Server};

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

/// A server the core refused (`Server::new` checks every definition) names the definition.
///
/// ```
/// use snodo_core::server::{Config, Registry, Server, Tool};
/// use snodo_std::CheckError;
///
/// struct Bad;
/// impl Registry for Bad {
///     fn tools(&self) -> &[Tool<'_>] {
///         const TOOLS: &[Tool<'static>] = &[Tool::new("x").input_schema("[]")];
///         TOOLS
///     }
/// }
/// let Err(refused) = Server::new(Config::new("s", "1.0"), Bad) else { unreachable!() };
/// assert_eq!(CheckError::from(refused).name, "x");
/// ```
impl<A: Registry> From<Refused<A>> for CheckError {
    fn from(refused: Refused<A>) -> Self {
        let error = refused.error();
        CheckError {
            name: error.name.to_owned(),
            problem: error.problem.to_owned(),
        }
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
/// It installs no log output: the server logs through `tracing`, and one line in `main`
/// (with `tracing-subscriber`'s `env-filter` feature) makes it honour `RUST_LOG` on standard
/// error, which keeps standard output for MCP:
/// `tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();`
/// `RUST_LOG=debug` then says why a request was refused, for example why a retry's
/// `requestState` does not open (a retry sent to another process: the default secret is drawn
/// per process).
///
/// ```no_run
/// # fn server() -> snodo_core::server::Server<'static, snodo_std::typed::TypedApp> { unimplemented!() }
/// fn main() -> std::io::Result<()> {
///     snodo_std::serve_stdio(server())
/// }
/// ```
pub fn serve_stdio<A: AsyncHandler + 'static>(server: Server<'static, A>) -> io::Result<()> {
    runtime()?.block_on(crate::stdio::serve_stdio(
        Arc::new(server),
        StdioConfig::default(),
    ))
}

/// Serves `server` over Streamable HTTP as `config` says, on a multi-threaded tokio runtime
/// of its own, until Ctrl-C (then it shuts down gracefully). `listening` is told the
/// endpoint's URL once the listener is bound (port 0 picks a free port).
///
/// Like [`serve_stdio`], it installs no log output (see there for the one line that honours
/// `RUST_LOG`).
///
/// ```no_run
/// # fn server() -> snodo_core::server::Server<'static, snodo_std::typed::TypedApp> { unimplemented!() }
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
    server: Server<'static, A>,
    config: HttpConfig,
    listening: impl FnOnce(&str) -> io::Result<()>,
) -> io::Result<()> {
    runtime()?.block_on(async {
        let listener = HttpListener::bind(Arc::new(server), config).await?;
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
