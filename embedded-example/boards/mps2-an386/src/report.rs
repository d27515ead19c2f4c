//! Lines for the person or test running the firmware: semihosting's console, or defmt
//! frames when the firmware logs through defmt (which owns that console then).

#[cfg(feature = "defmt")]
macro_rules! report {
    ($($arg:tt)*) => { defmt::println!($($arg)*) };
}

#[cfg(not(feature = "defmt"))]
macro_rules! report {
    ($($arg:tt)*) => { cortex_m_semihosting::hprintln!($($arg)*) };
}

pub(crate) use report;
