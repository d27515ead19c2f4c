//! Errors of building an input request.

/// An input request that cannot be sent as built. Found when it is built, never on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BuildError {
    /// What is wrong, in a short sentence.
    pub reason: &'static str,
}

impl BuildError {
    /// A build error with `reason`.
    pub const fn new(reason: &'static str) -> Self {
        BuildError { reason }
    }
}

impl core::fmt::Display for BuildError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.reason)
    }
}
