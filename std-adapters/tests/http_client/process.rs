//! The examples as child processes (`cargo test -p snodo-std` builds them next to the test
//! binaries). Test files that need only this include it with `#[path]`.
#![allow(dead_code)] // each test file uses a part of it

use std::path::PathBuf;
use std::process::Command;

/// The path of example `name`.
pub fn example_path(name: &str) -> PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let path = dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: run `cargo test -p snodo-std`, which builds the examples",
        path.display()
    );
    path
}

/// The `preferences` example.
pub fn example() -> Command {
    Command::new(example_path("preferences"))
}

/// Kills the child when dropped, so a failing test leaves no server behind.
pub struct Child(pub std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
