//! `snodo-bridge`: lets a desktop MCP client reach a tool device on a serial port.
//!
//! ```text
//! snodo-bridge --serial PATH [--baud N] [--framing line|cobs] [--timeout-ms N]
//!              [--max-message N] (--stdio | --http ADDR [--tls-cert PEM --tls-key PEM])
//! ```
//!
//! - `--stdio`: the client starts the bridge and talks newline-delimited JSON on its stdin
//!   and stdout (the MCP stdio transport);
//! - `--http ADDR`: Streamable HTTP at `http://ADDR/mcp` (loopback names only in `Host` and
//!   `Origin`) on the server's own listener; the URL is printed on stdout once listening.
//!   `SIGTERM` or Ctrl-C drains it (no new connections, requests in flight finish within the
//!   grace). `--tls-cert` and `--tls-key` serve HTTPS (a build with feature `tls`).
//!
//! Logs go to stderr (`RUST_LOG` filters them; `info` by default). Exit status: 0 at the end
//! of stdin or after a drain, 1 when the port cannot be opened or the transport fails, 2 for
//! bad usage.

#[cfg(unix)]
fn main() -> std::process::ExitCode {
    unix::main()
}

#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    eprintln!("snodo-bridge runs on Unix-like systems (it drives a tty through termios)");
    std::process::ExitCode::from(1)
}

#[cfg(unix)]
mod unix {
    use std::io;
    use std::net::SocketAddr;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;
    use std::time::Duration;

    use snodo_core::io::Framing;
    use snodo_std::bridge::{
        BAUD_RATES, BridgeService, Device, DeviceConfig, SerialConfig, serve_stdio,
    };
    use snodo_std::http::{HttpConfig, HttpListener};
    use tracing_subscriber::EnvFilter;

    const USAGE: &str = "usage: snodo-bridge --serial PATH [--baud N] [--framing line|cobs] \
                         [--timeout-ms N] [--max-message N] \
                         (--stdio | --http ADDR [--tls-cert PEM --tls-key PEM])";

    enum Side {
        Stdio,
        Http {
            addr: SocketAddr,
            /// The certificate chain and key, both PEM files.
            tls: Option<(PathBuf, PathBuf)>,
        },
    }

    struct Args {
        device: DeviceConfig,
        side: Side,
    }

    fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut path = None;
        let mut baud = 115_200;
        let mut framing = Framing::Line;
        let mut timeout = None;
        let mut max_message = None;
        let mut side = None;
        let (mut cert, mut key) = (None, None);
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--serial" => path = Some(PathBuf::from(value("--serial")?)),
                "--baud" => {
                    baud = value("--baud")?
                        .parse()
                        .ok()
                        .filter(|b| BAUD_RATES.contains(b))
                        .ok_or(format!("--baud takes one of {BAUD_RATES:?}"))?;
                }
                "--framing" => {
                    framing = Framing::from_name(&value("--framing")?)
                        .ok_or("--framing takes line or cobs")?;
                }
                "--timeout-ms" => {
                    let ms: u64 = value("--timeout-ms")?
                        .parse()
                        .map_err(|_| "--timeout-ms takes milliseconds")?;
                    timeout = Some(Duration::from_millis(ms.max(1)));
                }
                "--max-message" => {
                    max_message = Some(
                        value("--max-message")?
                            .parse::<usize>()
                            .map_err(|_| "--max-message takes bytes")?,
                    );
                }
                "--stdio" => side = Some(Side::Stdio),
                "--http" => {
                    let addr = value("--http")?;
                    side = Some(Side::Http {
                        addr: addr
                            .parse()
                            .map_err(|_| format!("--http: not an address: {addr}"))?,
                        tls: None,
                    });
                }
                "--tls-cert" => cert = Some(PathBuf::from(value("--tls-cert")?)),
                "--tls-key" => key = Some(PathBuf::from(value("--tls-key")?)),
                "-h" | "--help" => return Err(String::new()),
                other => return Err(format!("unknown argument {other}")),
            }
        }
        let path = path.ok_or("--serial PATH is required")?;
        let mut side = side.ok_or("one of --stdio or --http ADDR is required")?;
        match (&mut side, cert, key) {
            (_, None, None) => {}
            (Side::Http { tls, .. }, Some(cert), Some(key)) => *tls = Some((cert, key)),
            (Side::Http { .. }, _, _) => return Err("--tls-cert and --tls-key go together".into()),
            (Side::Stdio, _, _) => return Err("--tls-cert and --tls-key need --http".into()),
        }
        let mut device = DeviceConfig::new(SerialConfig {
            path,
            baud,
            framing,
        });
        if let Some(timeout) = timeout {
            device.timeout = timeout;
        }
        if let Some(max) = max_message {
            device.max_message = max;
        }
        Ok(Args { device, side })
    }

    pub(super) fn main() -> ExitCode {
        let args = match parse(std::env::args().skip(1)) {
            Ok(args) => args,
            Err(why) => {
                if !why.is_empty() {
                    eprintln!("snodo-bridge: {why}");
                }
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        };
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .with_env_filter(
                EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
            )
            .init();
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                eprintln!("snodo-bridge: {e}");
                return ExitCode::from(1);
            }
        };
        runtime.block_on(run(args))
    }

    async fn run(args: Args) -> ExitCode {
        let path = args.device.serial.path.clone();
        let framing = args.device.serial.framing;
        let device = match Device::open(args.device) {
            Ok(device) => device,
            Err(e) => {
                eprintln!("snodo-bridge: cannot open {}: {e}", path.display());
                return ExitCode::from(1);
            }
        };
        tracing::info!(path = %path.display(), framing = framing.name(), "device port open");
        let served = match args.side {
            Side::Stdio => serve_stdio(&device, tokio::io::stdin(), tokio::io::stdout()).await,
            Side::Http { addr, tls } => {
                serve_http(device, HttpConfig::new().with_addr(addr), tls).await
            }
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("snodo-bridge: {e}");
                ExitCode::from(1)
            }
        }
    }

    /// Serves the device on the server's HTTP listener until a signal drains it.
    async fn serve_http(
        device: Device,
        config: HttpConfig,
        tls: Option<(PathBuf, PathBuf)>,
    ) -> io::Result<()> {
        let listener = HttpListener::bind_service(BridgeService::new(device, config)).await?;
        let listener = match tls {
            Some((cert, key)) => with_tls(listener, &cert, &key)?,
            None => listener,
        };
        let url = listener.url()?;
        println!("{url}");
        tracing::info!(%url, "listening");
        snodo_std::signals::drain_on_terminate(listener.shutdown_handle())?;
        listener.serve().await
    }

    #[cfg(feature = "tls")]
    fn with_tls(
        listener: HttpListener<BridgeService>,
        cert: &Path,
        key: &Path,
    ) -> io::Result<HttpListener<BridgeService>> {
        let tls = snodo_std::http::TlsConfig::from_pem_files(cert, key)?;
        Ok(listener.with_tls(tls))
    }

    #[cfg(not(feature = "tls"))]
    fn with_tls(
        _: HttpListener<BridgeService>,
        _: &Path,
        _: &Path,
    ) -> io::Result<HttpListener<BridgeService>> {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "this build has no TLS: build with feature `tls`",
        ))
    }
}
