//! `snodo-bridge`: lets a desktop MCP client reach a tool device on a serial port.
//!
//! ```text
//! snodo-bridge --serial PATH [--baud N] [--framing line|cobs] [--timeout-ms N]
//!              [--max-message N] (--stdio | --http ADDR)
//! ```
//!
//! - `--stdio`: the client starts the bridge and talks newline-delimited JSON on its stdin
//!   and stdout (the MCP stdio transport);
//! - `--http ADDR`: Streamable HTTP at `http://ADDR/mcp` (loopback names only in `Host` and
//!   `Origin`); the URL is printed on stdout once listening.
//!
//! Logs go to stderr (`RUST_LOG` filters them; `info` by default). Exit status: 0 at the end
//! of stdin, 1 when the port cannot be opened or the transport fails, 2 for bad usage.

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
    use std::net::SocketAddr;
    use std::path::PathBuf;
    use std::process::ExitCode;
    use std::time::Duration;

    use snodo_core::io::Framing;
    use snodo_std::bridge::{
        BAUD_RATES, Device, DeviceConfig, SerialConfig, serve_http, serve_stdio,
    };
    use snodo_std::http::HttpConfig;
    use tracing_subscriber::EnvFilter;

    const USAGE: &str = "usage: snodo-bridge --serial PATH [--baud N] [--framing line|cobs] \
                         [--timeout-ms N] [--max-message N] (--stdio | --http ADDR)";

    enum Side {
        Stdio,
        Http(SocketAddr),
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
                    side = Some(Side::Http(
                        addr.parse()
                            .map_err(|_| format!("--http: not an address: {addr}"))?,
                    ));
                }
                "-h" | "--help" => return Err(String::new()),
                other => return Err(format!("unknown argument {other}")),
            }
        }
        let path = path.ok_or("--serial PATH is required")?;
        let side = side.ok_or("one of --stdio or --http ADDR is required")?;
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
            Side::Http(addr) => {
                let config = HttpConfig::new().with_addr(addr);
                let path = config.path.clone().unwrap_or_else(|| "/".into());
                serve_http(device, config, |bound| {
                    println!("http://{bound}{path}");
                    tracing::info!(%bound, "listening");
                })
                .await
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
}
