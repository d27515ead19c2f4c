//! Boot and serve: what a board's `main` calls once its clocks and UART are up.

use embedded_io::{Read, Write};
use snodo_core::io::{DeviceSerial, Framing, Served};
use snodo_core::server::Server;
use snodo_core::state::{Secret, StateOptions};
use zeroize::Zeroize;

use crate::app::{self, Instrument};
use crate::board::{Board, Fault};
use crate::log;

/// Bytes of the boot secret that seals request state (HMAC-SHA256 wants at least 32).
pub const SECRET_LEN: usize = 32;

/// How serving ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped<E> {
    /// The link reached the end of input (a host pipe closed; a UART never ends).
    EndOfInput,
    /// The link failed.
    Link(E),
    /// No boot secret could be drawn.
    Entropy(Fault),
    /// A tool, resource or prompt definition, or a form the device asks with, is unusable (a
    /// firmware bug caught at boot).
    Definition,
}

/// What [`run`] is told by the board's `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The framing on the link.
    pub framing: Framing,
    /// Send the boot notification first (for a link that reaches a bridge).
    pub announce: bool,
}

/// Draws a fresh state secret from the board, builds the server and serves `link` until it
/// ends or fails.
///
/// Every buffer is a constant size on this function's stack: the serial buffers
/// ([`DeviceSerial`], about 4 KiB for 2 KiB messages) and the state keys; handlers add their
/// own scratch for the length of a round. Nothing is allocated, and nothing of a round
/// survives it but the board's own state (relays) and the calibration offsets.
pub fn run<B, L>(board: B, link: &mut L, options: Options) -> Stopped<L::Error>
where
    B: Board,
    L: Read + Write + Send,
    L::Error: Send,
{
    // Options over the one boot secret (about 160 bytes, no room for a key ring), borrowed
    // rather than moved so that no second copy stays in this frame while the device serves.
    let booted = boot_state(&board);
    let state = match &booted {
        Ok(state) => state,
        Err(fault) => return Stopped::Entropy(*fault),
    };
    let Ok(app) = Instrument::new(board) else {
        return Stopped::Definition;
    };
    // Borrowed where it was made rather than moved out: no second copy of the server stays
    // in this frame while the device serves.
    let made = Server::new(app::CONFIG.with_state(state), app);
    let Ok(server) = &made else {
        return Stopped::Definition;
    };
    let mut serial = DeviceSerial::new(options.framing);
    if options.announce {
        if let Err(e) = serial.announce_boot(link) {
            return Stopped::Link(e);
        }
    }
    log::info!("serving");
    let board = server.app().board();
    let mut now = || board.uptime_secs();
    loop {
        board.between_rounds();
        match serial.serve_one(server, link, &mut now) {
            Ok(Served::End) => return Stopped::EndOfInput,
            Ok(served) => log::debug!("round: {}", served),
            Err(e) => return Stopped::Link(e),
        }
    }
}

/// The state options for this boot, keyed with a secret fresh from the board's entropy.
///
/// Not inlined, so that its temporaries (the secret, the keys before they are wrapped) are
/// gone from the stack before serving starts.
#[inline(never)]
fn boot_state<B: Board>(board: &B) -> Result<StateOptions<Secret>, Fault> {
    let mut secret = [0u8; SECRET_LEN];
    board.fill_entropy(&mut secret)?;
    let keys = Secret::new(&secret);
    // The keyed HMAC state is all that is kept (and it is wiped when dropped); the raw bytes
    // go now, by writes the optimiser may not remove.
    secret.zeroize();
    keys.map(StateOptions::new).map_err(|_| Fault::NoEntropy)
}
