//! What the firmware asks of the host through semihosting (a debugger, or QEMU with
//! `-semihosting-config enable=on`): its command line, entropy and a way out.
//!
//! Entropy comes from the host's `/dev/urandom`. That is the emulator's stand-in for a true
//! random number generator: a real board's `fill_entropy` reads its RNG peripheral (or a
//! DRBG seeded from it), and must never depend on a debugger being attached.

use cortex_m_semihosting::{debug, nr, syscall};

/// Writes the command line the host was given for this program (QEMU: the kernel's path,
/// then `-append`) into `buf`; returns it without its terminating NUL.
pub fn command_line(buf: &mut [u8]) -> Option<&[u8]> {
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    // SAFETY: GET_CMDLINE writes at most `block[1]` bytes to `block[0]`, which is `buf`,
    // and then the length it wrote into `block[1]`.
    let failed =
        unsafe { cortex_m_semihosting::syscall1(nr::GET_CMDLINE, block.as_mut_ptr() as usize) };
    if failed != 0 {
        return None;
    }
    let len = block[1].min(buf.len());
    let line = &buf[..len];
    Some(line.split(|b| *b == 0).next().unwrap_or(line))
}

/// Fills `buf` from the host's `/dev/urandom`; `None` if the host refused.
pub fn fill_entropy(buf: &mut [u8]) -> Option<()> {
    const PATH: &[u8] = b"/dev/urandom\0";
    // SAFETY: OPEN reads the NUL-terminated path of the given length (without the NUL).
    let fd = unsafe { syscall!(OPEN, PATH.as_ptr(), nr::open::R_BINARY, PATH.len() - 1) };
    if fd == usize::MAX {
        return None;
    }
    let mut filled = 0;
    let mut ok = true;
    while ok && filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: READ writes at most `rest.len()` bytes to `rest`; it returns how many of
        // them it did *not* read.
        let unread = unsafe { syscall!(READ, fd, rest.as_mut_ptr(), rest.len()) };
        let read = rest.len().saturating_sub(unread);
        ok = read > 0;
        filled += read;
    }
    // SAFETY: CLOSE takes the descriptor OPEN returned.
    unsafe { syscall!(CLOSE, fd) };
    ok.then_some(())
}

/// Ends the emulation (or tells a debugger the program ended) with success or failure.
pub fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // A debugger may let the program go on: stop here.
    loop {
        cortex_m::asm::wfi();
    }
}
