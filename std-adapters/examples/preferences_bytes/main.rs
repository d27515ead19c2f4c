//! The preference flows of the `preferences` example written against the core's byte-level
//! API: synchronous handlers, `const` definitions with hand-written JSON Schemas, caller-owned
//! buffers and sealed state as JSON bytes. This is the shape of firmware code (no heap, no
//! `serde`), and the fastest path on a host; the `preferences` example serves the same flows
//! through the typed layer (`snodo_std::typed`), which is what a host server should start
//! from.
//!
//! ```text
//! cargo run -p snodo-std --example preferences_bytes
//! ```
//!
//! It serves on standard input and output; logs go to standard error.

mod app;
mod flow;
mod more_flows;
mod mrtr_app;

use std::process::ExitCode;

use snodo_core::server::{Config, Server};

use app::Flows;

fn main() -> ExitCode {
    let config = Config::new("snodo-preferences-bytes", env!("CARGO_PKG_VERSION"))
        .with_state(snodo_std::process_state_options());
    let server = match Server::new(config, Flows) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("preferences_bytes: bad definition: {e}");
            return ExitCode::FAILURE;
        }
    };
    match snodo_std::serve_stdio(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("preferences_bytes: stdio failed: {e}");
            ExitCode::FAILURE
        }
    }
}
