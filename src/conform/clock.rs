//! UTC calendar dates from the system clock, without a date crate: the
//! report folder is `reports/<YYYY-MM-DD>/` and JUnit wants an ISO timestamp.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC instant broken into calendar fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utc {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl Utc {
    pub fn now() -> Utc {
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        Utc::from_unix(secs)
    }

    /// Howard Hinnant's days-to-civil conversion (proleptic Gregorian).
    pub fn from_unix(secs: u64) -> Utc {
        let days = (secs / 86_400) as i64;
        let rem = secs % 86_400;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Utc { year, month, day, hour: (rem / 3600) as u32, minute: (rem / 60 % 60) as u32, second: (rem % 60) as u32 }
    }

    /// `2026-05-01`.
    pub fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `2026-05-01T03:04:05Z`.
    pub fn rfc3339(&self) -> String {
        format!("{}T{:02}:{:02}:{:02}Z", self.date(), self.hour, self.minute, self.second)
    }
}

#[cfg(test)]
mod tests {
    use super::Utc;

    #[test]
    fn known_instants() {
        assert_eq!(Utc::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        // 2000-02-29 (leap day of a century leap year) 12:34:56.
        assert_eq!(Utc::from_unix(951_827_696).rfc3339(), "2000-02-29T12:34:56Z");
        assert_eq!(Utc::from_unix(1_767_225_599).rfc3339(), "2025-12-31T23:59:59Z");
        assert_eq!(Utc::from_unix(1_767_225_600).date(), "2026-01-01");
    }
}
