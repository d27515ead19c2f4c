//! Uptime from SysTick: an interrupt every [`TICK_HZ`]th of a second counts ticks; the
//! counter's current value gives the clock cycles within a tick.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;

/// The core clock of the MPS2 FPGA images (and of QEMU's `mps2-an386`).
pub const CORE_HZ: u32 = 25_000_000;
/// SysTick interrupts per second.
pub const TICK_HZ: u32 = 100;
const RELOAD: u32 = CORE_HZ / TICK_HZ - 1;

/// Ticks since boot: 2^32 hundredths of a second is over a year. Only the SysTick handler
/// writes it (load and store, no read-modify-write: ARMv6-M has no atomic add).
static TICKS: AtomicU32 = AtomicU32::new(0);

/// Starts SysTick from the core clock.
pub fn start(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// Called by the SysTick exception.
pub fn on_tick() {
    TICKS.store(TICKS.load(Relaxed).wrapping_add(1), Relaxed);
}

/// Seconds since boot.
pub fn uptime_secs() -> u64 {
    u64::from(TICKS.load(Relaxed) / TICK_HZ)
}

#[cfg(feature = "cost")]
/// Core clock cycles since boot (as SysTick counts them), read consistently across a tick.
pub fn cycles() -> u64 {
    loop {
        let ticks = TICKS.load(Relaxed);
        let within = RELOAD - SYST::get_current();
        if TICKS.load(Relaxed) == ticks {
            return u64::from(ticks) * u64::from(RELOAD + 1) + u64::from(within);
        }
    }
}
