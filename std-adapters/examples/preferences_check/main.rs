//! Drives every flow of the `preferences` example in-process, leg by leg, the way a client
//! would, and exits 0 if each ended as expected.
//!
//! ```text
//! cargo run -p snodo-std --example preferences_check
//! ```
//!
//! A binary of its own, so the server binary does not carry this client-side code (about
//! 125 KiB of code, which a server keeps resident).

#[path = "../preferences/app.rs"]
mod app;
mod check;
#[path = "../preferences/flows.rs"]
mod flows;
#[path = "../preferences/report.rs"]
mod report;

use std::process::ExitCode;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("preferences_check: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    if runtime.block_on(check::run()) {
        println!("preferences_check: all is well");
        ExitCode::SUCCESS
    } else {
        println!("preferences_check: some flows failed");
        ExitCode::FAILURE
    }
}
