//! One logging macro family for the whole core: `defmt` on firmware (feature `defmt`),
//! `tracing` on hosts (feature `tracing`), nothing otherwise, so host tests never link defmt.
//! Arguments must be formattable by whichever backend is enabled; keep them to integers and
//! static strings.

#[cfg(feature = "defmt")]
macro_rules! debug {
    ($($arg:tt)*) => { defmt::debug!($($arg)*) };
}

#[cfg(all(feature = "tracing", not(feature = "defmt")))]
macro_rules! debug {
    ($($arg:tt)*) => { tracing::debug!($($arg)*) };
}

#[cfg(not(any(feature = "defmt", feature = "tracing")))]
macro_rules! debug {
    ($($arg:tt)*) => {{
        if false {
            let _ = core::format_args!($($arg)*);
        }
    }};
}

pub(crate) use debug;
