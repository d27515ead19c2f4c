//! The device as a host process: `#![no_std]` + `#![no_main]`, linked with no global
//! allocator, so the link itself proves that nothing in the core or the application
//! allocates (`alloc` is not in the crate graph; had anything needed it, the link would
//! fail for want of an allocator).
//!
//! Build it with `-C panic=abort` (see `Cargo.toml`): Rust refuses to link a `no_std`
//! executable that unwinds. Its options are in `snodo_embedded_example::host`.
#![no_std]
#![no_main]

#[cfg(not(panic = "abort"))]
compile_error!(
    "snodo-device needs the abort panic strategy: cargo rustc -p snodo-embedded-example \
     --bin snodo-device --features host-binary -- -C panic=abort"
);

#[cfg(not(target_os = "linux"))]
compile_error!("the host build of the device runs on Linux (it talks to libc directly)");

use core::ffi::{CStr, c_char, c_int};

/// The C entry point: the C runtime calls it after setting up the process.
#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    let count = usize::try_from(argc).unwrap_or(0);
    let args = (1..count).map(|i| {
        // SAFETY: the C runtime passes `argc` valid, NUL-terminated strings in `argv`.
        unsafe { CStr::from_ptr(*argv.add(i)) }.to_bytes()
    });
    snodo_embedded_example::host::main(args)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    const MESSAGE: &[u8] = b"snodo-device: panic\n";
    // SAFETY: writing a static buffer to stderr, then ending the process; neither returns
    // into Rust state.
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::abort()
    }
}

/// Unwinding support the linker asks for, and that never runs.
///
/// The precompiled `core`, and every dependency built by the workspace's unwinding profile
/// (`snodo-core` among them), carry landing pads that call `_Unwind_Resume` and unwind tables
/// that name `rust_eh_personality`. Here the panic handler aborts and no unwinder is linked,
/// so no unwind ever starts and neither routine can be reached; they exist to satisfy the
/// linker, and abort should that reasoning ever be wrong.
mod unwind_stubs {
    use core::ffi::c_void;

    #[unsafe(no_mangle)]
    extern "C" fn rust_eh_personality() {
        // SAFETY: ends the process.
        unsafe { libc::abort() }
    }

    #[unsafe(no_mangle)]
    extern "C" fn _Unwind_Resume(_exception: *mut c_void) -> ! {
        // SAFETY: ends the process.
        unsafe { libc::abort() }
    }
}
