//! The serial port: opening and configuring it, and the two threads that move its bytes.
//!
//! Reading a tty blocks, so the port is served by plain threads: a reader that takes frames
//! off the port with the core's [`FrameReader`] and hands them to the async side, and a
//! writer that frames messages with the core's [`write_frame`]. Either ends when the port
//! fails or reaches its end, and says so once.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;

use nix::fcntl::OFlag;
use nix::sys::termios::{self, BaudRate, ControlFlags, FlushArg, SetArg, SpecialCharacterIndices};
use snodo_core::io::{Frame, FrameReader, Framing, input_capacity, write_frame};
use tokio::sync::mpsc;

/// The largest message the bridge takes from a device. Larger than any device answer it
/// expects (a device is bounded by its own buffers), so a device with bigger buffers than
/// the example's still gets through.
pub const MAX_DEVICE_MESSAGE: usize = 64 * 1024;

/// What the reader thread saw on the port.
#[derive(Debug)]
pub(crate) enum FromPort {
    /// A frame's message (a line, or a COBS frame whose CRC-16 matched).
    Message(Vec<u8>),
    /// A COBS frame with a bad encoding or CRC-16.
    Corrupt,
    /// A frame longer than [`MAX_DEVICE_MESSAGE`].
    TooLong,
    /// The port is gone: the device disconnected, or reading or writing failed.
    Closed(String),
}

/// How to reach the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SerialConfig {
    /// The serial device (e.g. `/dev/ttyACM0`, or the slave side of a pseudo-terminal).
    pub path: PathBuf,
    /// The line speed (ignored by USB-CDC and pseudo-terminals, which have none).
    pub baud: u32,
    /// The framing the device speaks.
    pub framing: Framing,
}

/// The line speeds `--baud` accepts.
pub const BAUD_RATES: &[u32] = &[
    9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600, 1_000_000,
    1_152_000, 1_500_000, 2_000_000, 3_000_000, 4_000_000,
];

fn baud_rate(baud: u32) -> Option<BaudRate> {
    Some(match baud {
        9600 => BaudRate::B9600,
        19200 => BaudRate::B19200,
        38400 => BaudRate::B38400,
        57600 => BaudRate::B57600,
        115_200 => BaudRate::B115200,
        230_400 => BaudRate::B230400,
        460_800 => BaudRate::B460800,
        500_000 => BaudRate::B500000,
        576_000 => BaudRate::B576000,
        921_600 => BaudRate::B921600,
        1_000_000 => BaudRate::B1000000,
        1_152_000 => BaudRate::B1152000,
        1_500_000 => BaudRate::B1500000,
        2_000_000 => BaudRate::B2000000,
        3_000_000 => BaudRate::B3000000,
        4_000_000 => BaudRate::B4000000,
        _ => return None,
    })
}

/// Opens `path` read-write without making it the controlling terminal and, when it is a
/// terminal, puts it in raw mode at `baud` (8 data bits, no parity, no flow control, reads
/// that return as soon as a byte is there) and drops whatever was waiting in it.
pub(crate) fn open(path: &Path, baud: u32) -> io::Result<File> {
    let speed = baud_rate(baud).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("unsupported baud rate {baud}"),
        )
    })?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(OFlag::O_NOCTTY.bits())
        .open(path)?;
    let Ok(mut mode) = termios::tcgetattr(&file) else {
        // Not a terminal (a FIFO, say): nothing to configure.
        return Ok(file);
    };
    termios::cfmakeraw(&mut mode);
    termios::cfsetspeed(&mut mode, speed).map_err(io::Error::from)?;
    mode.control_flags |= ControlFlags::CLOCAL | ControlFlags::CREAD;
    mode.control_flags &= !ControlFlags::CRTSCTS;
    mode.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
    mode.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
    termios::tcsetattr(&file, SetArg::TCSANOW, &mode).map_err(io::Error::from)?;
    termios::tcflush(&file, FlushArg::TCIFLUSH).map_err(io::Error::from)?;
    Ok(file)
}

/// A `std::io` stream as an `embedded_io` one, for the core's framing.
struct Port<T>(T);

impl<T> embedded_io::ErrorType for Port<T> {
    type Error = io::Error;
}

impl<T: io::Read> embedded_io::Read for Port<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

impl<T: io::Write> embedded_io::Write for Port<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The running port: messages go in through `outgoing`; what the device says comes out of
/// the receiver [`start`] returned.
#[derive(Debug)]
pub(crate) struct Running {
    outgoing: std_mpsc::Sender<Vec<u8>>,
}

impl Running {
    /// Queues `message` to be framed and written.
    pub(crate) fn send(&self, message: Vec<u8>) -> bool {
        self.outgoing.send(message).is_ok()
    }
}

/// Starts the reader and writer threads on an open port.
pub(crate) fn start(
    file: File,
    framing: Framing,
    incoming: mpsc::Sender<FromPort>,
) -> io::Result<Running> {
    let reading = file.try_clone()?;
    let (outgoing, to_write) = std_mpsc::channel::<Vec<u8>>();
    let failures = incoming.clone();
    std::thread::Builder::new()
        .name("snodo-bridge-read".into())
        .spawn(move || read_frames(reading, framing, &incoming))?;
    std::thread::Builder::new()
        .name("snodo-bridge-write".into())
        .spawn(move || write_frames(file, framing, &to_write, &failures))?;
    Ok(Running { outgoing })
}

fn read_frames(file: File, framing: Framing, incoming: &mpsc::Sender<FromPort>) {
    let mut reader = Box::new(FrameReader::<{ input_capacity(MAX_DEVICE_MESSAGE) }>::new(
        framing,
    ));
    let mut port = Port(file);
    loop {
        let seen = match reader.next(&mut port) {
            Ok(Frame::Message(m)) if m.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Frame::Message(m)) => FromPort::Message(m.to_vec()),
            Ok(Frame::Corrupt) => FromPort::Corrupt,
            Ok(Frame::TooLong) => FromPort::TooLong,
            Ok(Frame::End) => FromPort::Closed("the port reached its end".into()),
            Err(e) => FromPort::Closed(format!("reading failed: {e}")),
        };
        let closed = matches!(seen, FromPort::Closed(_));
        if incoming.blocking_send(seen).is_err() || closed {
            return;
        }
    }
}

fn write_frames(
    file: File,
    framing: Framing,
    to_write: &std_mpsc::Receiver<Vec<u8>>,
    failures: &mpsc::Sender<FromPort>,
) {
    let mut port = Port(BufWriter::new(file));
    if framing == Framing::Cobs {
        // A lone delimiter ends whatever half-frame the device holds from before.
        let flushed = embedded_io::Write::write_all(&mut port, &[0])
            .and_then(|()| embedded_io::Write::flush(&mut port));
        if let Err(e) = flushed {
            let _ = failures.blocking_send(FromPort::Closed(format!("writing failed: {e}")));
            return;
        }
    }
    while let Ok(message) = to_write.recv() {
        let written = write_frame(&mut port, framing, &message)
            .and_then(|()| embedded_io::Write::flush(&mut port));
        if let Err(e) = written {
            let _ = failures.blocking_send(FromPort::Closed(format!("writing failed: {e}")));
            return;
        }
    }
}
