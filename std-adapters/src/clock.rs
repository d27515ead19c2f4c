//! The time a round is admitted at.

use std::time::{SystemTime, UNIX_EPOCH};

/// The system clock in whole Unix seconds (0 if the clock is set before 1970).
pub fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
