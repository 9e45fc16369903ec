//! A run's start in UTC: conform's report folder is `reports/<YYYY-MM-DD>/`,
//! JUnit wants an RFC 3339 timestamp, humantime does the calendar.

use std::time::SystemTime;

/// A UTC instant to the second, as RFC 3339 (`2026-05-01T03:04:05Z`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utc(String);

impl Utc {
    pub fn now() -> Utc {
        Utc::at(SystemTime::now())
    }

    pub fn at(t: SystemTime) -> Utc {
        Utc(humantime::format_rfc3339_seconds(t).to_string())
    }

    /// `2026-05-01`: the part before the `T`.
    pub fn date(&self) -> &str {
        self.0.split_once('T').map_or(self.0.as_str(), |(d, _)| d)
    }

    /// `2026-05-01T03:04:05Z`.
    pub fn rfc3339(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Utc;
    use std::time::{Duration, UNIX_EPOCH};

    fn at(secs: u64) -> Utc {
        Utc::at(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn known_instants() {
        assert_eq!(at(0).rfc3339(), "1970-01-01T00:00:00Z");
        // 2000-02-29 (leap day of a century leap year) 12:34:56.
        assert_eq!(at(951_827_696).rfc3339(), "2000-02-29T12:34:56Z");
        assert_eq!(at(1_767_225_599).rfc3339(), "2025-12-31T23:59:59Z");
        assert_eq!(at(1_767_225_600).date(), "2026-01-01");
        // Fractions of a second are dropped, not rounded.
        assert_eq!(Utc::at(UNIX_EPOCH + Duration::from_millis(1_767_225_599_999)).rfc3339(), "2025-12-31T23:59:59Z");
    }
}
