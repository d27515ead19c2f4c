//! A meeting-room booking MCP server: `cargo run -p snodo-std --features typed --example
//! booking` serves stdio; `-- --http 127.0.0.1:8080` serves Streamable HTTP. `RUST_LOG=debug`
//! shows why a request was refused (a token that does not open, a failed handler) on stderr.

mod app;

use std::io;

use snodo_std::http::HttpConfig;

fn main() -> io::Result<()> {
    // The one line that makes the server's log honour RUST_LOG; stderr keeps stdout for MCP.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => snodo_std::serve_stdio(app::server()),
        [flag, addr] if flag == "--http" => {
            let addr = addr
                .parse()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{addr}: {e}")))?;
            snodo_std::serve_http(app::server(), HttpConfig::new().with_addr(addr), |url| {
                // The URL on standard output's first line, for scripts to read.
                println!("{url}");
                Ok(())
            })
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "usage: booking [--http ADDR]",
        )),
    }
}
