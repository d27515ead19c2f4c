//! Errors of building an input request, and of reading an answer.

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

/// An answer that does not fit its request (a handler's `?` turns it into the generic -32602
/// `Invalid input response`, which never echoes what the client sent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InvalidResponse;

/// The error for an answer that does not fit its request.
pub const INVALID_RESPONSE: InvalidResponse = InvalidResponse;

impl InvalidResponse {
    /// The message of the -32602 it becomes.
    pub const MESSAGE: &'static str = "Invalid input response";
}

impl core::fmt::Display for InvalidResponse {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(Self::MESSAGE)
    }
}
