//! Serves the MRTR fixture applications of [`snodo_tests::mrtr_fixture`] over stdio or
//! Streamable HTTP, for the MRTR acceptance suites across a process boundary.
//!
//! ```text
//! cargo run -p snodo-tests --bin mrtr-fixture-server -- --stdio
//! cargo run -p snodo-tests --bin mrtr-fixture-server -- --app preferences --http 127.0.0.1:0
//! ```
//!
//! - `--app fixture` (the default) serves [`MrtrFixture`]; `--app preferences` serves the
//!   `preferences` example's typed preference flows
//!   ([`snodo_tests::mrtr_fixture::typed_preferences`]); `--app wire` serves the wire suite's
//!   [`Fixture`]. All with the fixtures' identity and cache
//!   hints ([`snodo_tests::fixture::config`]).
//! - Over stdio, standard output carries only MCP messages and the server exits at the end of
//!   input. Over HTTP, the first line on standard output is the endpoint's URL (port 0 picks a
//!   free one); SIGINT or SIGTERM shuts the listener down gracefully.
//! - Sealed state uses a random secret drawn at start-up
//!   ([`snodo_std::process_state_options`]) unless a test chooses the keys:
//!   `--secret-hex HEX` (one 32-byte secret), `--key ID=HEX` (repeated: a key ring, the first
//!   key sealing) or `--no-keys`. **Chosen keys are for tests only**: a secret on a command
//!   line is visible to every user of the machine.
//!
//! Logs go to standard error (`RUST_LOG` filters them, `info` by default).

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use snodo_core::server::Server;
use snodo_core::state::{Keys, StateOptions, Ttl};
use snodo_std::AsyncHandler;
use snodo_std::http::{HttpConfig, HttpListener};
use snodo_std::stdio::{StdioConfig, serve_stdio};
use snodo_std::typed::TypedApp;
use snodo_tests::fixture::Fixture;
use snodo_tests::mrtr_fixture::MrtrFixture;
use tracing_subscriber::EnvFilter;

const USAGE: &str = "\
usage: mrtr-fixture-server [--app fixture|preferences|wire] [--stdio | --http ADDR]
                           [--secret-hex HEX | --key ID=HEX ... | --no-keys]

  --app NAME        fixture (the default): the MRTR fixture application;
                    preferences: the example's preference flow;
                    wire: the wire suite's fixture (keys are not used)
  --stdio           serve on standard input and output (the default)
  --http ADDR       serve Streamable HTTP on ADDR and print the endpoint's URL first
  --secret-hex HEX  seal state with this 32-byte secret (64 hex digits; tests only)
  --key ID=HEX      a key of a ring, repeated; the first seals (tests only)
  --no-keys         configure no state keys (sealing fails)
";

#[derive(Debug, PartialEq, Eq)]
enum App {
    Fixture,
    Preferences,
    Wire,
}

#[derive(Debug, PartialEq, Eq)]
enum Keying {
    /// A random secret for the process.
    Random,
    Secret([u8; 32]),
    Ring(Vec<(String, [u8; 32])>),
    None,
}

#[derive(Debug)]
struct Options {
    app: App,
    http: Option<SocketAddr>,
    keys: Keying,
}

fn parse_hex(text: &str) -> Result<[u8; 32], String> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return Err(format!("a secret is 64 hex digits, not {}", bytes.len()));
    }
    let mut secret = [0u8; 32];
    for (byte, pair) in secret.iter_mut().zip(bytes.chunks(2)) {
        let pair = std::str::from_utf8(pair).map_err(|_| "not hex".to_owned())?;
        *byte = u8::from_str_radix(pair, 16).map_err(|_| format!("`{pair}` is not hex"))?;
    }
    Ok(secret)
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        app: App::Fixture,
        http: None,
        keys: Keying::Random,
    };
    let mut args = args.into_iter();
    let mut keyed = false;
    let mut set_keys = |options: &mut Options, keys: Keying| -> Result<(), String> {
        match (&mut options.keys, keys) {
            (Keying::Ring(ring), Keying::Ring(more)) => ring.extend(more),
            (_, _) if keyed => return Err("give one way of keying".to_owned()),
            (slot, keys) => *slot = keys,
        }
        keyed = true;
        Ok(())
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--app" => {
                options.app = match value("--app")?.as_str() {
                    "fixture" => App::Fixture,
                    "preferences" => App::Preferences,
                    "wire" => App::Wire,
                    other => return Err(format!("unknown app `{other}`")),
                }
            }
            "--stdio" => options.http = None,
            "--http" => {
                let addr = value("--http")?;
                let addr = addr
                    .parse()
                    .map_err(|e| format!("`{addr}` is not an address ({e})"))?;
                options.http = Some(addr);
            }
            "--secret-hex" => {
                let secret = parse_hex(&value("--secret-hex")?)?;
                set_keys(&mut options, Keying::Secret(secret))?;
            }
            "--key" => {
                let key = value("--key")?;
                let (id, secret) = key.split_once('=').ok_or("--key needs ID=HEX")?;
                let ring = vec![(id.to_owned(), parse_hex(secret)?)];
                set_keys(&mut options, Keying::Ring(ring))?;
            }
            "--no-keys" => set_keys(&mut options, Keying::None)?,
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Some(options))
}

/// The keys a test chose: `Ok(None)` for a random process secret or no keys.
fn chosen_keys(keys: &Keying) -> Result<Option<Keys>, String> {
    let keys = match keys {
        Keying::Random | Keying::None => return Ok(None),
        Keying::Secret(secret) => Keys::secret(secret),
        Keying::Ring(ring) => {
            let ring: Vec<(&str, [u8; 32])> =
                ring.iter().map(|(id, s)| (id.as_str(), *s)).collect();
            Keys::ring(&ring)
        }
    };
    keys.map(Some).map_err(|e| format!("invalid keys: {e:?}"))
}

/// The state options for `keys`, kept for the life of the process.
fn state_options(keys: &Keying) -> Result<Option<&'static StateOptions>, String> {
    match (keys, chosen_keys(keys)?) {
        (_, Some(keys)) => Ok(Some(Box::leak(Box::new(StateOptions::new(keys))))),
        (Keying::None, None) => Ok(None),
        (_, None) => Ok(Some(snodo_std::process_state_options())),
    }
}

/// The example's typed preference flows with the fixtures' identity and these keys.
fn typed_preferences(keys: &Keying) -> Result<Server<'static, TypedApp>, String> {
    let builder = snodo_tests::mrtr_fixture::typed_preferences();
    let builder = match (keys, chosen_keys(keys)?) {
        (_, Some(keys)) => builder.state(keys, Ttl::DEFAULT),
        (Keying::None, None) => builder.stateless(),
        (_, None) => builder,
    };
    builder.build().map_err(|e| format!("bad definition: {e}"))
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("mrtr-fixture-server: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let state = match state_options(&options.keys) {
        Ok(state) => state,
        Err(problem) => {
            eprintln!("mrtr-fixture-server: {problem}");
            return ExitCode::from(2);
        }
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let config = match state {
        Some(state) => snodo_tests::mrtr_fixture::config(state),
        None => snodo_tests::fixture::config(),
    };
    match options.app {
        App::Fixture => match Server::new(config, MrtrFixture::new()) {
            Ok(server) => run(server, options.http),
            Err(e) => {
                eprintln!("mrtr-fixture-server: bad definition: {e}");
                ExitCode::FAILURE
            }
        },
        App::Wire => match Server::new(snodo_tests::fixture::config(), Fixture::new()) {
            Ok(server) => run(server, options.http),
            Err(e) => {
                eprintln!("mrtr-fixture-server: bad definition: {e}");
                ExitCode::FAILURE
            }
        },
        App::Preferences => match typed_preferences(&options.keys) {
            Ok(server) => run(server, options.http),
            Err(problem) => {
                eprintln!("mrtr-fixture-server: {problem}");
                ExitCode::FAILURE
            }
        },
    }
}

fn run<A: AsyncHandler + 'static>(
    server: Server<'static, A>,
    http: Option<SocketAddr>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = Arc::new(server);
    let served = match http {
        None => runtime.block_on(serve_stdio(server, StdioConfig::default())),
        Some(addr) => runtime.block_on(serve_http(server, addr)),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("serving failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http<A: AsyncHandler + 'static>(
    server: Arc<Server<'static, A>>,
    addr: SocketAddr,
) -> std::io::Result<()> {
    let listener = HttpListener::bind(server, HttpConfig::new().with_addr(addr)).await?;
    let url = listener.url()?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{url}")?;
    stdout.flush()?;
    drop(stdout);
    tracing::info!(%url, "serving over Streamable HTTP");
    let shutdown = listener.shutdown_handle();
    tokio::spawn(async move {
        stopped().await;
        tracing::info!("stopping");
        shutdown.shutdown();
    });
    listener.serve().await
}

/// Resolves at SIGINT or SIGTERM (or, if the handlers cannot be installed, never).
async fn stopped() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut interrupt), Ok(mut terminate)) => {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Result<Option<Options>, String> {
        parse_args(text.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn keys_and_apps_from_the_command_line() {
        let o = args("").unwrap().unwrap();
        assert_eq!(
            (o.app, o.http, o.keys),
            (App::Fixture, None, Keying::Random)
        );
        let hex = "01".repeat(32);
        let o = args(&format!(
            "--app preferences --secret-hex {hex} --http 127.0.0.1:0"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(o.app, App::Preferences);
        assert_eq!(o.keys, Keying::Secret([1; 32]));
        assert_eq!(o.http, Some("127.0.0.1:0".parse().unwrap()));
        let o = args(&format!("--key a={hex} --key b={}", "02".repeat(32)))
            .unwrap()
            .unwrap();
        assert_eq!(
            o.keys,
            Keying::Ring(vec![("a".into(), [1; 32]), ("b".into(), [2; 32])])
        );
        assert!(args(&format!("--no-keys --secret-hex {hex}")).is_err());
        assert!(args(&format!("--secret-hex {hex} --key a={hex}")).is_err());
        assert!(args("--secret-hex 0102").is_err());
        assert!(args("--app other").is_err());
        assert!(args("--help").unwrap().is_none());
    }
}
