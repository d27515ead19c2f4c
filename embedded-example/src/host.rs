//! The host "board": the device run as a Linux process, through `libc` only.
//!
//! The serial link is stdin/stdout (file descriptors 0 and 1, raw `read`/`write`), put in raw
//! mode when they are a terminal, so the process can sit on one end of a pseudo-terminal pair
//! exactly as a USB-serial device would. The uptime clock is `CLOCK_MONOTONIC` counted from
//! process start, entropy comes from `getrandom(2)`, and the sensors and relays are simulated
//! with fixed values so that runs are reproducible. Nothing here needs `std` or a heap; the
//! `snodo-device` binary (`src/main.rs`) is this module's [`main`] behind a C `main`.
//!
//! ```text
//! snodo-device [--framing line|cobs] [--announce] [--measure-stack]
//! ```
//!
//! - `--framing`: newline-delimited JSON (default) or COBS frames with a CRC-16;
//! - `--announce`: send the boot notification first (for a bridge);
//! - `--measure-stack`: run the device on a thread whose stack is a painted region of its
//!   own, and at exit write the deepest byte the rounds touched to stderr (see
//!   `scripts/footprint.sh`).

use core::ffi::c_int;
use core::fmt;

use embedded_io::{ErrorKind, ErrorType, Read, Write};

use crate::args::Args;
use crate::board::Fault;
use crate::device::{self, Options, Stopped};
use crate::sim::{Platform, Simulated};

/// A failed system call: its `errno`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(pub c_int);

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "errno {}", self.0)
    }
}

impl core::error::Error for Errno {}

impl embedded_io::Error for Errno {
    fn kind(&self) -> ErrorKind {
        match self.0 {
            libc::EPIPE => ErrorKind::BrokenPipe,
            libc::EINTR => ErrorKind::Interrupted,
            _ => ErrorKind::Other,
        }
    }
}

fn errno() -> c_int {
    // SAFETY: `__errno_location` returns this thread's errno slot, valid for the thread's life.
    unsafe { *libc::__errno_location() }
}

fn sleep_ms(ms: i64) {
    let ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: ms * 1_000_000,
    };
    // SAFETY: `ts` is a valid timespec; the remaining time is not wanted.
    unsafe {
        libc::nanosleep(&ts, core::ptr::null_mut());
    }
}

/// Standard input and output as the device's serial link.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stdio;

impl ErrorType for Stdio {
    type Error = Errno;
}

impl Read for Stdio {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Errno> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
            let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if let Ok(n) = usize::try_from(n) {
                return Ok(n);
            }
            match errno() {
                libc::EINTR => continue,
                // The master side of a pseudo-terminal whose other end nobody holds open: a
                // UART with no host attached. Wait for one, as a device would.
                libc::EIO => sleep_ms(20),
                e => return Err(Errno(e)),
            }
        }
    }
}

impl Write for Stdio {
    fn write(&mut self, bytes: &[u8]) -> Result<usize, Errno> {
        loop {
            // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes.
            let n = unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
            match usize::try_from(n) {
                Ok(n) => return Ok(n),
                Err(_) if errno() == libc::EINTR => {}
                Err(_) => return Err(Errno(errno())),
            }
        }
    }

    fn flush(&mut self) -> Result<(), Errno> {
        // Writes go straight to the descriptor.
        Ok(())
    }
}

/// Puts `fd` in raw mode if it is a terminal: no echo, no line editing, no signals from
/// control characters, no CR/NL translation, 8-bit bytes — what a serial port carrying
/// binary frames needs.
fn make_raw(fd: c_int) {
    // SAFETY: `isatty` only inspects the descriptor.
    if unsafe { libc::isatty(fd) } != 1 {
        return;
    }
    // SAFETY: `termios` is plain data that `tcgetattr` fills; both calls get valid pointers.
    unsafe {
        let mut termios: libc::termios = core::mem::zeroed();
        if libc::tcgetattr(fd, &mut termios) == 0 {
            libc::cfmakeraw(&mut termios);
            libc::tcsetattr(fd, libc::TCSANOW, &termios);
        }
    }
}

fn monotonic_secs() -> u64 {
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

/// The host process's clock, entropy and stack meter, under the simulated bench.
#[derive(Debug)]
pub struct Host {
    booted: u64,
    /// Measure the stack between rounds (only on the painted stack of [`MEASURED_STACK`]).
    measuring: bool,
}

impl Default for Host {
    fn default() -> Self {
        Self::new()
    }
}

impl Host {
    /// A platform booted now.
    pub fn new() -> Self {
        Host {
            booted: monotonic_secs(),
            measuring: false,
        }
    }
}

/// The device as a process: three sensors with fixed readings, an empty fourth channel, two
/// relays.
pub type HostBoard = Simulated<Host>;

impl Platform for Host {
    fn uptime_secs(&self) -> u64 {
        monotonic_secs().saturating_sub(self.booted)
    }

    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        let mut filled = 0;
        while filled < buf.len() {
            let rest = &mut buf[filled..];
            // SAFETY: `rest` is valid for writes of `rest.len()` bytes.
            let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
            match usize::try_from(n) {
                Ok(n) => filled += n,
                Err(_) if errno() == libc::EINTR => {}
                Err(_) => return Err(Fault::NoEntropy),
            }
        }
        Ok(())
    }

    fn between_rounds(&self) {
        if self.measuring {
            stack::between_rounds();
        }
    }
}

fn say(message: &[u8]) {
    // SAFETY: `message` is valid for reads of its length; a failed write to stderr is ignored.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
    }
}

/// Runs the device on stdin/stdout until the end of input: 0 then, 1 on an I/O error, 2 on a
/// usage or configuration error.
pub fn main<'a>(args: impl Iterator<Item = &'a [u8]>) -> c_int {
    let Some(args) = Args::parse(args).filter(|args| !args.cost) else {
        say(b"usage: snodo-device [--framing line|cobs] [--announce] [--measure-stack]\n");
        return 2;
    };
    // A closed stdout should end the device with an error, not kill it with SIGPIPE.
    // SAFETY: setting a signal's disposition to "ignore" has no handler to get wrong.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    make_raw(0);
    make_raw(1);
    if args.measure_stack {
        stack::measured(args.options)
    } else {
        serve(args.options, false)
    }
}

fn serve(options: Options, measuring: bool) -> c_int {
    let board = HostBoard::new(Host {
        measuring,
        ..Host::new()
    });
    match device::run(board, &mut Stdio, options) {
        Stopped::EndOfInput => 0,
        Stopped::Link(_) => {
            say(b"snodo-device: the link failed\n");
            1
        }
        Stopped::Entropy(_) => {
            say(b"snodo-device: no entropy for the boot secret\n");
            2
        }
        Stopped::Definition => {
            say(b"snodo-device: a definition is unusable\n");
            2
        }
    }
}

/// Size of the painted stack the measured run gets.
pub const MEASURED_STACK: usize = 256 * 1024;

/// Stack measurement by painting: the device runs on a thread whose stack is a region of
/// its own, filled with a pattern. Before the first round and after each one
/// ([`Board::between_rounds`]), the lowest byte that no longer holds the pattern shows how
/// deep the code went since the last look; the region below the current frame is then
/// painted again. Boot (keying the secret, checking the definitions) and the rounds are
/// reported apart.
mod stack {
    use core::ffi::{c_int, c_void};
    use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    use super::{MEASURED_STACK, Options, say, serve};
    use crate::text::FixedText;

    const PAINT: u8 = 0xA5;
    /// Bytes below the measuring function's own frame left alone when painting again: its
    /// callees' frames (it calls none that go this deep) and the red zone.
    const MARGIN: usize = 1024;

    static BASE: AtomicUsize = AtomicUsize::new(0);
    static ENTRY: AtomicUsize = AtomicUsize::new(0);
    static BOOT: AtomicUsize = AtomicUsize::new(0);
    static ROUNDS: AtomicUsize = AtomicUsize::new(0);
    static LOOKS: AtomicUsize = AtomicUsize::new(0);

    /// How deep (from the thread's entry) the code went since the region was last painted.
    fn deepest_since_painted() -> usize {
        let base = BASE.load(Relaxed);
        let mut at = base;
        // SAFETY: `base..base + MEASURED_STACK` is the mapping this thread runs on; every byte
        // below the current frame is readable and no other code is using it now.
        while at < base + MEASURED_STACK
            && unsafe { core::ptr::read_volatile(at as *const u8) } == PAINT
        {
            at += 1;
        }
        ENTRY.load(Relaxed).saturating_sub(at)
    }

    #[inline(never)]
    pub(super) fn between_rounds() {
        let marker = 0u8;
        let here = core::hint::black_box(&marker as *const u8 as usize);
        let depth = deepest_since_painted();
        if LOOKS.fetch_add(1, Relaxed) == 0 {
            BOOT.store(depth, Relaxed);
        } else {
            ROUNDS.fetch_max(depth, Relaxed);
        }
        let base = BASE.load(Relaxed);
        let mut at = base;
        while at + MARGIN < here {
            // SAFETY: below this frame by more than `MARGIN`: unused stack of this thread.
            unsafe { core::ptr::write_volatile(at as *mut u8, PAINT) };
            at += 1;
        }
    }

    struct Run {
        options: Options,
        status: c_int,
    }

    extern "C" fn entry(arg: *mut c_void) -> *mut c_void {
        // SAFETY: `arg` is the `Run` that `measured` passed and keeps alive until the join.
        let run = unsafe { &mut *arg.cast::<Run>() };
        let marker = 0u8;
        ENTRY.store(
            core::hint::black_box(&marker as *const u8 as usize),
            Relaxed,
        );
        run.status = serve(run.options, true);
        // The last round.
        ROUNDS.fetch_max(deepest_since_painted(), Relaxed);
        core::ptr::null_mut()
    }

    /// Serves on the painted thread, then reports to stderr.
    pub(super) fn measured(options: Options) -> c_int {
        // SAFETY: an anonymous private mapping; checked for failure before use.
        let stack = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                MEASURED_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if stack == libc::MAP_FAILED {
            say(b"snodo-device: no memory for the measured stack\n");
            return 1;
        }
        // SAFETY: the mapping is `MEASURED_STACK` writable bytes that nothing else uses yet.
        unsafe { core::ptr::write_bytes(stack.cast::<u8>(), PAINT, MEASURED_STACK) };
        BASE.store(stack as usize, Relaxed);
        let mut run = Run { options, status: 1 };
        // SAFETY: the attribute object is initialised before use and destroyed after; the
        // stack is the mapping above, which outlives the thread (joined before it is unmapped).
        let joined = unsafe {
            let mut attr: libc::pthread_attr_t = core::mem::zeroed();
            let mut thread: libc::pthread_t = 0;
            libc::pthread_attr_init(&mut attr);
            libc::pthread_attr_setstack(&mut attr, stack, MEASURED_STACK);
            let created =
                libc::pthread_create(&mut thread, &attr, entry, (&mut run as *mut Run).cast());
            libc::pthread_attr_destroy(&mut attr);
            created == 0 && libc::pthread_join(thread, core::ptr::null_mut()) == 0
        };
        // SAFETY: unmapping the region mapped above, no longer used.
        unsafe {
            libc::munmap(stack, MEASURED_STACK);
        }
        if !joined {
            say(b"snodo-device: the measured thread did not run\n");
            return 1;
        }
        let mut line = [0u8; 128];
        if let Ok(text) = FixedText::format(
            &mut line,
            format_args!(
                "snodo-device: peak stack: boot {} bytes, rounds {} bytes\n",
                BOOT.load(Relaxed),
                ROUNDS.load(Relaxed)
            ),
        ) {
            say(text.as_bytes());
        }
        run.status
    }
}
