//! One `preferences` example process serving HTTP with a key-ring file, and the signals a
//! deployment sends it.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::boundary::example_binary;

/// How long any single wait on a node lasts before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A 32-byte secret, base64, for key `a` (test keys only).
pub const KEY_A: &str = "a AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=";
/// A 32-byte secret, base64, for key `b` (test keys only).
pub const KEY_B: &str = "b AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=";

/// Writes a key-ring file in one step (a reload never reads half of it): `entries` in order,
/// the first sealing.
pub fn write_ring(path: &Path, entries: &[&str]) {
    let mut text = entries.join("\n");
    text.push('\n');
    let partial = path.with_extension("partial");
    std::fs::write(&partial, text).expect("write the key ring");
    std::fs::rename(&partial, path).expect("move the key ring into place");
}

/// The example's executable: `SNODO_EXAMPLE_BIN` when set (e.g. a release build, for
/// figures), else the debug build cargo makes for the tests.
pub fn example_program() -> PathBuf {
    std::env::var_os("SNODO_EXAMPLE_BIN")
        .map_or_else(|| example_binary().to_path_buf(), PathBuf::from)
}

/// A running example node. Its standard error is read line by line so a test can wait for
/// what it logs (reloads, draining); everything is kept for failure messages.
pub struct Node {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    logs: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node").field("addr", &self.addr).finish()
    }
}

impl Node {
    /// Starts the example on `addr` (port 0 picks one) sealing with the ring in `keyring`
    /// (or its own random secret when `None`), and waits for its URL.
    #[track_caller]
    pub fn start(addr: &str, keyring: Option<&Path>) -> Node {
        Node::start_with(addr, keyring, &[])
    }

    /// [`Node::start`] with more of the example's flags (`--legacy-idle-secs 5`, ...).
    #[track_caller]
    pub fn start_with(addr: &str, keyring: Option<&Path>, flags: &[&str]) -> Node {
        let mut command = Command::new(example_program());
        command.args(["--http", addr]).args(flags);
        if let Some(path) = keyring {
            command.arg("--keyring-file").arg(path);
        }
        let mut child = command
            .env("RUST_LOG", "info")
            .env_remove("SNODO_KEYRING")
            .env_remove("SNODO_KEYRING_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the example: {e}"));
        let (tx, logs) = channel();
        let stderr = Arc::new(Mutex::new(String::new()));
        let kept = Arc::clone(&stderr);
        let errors = child.stderr.take().expect("piped stderr");
        thread::spawn(move || {
            for line in BufReader::new(errors).lines() {
                let Ok(line) = line else { return };
                kept.lock().expect("stderr lock").push_str(&line);
                kept.lock().expect("stderr lock").push('\n');
                let _ = tx.send(line);
            }
        });
        let mut stdout = child.stdout.take().expect("piped stdout");
        let (url_tx, url_rx) = channel();
        thread::spawn(move || {
            let mut first = String::new();
            let _ = BufReader::new(&mut stdout).read_line(&mut first);
            let _ = url_tx.send(first);
            // Nothing else is expected; drain whatever comes so the node never blocks.
            let _ = std::io::copy(&mut stdout.by_ref(), &mut std::io::sink());
        });
        let mut node = Node {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            logs,
            stderr,
        };
        let url = url_rx.recv_timeout(PATIENCE).unwrap_or_default();
        let authority = url
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok());
        match authority {
            Some(addr) => node.addr = addr,
            None => panic!(
                "the example printed no URL ({url:?})\nstderr:\n{}",
                node.stderr()
            ),
        }
        node
    }

    /// The process id, for reading its `/proc` entries.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the node logged so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    fn signal(&self, signal: Signal) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).expect("a pid fits in i32"));
        kill(pid, signal).unwrap_or_else(|e| panic!("cannot send {signal} to the node: {e}"));
    }

    /// Sends `SIGHUP` and waits until the node logs the outcome: `Ok` with the log line of a
    /// reload, `Err` with that of a refused one.
    #[track_caller]
    pub fn reload(&self) -> Result<String, String> {
        self.signal(Signal::SIGHUP);
        let line = self.wait_for_log("key ring");
        if line.contains("key ring reloaded") {
            Ok(line)
        } else {
            Err(line)
        }
    }

    /// Sends `SIGTERM` (drain and exit).
    pub fn terminate(&self) {
        self.signal(Signal::SIGTERM);
    }

    /// Kills the node outright (`SIGKILL`) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The next log line containing `needle` (earlier lines are skipped).
    #[track_caller]
    pub fn wait_for_log(&self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.logs.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => panic!(
                    "the node at {} logged no `{needle}`\nstderr:\n{}",
                    self.addr,
                    self.stderr()
                ),
            }
        }
    }

    /// Waits for the node to exit by itself; `None` (after killing it) past [`PATIENCE`].
    pub fn wait_exit(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.kill();
        None
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}
