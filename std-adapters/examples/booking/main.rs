//! A meeting-room booking MCP server: `cargo run -p snodo-std --features typed --example
//! booking` serves stdio; `-- --http 127.0.0.1:8080` serves Streamable HTTP. `RUST_LOG=debug`
//! shows why a request was refused (a token that does not open, a failed handler) on stderr.

mod app;

use std::io;

use snodo_std::http::HttpConfig;
use tracing_subscriber::EnvFilter;

fn main() -> io::Result<()> {
    // The one line that makes the log honour RUST_LOG; stderr keeps stdout for MCP.
    let log = tracing_subscriber::fmt().with_env_filter(EnvFilter::from_default_env());
    log.with_writer(io::stderr).init();
    match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => snodo_std::serve_stdio(app::server()),
        [flag, addr] if flag == "--http" => {
            let config = HttpConfig::new().with_addr(addr.parse().map_err(io::Error::other)?);
            // The URL on standard output's first line, for scripts to read.
            snodo_std::serve_http(app::server(), config, |url| {
                println!("{url}");
                Ok(())
            })
        }
        _ => Err(io::Error::other("usage: booking [--http ADDR]")),
    }
}
