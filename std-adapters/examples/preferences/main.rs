//! An MCP 2026-07-28 server on snodo: a few tools, resources and prompts over stdio, and the
//! multi round-trip preference flow of the seed's example 20.
//!
//! ```text
//! cargo run -p snodo-std --example preferences -- --stdio
//! cargo run -p snodo-std --example preferences -- --http 127.0.0.1:8080
//! cargo run -p snodo-std --example preferences_check   # drives every flow in-process
//! ```
//!
//! Over stdio, standard output carries only MCP messages. Over HTTP, the first line on
//! standard output is the endpoint's URL (port 0 picks a free port); `SIGTERM` or Ctrl-C drains
//! the listener (no new connections, requests in flight finish) and `SIGHUP` reloads a key ring
//! from a file (`keys_options.rs`). Logs go to standard error (`RUST_LOG` filters them, `info` by
//! default).

mod app;
mod deploy_options;
mod flows;
mod keys_options;
mod report;
mod tasks_options;

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use snodo_std::http::{HttpConfig, McpService};
use snodo_std::keys::KeyRingSource;
use snodo_std::stdio::{StdioConfig, serve_stdio};
use snodo_std::tasks::TaskLimits;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use deploy_options::DeployOptions;

const USAGE: &str = "\
usage: preferences [--stdio | --http ADDR]

  --stdio       serve MCP on standard input and output (the default)
  --http ADDR   serve MCP over Streamable HTTP on ADDR (e.g. 127.0.0.1:8080; port 0 picks
                a free one) and print the endpoint's URL as the first line
  --help        show this help
";

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    /// Serve on standard input and output.
    Stdio,
    /// Serve over Streamable HTTP on this address.
    Http(SocketAddr),
    /// Print the usage.
    Help,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<(Command, DeployOptions), String> {
    let mut command = None;
    let mut deploy = DeployOptions::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if deploy.take(&arg, &mut args)? {
            continue;
        }
        let next = match arg.as_str() {
            "--stdio" => Command::Stdio,
            "--http" => {
                let addr = args
                    .next()
                    .ok_or("--http needs an address, e.g. 127.0.0.1:8080")?;
                let addr = addr
                    .parse()
                    .map_err(|e| format!("`{addr}` is not an address ({e})"))?;
                Command::Http(addr)
            }
            "--check" => {
                return Err("--check is now its own example: cargo run -p snodo-std \
                            --example preferences_check"
                    .to_owned());
            }
            "-h" | "--help" => return Ok((Command::Help, deploy)),
            other => return Err(format!("unknown argument `{other}`")),
        };
        if command.replace(next).is_some() {
            return Err("give one mode".to_owned());
        }
    }
    Ok((command.unwrap_or(Command::Stdio), deploy))
}

fn main() -> ExitCode {
    let (keyring, args) = match keys_options::take_args(std::env::args().skip(1)) {
        Ok(taken) => taken,
        Err(problem) => {
            eprintln!("preferences: {problem}\n{USAGE}{}", keys_options::USAGE);
            return ExitCode::from(2);
        }
    };
    let (tasks, args) = match tasks_options::take_args(args) {
        Ok(taken) => taken,
        Err(problem) => {
            eprintln!("preferences: {problem}\n{USAGE}{}", tasks_options::USAGE);
            return ExitCode::from(2);
        }
    };
    let (command, deploy) = match parse_args(args) {
        Ok(parsed) => parsed,
        Err(problem) => {
            eprintln!("preferences: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            print!(
                "{USAGE}{}{}{}",
                keys_options::USAGE,
                tasks_options::USAGE,
                deploy_options::USAGE
            );
            ExitCode::SUCCESS
        }
        Command::Stdio => run_stdio(keyring, tasks),
        Command::Http(addr) => run_http(addr, keyring, tasks, deploy),
    }
}

/// What both transports need first: logging, the state keys and a runtime; `None` once the
/// reason it cannot start has been logged.
fn start(
    keyring: Option<KeyRingSource>,
) -> Option<(keys_options::StateKeys, tokio::runtime::Runtime)> {
    init_logging();
    let keys = keys_options::StateKeys::load_checked(keyring)?;
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Some((keys, runtime)),
        Err(e) => {
            tracing::error!("cannot start the runtime: {e}");
            None
        }
    }
}

fn run_stdio(keyring: Option<KeyRingSource>, tasks: TaskLimits) -> ExitCode {
    let Some((keys, runtime)) = start(keyring) else {
        return ExitCode::FAILURE;
    };
    tracing::info!("serving on stdio");
    let config = StdioConfig::default().with_tasks(tasks);
    match runtime.block_on(serve_stdio(keys.slot().load(), config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("stdio failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_http(
    addr: SocketAddr,
    keyring: Option<KeyRingSource>,
    tasks: TaskLimits,
    deploy: DeployOptions,
) -> ExitCode {
    let Some((keys, runtime)) = start(keyring) else {
        return ExitCode::FAILURE;
    };
    let served = runtime.block_on(async {
        let config = HttpConfig::new().with_addr(addr);
        let host = tasks_options::host(tasks, deploy.node_name()).await?;
        let tasks = host.clone();
        let listener = deploy
            .listen(config, |config| {
                McpService::with_slot(keys.slot().clone(), config).with_tasks(host)
            })
            .await?;
        let url = listener.url()?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{url}")?;
        stdout.flush()?;
        drop(stdout);
        tracing::info!(%url, "serving over Streamable HTTP");
        keys.reload_on_sighup()?;
        snodo_std::signals::drain_on_terminate(listener.shutdown_handle())?;
        listener.serve().await?;
        // Drained: tasks kept in a shared database get a while to finish (docs/deploy.md).
        tasks.wind_down(tasks_options::DRAIN_GRACE).await;
        Ok::<(), std::io::Error>(())
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("HTTP failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Logs to standard error only: standard output belongs to the protocol. `RUST_LOG` is a list
/// of `target=level` (or a bare level); `Targets` parses it without the regex engine an
/// `EnvFilter` links in, about a sixth of the binary's code, which a server keeps resident.
fn init_logging() {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| spec.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::INFO));
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();
}
