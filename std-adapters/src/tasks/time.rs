//! Task timestamps: ISO 8601 in UTC, as the extension writes `createdAt` and
//! `lastUpdatedAt` (the core has no clock, so the host formats them).

use std::time::{SystemTime, UNIX_EPOCH};

/// The system clock in Unix milliseconds (0 before 1970).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `ms` Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let (year, month, day) = civil_date(secs / 86_400);
    let day_secs = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        day_secs / 3600,
        day_secs % 3600 / 60,
        day_secs % 60,
        ms % 1000
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01, counted in 400-year eras of
/// 146 097 days from 0000-03-01 (so the leap day ends each year).
fn civil_date(days: u64) -> (u64, u64, u64) {
    let from_march_0 = days + 719_468;
    let era = from_march_0 / 146_097;
    let day_of_era = from_march_0 % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn timestamps_are_utc_dates_with_milliseconds() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29, a leap day of a year divisible by 400.
        assert_eq!(iso8601(951_782_400_123), "2000-02-29T00:00:00.123Z");
        // 2026-12-07T15:49:19Z.
        assert_eq!(iso8601(1_796_658_559_000), "2026-12-07T15:49:19.000Z");
        // The last second of 2100, a year divisible by 100 and not by 400.
        assert_eq!(iso8601(4_133_980_799_999), "2100-12-31T23:59:59.999Z");
    }
}
