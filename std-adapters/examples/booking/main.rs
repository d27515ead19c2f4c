//! A meeting-room booking MCP server: `cargo run -p snodo-std --example booking` serves
//! stdio; `-- --http 127.0.0.1:8080` serves Streamable HTTP. `RUST_LOG=debug` shows why a
//! request was refused (a token that does not open, a failed handler) on stderr.

mod app;

fn main() -> std::io::Result<()> {
    snodo_std::serve_from_args(app::server())
}
