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

pub(crate) use info;
