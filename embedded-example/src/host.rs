//! The host "board": the device run as a Linux process, through `libc` only.
//!
//! The serial link is stdin/stdout (file descriptors 0 and 1, raw `read`/`write`), the uptime
//! clock is `CLOCK_MONOTONIC`, and the sensors and relays are simulated with fixed values so
//! that runs are reproducible. Nothing here needs `std` or a heap; the `snodo-device` binary
//! (`src/main.rs`) is this module's [`run`] behind a C `main`.

use core::cell::Cell;
use core::ffi::c_int;

use snodo_core::server::Server;

use crate::app::{self, Instrument};
use crate::board::{Board, Fault, Reading};
use crate::framing::Link;
use crate::serve::serve;

/// A failed system call: its `errno`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(pub c_int);

fn errno() -> c_int {
    // SAFETY: `__errno_location` returns this thread's errno slot, valid for the thread's life.
    unsafe { *libc::__errno_location() }
}

/// Standard input and output as the device's serial link.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stdio;

impl Link for Stdio {
    type Error = Errno;

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Errno> {
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
            let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if let Ok(n) = usize::try_from(n) {
                return Ok(n);
            }
            match errno() {
                libc::EINTR => continue,
                e => return Err(Errno(e)),
            }
        }
    }

    fn write_all(&mut self, mut bytes: &[u8]) -> Result<(), Errno> {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes.
            let n = unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
            match usize::try_from(n) {
                Ok(n) => bytes = &bytes[n..],
                Err(_) if errno() == libc::EINTR => {}
                Err(_) => return Err(Errno(errno())),
            }
        }
        Ok(())
    }
}

/// A simulated bench: three sensors with fixed readings, an empty fourth channel, two relays.
#[derive(Debug, Default)]
pub struct HostBoard {
    relays: Cell<[bool; app::RELAY_CHANNELS as usize]>,
}

impl HostBoard {
    /// A board with every relay off.
    pub const fn new() -> Self {
        HostBoard {
            relays: Cell::new([false; app::RELAY_CHANNELS as usize]),
        }
    }
}

impl Board for HostBoard {
    fn uptime_secs(&self) -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) } == 0;
        if ok {
            u64::try_from(ts.tv_sec).unwrap_or(0)
        } else {
            0
        }
    }

    fn read_sensor(&self, channel: u8) -> Result<Reading, Fault> {
        let (quantity, milli, unit) = match channel {
            0 => ("temperature", 23_125, "Cel"),
            1 => ("relative_humidity", 41_500, "%"),
            2 => ("supply_voltage", 3_300, "V"),
            3 => return Err(Fault::NotResponding),
            _ => return Err(Fault::NoSuchChannel),
        };
        Ok(Reading {
            quantity,
            milli,
            unit,
        })
    }

    fn set_relay(&self, channel: u8, on: bool) -> Result<bool, Fault> {
        let mut relays = self.relays.get();
        let slot = relays
            .get_mut(usize::from(channel))
            .ok_or(Fault::NoSuchChannel)?;
        let was = core::mem::replace(slot, on);
        self.relays.set(relays);
        Ok(was)
    }
}

fn say(message: &[u8]) {
    // SAFETY: `message` is valid for reads of its length; a failed write to stderr is ignored.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
    }
}

/// Runs the device on stdin/stdout until the end of input: 0 then, 1 on an I/O error, 2 when
/// a definition is unusable.
pub fn run() -> c_int {
    // A closed stdout should end the device with an error, not kill it with SIGPIPE.
    // SAFETY: setting a signal's disposition to "ignore" has no handler to get wrong.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let server = Server::new(app::config(), Instrument::new(HostBoard::new()));
    if server.check().is_err() {
        say(b"snodo-device: a tool definition is unusable\n");
        return 2;
    }
    let board = server.app().board();
    match serve(&server, &mut Stdio, || board.uptime_secs()) {
        Ok(()) => 0,
        Err(_) => {
            say(b"snodo-device: the link failed\n");
            1
        }
    }
}
