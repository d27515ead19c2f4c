//! The fixture server for the official MCP conformance runner, over Streamable HTTP.
//!
//! ```text
//! cargo run -p snodo-tests --bin conformance-server -- --http 127.0.0.1:0
//! ```
//!
//! Prints exactly one line on standard output, `{"url":"http://127.0.0.1:PORT/mcp"}`, once the
//! listener is bound (port 0 picks a free one), then serves until SIGINT or SIGTERM and shuts
//! down gracefully. Logs go to standard error (`RUST_LOG` filters them, `info` by default).
//! What it serves: [`snodo_tests::conformance`].

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use snodo_core::server::Server;
use snodo_std::events::EventBus;
use snodo_std::http::{HttpConfig, HttpListener, McpService, SessionLimits};
use snodo_tests::conformance::{ConformanceApp, config};
use tracing_subscriber::EnvFilter;

const USAGE: &str = "usage: conformance-server --http ADDR   (e.g. 127.0.0.1:0)";

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<SocketAddr, String> {
    let mut addr = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                let value = args.next().ok_or("--http needs an address")?;
                let parsed = value
                    .parse()
                    .map_err(|e| format!("`{value}` is not an address ({e})"))?;
                addr = Some(parsed);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    addr.ok_or_else(|| "--http ADDR is required".to_owned())
}

fn main() -> ExitCode {
    let addr = match parse_args(std::env::args().skip(1)) {
        Ok(addr) => addr,
        Err(problem) => {
            eprintln!("conformance-server: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
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
    match runtime.block_on(serve(addr)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("conformance-server failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(addr: SocketAddr) -> std::io::Result<()> {
    let events = EventBus::new();
    let server = Server::new(config(), ConformanceApp::new(events.clone()))
        .map_err(|e| std::io::Error::other(format!("bad definition: {e}")))?;
    // Quiet legacy requests are polled (SSE priming, close, resume with Last-Event-ID), as
    // `server-sse-polling` expects of `test_reconnection`.
    let sessions = SessionLimits::DEFAULT.with_poll_after(Some(Duration::from_millis(200)));
    let config = HttpConfig::new()
        .with_addr(addr)
        .with_legacy_sessions(sessions);
    let service = McpService::new(Arc::new(server), config).with_events(events);
    let listener = HttpListener::bind_service(service).await?;
    let url = listener.url()?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", serde_json::json!({ "url": url }))?;
    stdout.flush()?;
    drop(stdout);
    tracing::info!(%url, "conformance fixture serving over Streamable HTTP");
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
        _ => {
            tracing::warn!("no signal handlers; stop the process by killing it");
            std::future::pending::<()>().await;
        }
    }
}
