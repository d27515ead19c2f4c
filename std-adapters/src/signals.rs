//! Process signals a deployed server answers: `SIGTERM` (what orchestrators and `systemctl
//! stop` send) and `SIGINT` (Ctrl-C) drain the HTTP listener.

use crate::http::ShutdownHandle;

/// On the first `SIGTERM` or `SIGINT`, shuts the listener down gracefully: it stops
/// accepting (new connections are refused), lets requests in flight finish within
/// [`HttpConfig::shutdown_grace`](crate::http::HttpConfig::shutdown_grace), closes idle
/// keep-alive connections, and [`serve`](crate::http::HttpListener::serve) returns. Call it
/// inside the runtime.
#[cfg(unix)]
pub fn drain_on_terminate(shutdown: ShutdownHandle) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    tokio::spawn(async move {
        let which = tokio::select! {
            _ = terminate.recv() => "SIGTERM",
            _ = interrupt.recv() => "SIGINT",
        };
        tracing::info!(
            signal = which,
            "draining: no new connections; finishing requests in flight"
        );
        shutdown.shutdown();
    });
    Ok(())
}

/// On Ctrl-C, shuts the listener down gracefully (see the Unix version for `SIGTERM`).
#[cfg(not(unix))]
pub fn drain_on_terminate(shutdown: ShutdownHandle) -> std::io::Result<()> {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            tracing::info!("draining: no new connections; finishing requests in flight");
            shutdown.shutdown();
        }
    });
    Ok(())
}
