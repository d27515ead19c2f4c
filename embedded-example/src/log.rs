//! The firmware's logging: `defmt` with feature `defmt`, nothing otherwise (the host build
//! keeps stdout for MCP messages and has no defmt logger to link).

#[cfg(feature = "defmt")]
macro_rules! info {
    ($($arg:tt)*) => { defmt::info!($($arg)*) };
}

#[cfg(not(feature = "defmt"))]
macro_rules! info {
    ($($arg:tt)*) => {{
        if false {
            let _ = core::format_args!($($arg)*);
        }
    }};
}

#[cfg(feature = "defmt")]
macro_rules! debug {
    ($($arg:tt)*) => { defmt::debug!($($arg)*) };
}

/// The arguments are only borrowed: defmt's `Format` types need not implement `Display`.
#[cfg(not(feature = "defmt"))]
macro_rules! debug {
    ($format:literal $(, $arg:expr)* $(,)?) => {{
        $(let _ = &$arg;)*
    }};
}

pub(crate) use {debug, info};
