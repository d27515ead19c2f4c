//! The firmware built for a Cortex-M4 (`scripts/firmware.sh build`) and run on QEMU's
//! `mps2-an386`: UART0 on a pseudo-terminal that the bridge (or a test) opens by its path,
//! semihosting for the boot secret's entropy, the options and the console, and the QEMU
//! monitor on a Unix socket for resets.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The image for `target` with the board crate's `features` (comma-separated, may be
/// empty), built once per test process.
pub fn image(target: &str, features: &str) -> PathBuf {
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{target}/{features}");
    if let Some(path) = built.get_or_insert_with(HashMap::new).get(&key) {
        return path.clone();
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let output = Command::new("bash")
        .arg(workspace.join("scripts/firmware.sh"))
        .args(["build", target, features])
        .stderr(Stdio::inherit())
        .output()
        .expect("bash runs scripts/firmware.sh");
    assert!(output.status.success(), "building the firmware failed");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let path = PathBuf::from(stdout.lines().last().expect("the script names the image"));
    assert!(path.exists(), "no image at {}", path.display());
    built
        .get_or_insert_with(HashMap::new)
        .insert(key, path.clone());
    path
}

/// The Cortex-M4 image without optional features.
pub fn default_image() -> PathBuf {
    image("thumbv7em-none-eabihf", "")
}

/// QEMU running an image; killed when dropped.
pub struct Emulator {
    child: Child,
    /// UART0's pseudo-terminal.
    pub serial: PathBuf,
    monitor: PathBuf,
    /// QEMU's standard output as bytes: its own notice of the pty, then what the firmware
    /// wrote through semihosting (text, or defmt's binary frames).
    pub output: Arc<Mutex<Vec<u8>>>,
    /// QEMU's standard error.
    errors: Arc<Mutex<String>>,
}

/// Keeps a stream's bytes as they come.
fn collect_bytes(mut stream: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stream.read(&mut chunk) {
            if n == 0 {
                return;
            }
            into.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });
}

fn collect(stream: impl Read + Send + 'static, into: Arc<Mutex<String>>, tag: &'static str) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            eprintln!("{tag}: {line}");
            let mut console = into.lock().unwrap();
            console.push_str(&line);
            console.push('\n');
        }
    });
}

impl Emulator {
    /// Boots `image` with the firmware options `append` (e.g. `--framing cobs --announce`).
    pub fn start(image: &Path, append: &str) -> Emulator {
        Emulator::start_with(image, append, &[])
    }

    /// [`Emulator::start`] with more QEMU options (e.g. `-icount shift=0`).
    pub fn start_with(image: &Path, append: &str, qemu_options: &[&str]) -> Emulator {
        let monitor = std::env::temp_dir().join(format!(
            "snodo-qemu-{}-{:?}.sock",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_file(&monitor);
        // A RISC-V image runs on the `virt` machine, a Cortex-M one on `mps2-an386`.
        let riscv = image.to_string_lossy().contains("riscv");
        let (qemu, machine): (_, &[&str]) = if riscv {
            (
                "qemu-system-riscv32",
                &["-machine", "virt", "-bios", "none"],
            )
        } else {
            ("qemu-system-arm", &["-machine", "mps2-an386"])
        };
        let mut child = Command::new(qemu)
            .args(qemu_options)
            .args(machine)
            .arg("-nographic")
            .arg("-monitor")
            .arg(format!("unix:{},server,nowait", monitor.display()))
            .args(["-serial", "pty"])
            .args(["-semihosting-config", "enable=on,target=native"])
            .arg("-kernel")
            .arg(image)
            .args(["-append", append])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("QEMU runs (scripts/test-all.sh installs qemu-system-arm and -misc)");
        let output = Arc::new(Mutex::new(Vec::new()));
        let errors = Arc::new(Mutex::new(String::new()));
        collect_bytes(child.stdout.take().unwrap(), Arc::clone(&output));
        collect(child.stderr.take().unwrap(), Arc::clone(&errors), "qemu");
        // QEMU names the pty before the guest starts.
        let deadline = Instant::now() + Duration::from_secs(10);
        let serial = loop {
            let named = String::from_utf8_lossy(&output.lock().unwrap())
                .split("char device redirected to ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next().map(PathBuf::from));
            if let Some(path) = named {
                break path;
            }
            assert!(
                child.try_wait().unwrap().is_none(),
                "QEMU exited before naming its serial pty"
            );
            assert!(Instant::now() < deadline, "QEMU never named its serial pty");
            std::thread::sleep(Duration::from_millis(10));
        };
        let emulator = Emulator {
            child,
            serial,
            monitor,
            output,
            errors,
        };
        emulator.wait_for_monitor();
        emulator
    }

    fn wait_for_monitor(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while UnixStream::connect(&self.monitor).is_err() {
            assert!(Instant::now() < deadline, "QEMU's monitor never opened");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Presses the reset button: the firmware boots again, with a fresh secret.
    pub fn reset(&self) {
        let mut monitor = UnixStream::connect(&self.monitor).expect("QEMU's monitor");
        monitor.write_all(b"system_reset\n").unwrap();
        // The monitor echoes a prompt; wait for its answer so the reset has happened.
        let mut buf = [0u8; 256];
        let _ = monitor.set_read_timeout(Some(Duration::from_secs(5)));
        let mut seen = Vec::new();
        while !String::from_utf8_lossy(&seen).contains("system_reset") {
            match monitor.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// QEMU's output and errors as text (lossy where the firmware wrote binary).
    pub fn console(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned();
        text.push_str(&self.errors.lock().unwrap());
        text
    }

    /// What the firmware wrote through semihosting: the output after QEMU's notice.
    pub fn semihosting_output(&self) -> Vec<u8> {
        let output = self.output.lock().unwrap();
        let notice_end = output
            .windows(b"(label serial0)\n".len())
            .position(|w| w == b"(label serial0)\n")
            .map_or(0, |at| at + b"(label serial0)\n".len());
        output[notice_end..].to_vec()
    }

    /// Waits until the console shows `text`.
    pub fn wait_for_console(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.console().contains(text) {
            assert!(
                Instant::now() < deadline,
                "the firmware never wrote {text:?}; console:\n{}",
                self.console()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the emulation to end by itself (a firmware that exits through semihosting).
    pub fn wait_for_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the firmware did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The firmware is still running and has reported no fault or panic: what every test
    /// checks at its end, so bad input that crashed the device fails the test.
    pub fn assert_healthy(&mut self) {
        let console = self.console();
        assert!(
            !console.contains("hard fault") && !console.contains("panic"),
            "the firmware failed:\n{console}"
        );
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "the emulation ended:\n{console}"
        );
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.monitor);
    }
}

/// The emulated board's UART, opened directly in raw mode (no bridge): for the tests that
/// put arbitrary bytes on the wire.
pub struct RawSerial {
    file: std::fs::File,
    buf: Vec<u8>,
}

impl RawSerial {
    pub fn open(path: &Path) -> RawSerial {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .expect("the pty opens");
        // SAFETY: `termios` is plain data that `tcgetattr` fills; both calls get valid pointers.
        unsafe {
            let mut termios: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(file.as_raw_fd(), &mut termios), 0);
            libc::cfmakeraw(&mut termios);
            assert_eq!(
                libc::tcsetattr(file.as_raw_fd(), libc::TCSANOW, &termios),
                0
            );
        }
        RawSerial {
            file,
            buf: Vec::new(),
        }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        self.file.write_all(bytes).unwrap();
    }

    /// The next frame up to `delimiter` (without it); fails after 20 s.
    pub fn frame(&mut self, delimiter: u8) -> Vec<u8> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let (tx, rx) = std::sync::mpsc::channel();
        loop {
            if let Some(at) = self.buf.iter().position(|b| *b == delimiter) {
                let frame = self.buf[..at].to_vec();
                self.buf.drain(..=at);
                return frame;
            }
            assert!(Instant::now() < deadline, "no frame from the board");
            // A blocking read on a thread, so a silent board fails the test instead of
            // hanging it.
            let mut file = self.file.try_clone().unwrap();
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                let got = file.read(&mut chunk).map(|n| chunk[..n].to_vec());
                let _ = tx.send(got);
            });
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Ok(chunk)) => self.buf.extend_from_slice(&chunk),
                Ok(Err(e)) => panic!("reading the pty: {e}"),
                Err(_) => panic!("no frame from the board"),
            }
        }
    }
}
