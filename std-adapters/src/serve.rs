//! The entry points [`serve_stdio`], [`serve_http`] and [`serve_from_args`], which start the
//! tokio runtime themselves. A [`Server`] exists only once its definitions passed the core's check.

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
/// It installs no log output ([`serve_from_args`] does): the server logs through `tracing`,
/// and one line in `main`
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

/// Serves `server` as the command line asks, for a binary whose `main` is this one call: no
/// argument serves stdio ([`serve_stdio`]); `--http ADDR` serves Streamable HTTP on `ADDR`
/// ([`serve_http`]) and writes the endpoint's URL as standard output's first line, for
/// scripts to read. Anything else is an error that shows the usage.
///
/// With the `log` feature (on by default) it first sends the server's `tracing` events to
/// standard error, filtered by `RUST_LOG` (`RUST_LOG=debug` says why a request was refused),
/// unless the program installed a subscriber of its own.
///
/// ```no_run
/// # fn server() -> snodo_core::server::Server<'static, snodo_std::typed::TypedApp> { unimplemented!() }
/// // `my-server` serves stdio; `my-server --http 127.0.0.1:8080` serves HTTP.
/// fn main() -> std::io::Result<()> {
///     snodo_std::serve_from_args(server())
/// }
/// ```
pub fn serve_from_args<A: AsyncHandler + 'static>(server: Server<'static, A>) -> io::Result<()> {
    #[cfg(feature = "log")]
    {
        use tracing_subscriber::EnvFilter;
        let log = tracing_subscriber::fmt().with_env_filter(EnvFilter::from_default_env());
        // An error means the program installed its own subscriber, which then stays.
        let _ = log.with_writer(io::stderr).try_init();
    }
    match Transport::from_args(std::env::args())? {
        Transport::Stdio => serve_stdio(server),
        Transport::Http(addr) => serve_http(server, HttpConfig::new().with_addr(addr), |url| {
            println!("{url}");
            Ok(())
        }),
    }
}

/// The transport a command line names.
#[derive(Debug, PartialEq)]
enum Transport {
    Stdio,
    Http(std::net::SocketAddr),
}

impl Transport {
    /// Reads `[--http ADDR]` after the program's name.
    fn from_args(mut args: impl Iterator<Item = String>) -> io::Result<Self> {
        let program = args.next().unwrap_or_else(|| "server".to_owned());
        let rest: Vec<String> = args.collect();
        let usage = |problem: String| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{problem}; usage: {program} [--http ADDR] (no argument serves stdio)"),
            )
        };
        match rest.as_slice() {
            [] => Ok(Transport::Stdio),
            [flag, addr] if flag == "--http" => addr
                .parse()
                .map(Transport::Http)
                .map_err(|e| usage(format!("--http {addr}: {e}"))),
            _ => Err(usage(format!("unexpected arguments {rest:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Transport;

    fn read(args: &[&str]) -> std::io::Result<Transport> {
        Transport::from_args(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn no_argument_serves_stdio_and_http_takes_an_address() {
        assert_eq!(read(&["s"]).unwrap(), Transport::Stdio);
        let http = read(&["s", "--http", "127.0.0.1:8080"]).unwrap();
        assert_eq!(http, Transport::Http("127.0.0.1:8080".parse().unwrap()));
    }

    #[test]
    fn anything_else_is_an_error_showing_the_usage() {
        let bad_addr = read(&["s", "--http", "localhost"]).unwrap_err().to_string();
        assert!(bad_addr.starts_with("--http localhost: "), "{bad_addr}");
        assert!(bad_addr.ends_with("usage: s [--http ADDR] (no argument serves stdio)"));
        let extra = read(&["s", "--stdio"]).unwrap_err().to_string();
        assert!(
            extra.starts_with(r#"unexpected arguments ["--stdio"]"#),
            "{extra}"
        );
        assert!(read(&["s", "--http"]).is_err());
    }
}
