//! The clock queries read: `'now'`, `CURRENT_DATE`, `CURRENT_TIMESTAMP`, `julianday('now')`, …
//! A manifest pins it to one moment (`[dataset] clock = "2024-05-01T12:00:00Z"`), so a verdict
//! does not depend on the day it is computed, or leaves it to the machine (`clock = "system"`).
//! `spec/manifest.md` ("The clock") specifies it; the SQLite backend answers a pinned moment at
//! the engine level (`backend::sqlite_clock`).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::sql_tokens::{tokenize, TokenKind};

/// A moment, in milliseconds since 1970-01-01T00:00:00Z (UTC; no leap seconds, as SQLite counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Moment(i64);

/// The Julian day of the Unix epoch, in milliseconds (2440587.5 days): SQLite's clock counts
/// milliseconds since the Julian epoch.
const UNIX_EPOCH_JULIAN_MS: i64 = 210_866_760_000_000;

/// The latest moment accepted: 9999-12-31T23:59:59.999Z (SQLite's dates end in year 9999).
const LAST_MS: i64 = 253_402_300_799_999;

impl Moment {
    /// The moment `ms` milliseconds after the Unix epoch (negative: before it).
    pub fn from_unix_millis(ms: i64) -> Option<Moment> {
        let first = -62_167_219_200_000; // 0000-01-01T00:00:00Z
        (first..=LAST_MS).contains(&ms).then_some(Moment(ms))
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_millis(self) -> i64 {
        self.0
    }

    /// Milliseconds since the Julian epoch (noon, 24 November 4714 BC): what SQLite's
    /// `xCurrentTimeInt64` answers.
    pub fn julian_millis(self) -> i64 {
        self.0 + UNIX_EPOCH_JULIAN_MS
    }

    /// The machine's clock now.
    pub fn now() -> Moment {
        let ms = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(LAST_MS),
            Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(0),
        };
        Moment(ms.min(LAST_MS))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (UTC; a space may stand for the `T`, and `+00:00`
    /// for the `Z`). A moment in another zone is refused rather than guessed.
    pub fn parse(text: &str) -> Result<Moment, String> {
        let bad = || {
            format!(
                "{text:?} is not a moment in UTC: write YYYY-MM-DDTHH:MM:SSZ \
                 (e.g. \"2024-05-01T12:00:00Z\"), or \"system\" for the machine's clock"
            )
        };
        let body = text
            .strip_suffix('Z')
            .or_else(|| text.strip_suffix("+00:00"))
            .ok_or_else(bad)?;
        let b = body.as_bytes();
        if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
            return Err(bad());
        }
        if b[13] != b':' || b[16] != b':' {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| -> Result<i64, String> {
            let s = body.get(r).ok_or_else(bad)?;
            if s.bytes().all(|c| c.is_ascii_digit()) {
                s.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
        let millis = match &body[19..] {
            "" => 0,
            fraction => {
                let digits = fraction.strip_prefix('.').ok_or_else(bad)?;
                if digits.is_empty() || digits.len() > 3 {
                    return Err(bad());
                }
                num(20..20 + digits.len())? * 10_i64.pow(3 - digits.len() as u32)
            }
        };
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return Err(bad());
        }
        let days = days_from_civil(year, month, day);
        let ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
        Moment::from_unix_millis(ms).ok_or_else(bad)
    }
}

impl fmt::Display for Moment {
    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.fff` when the moment has milliseconds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400_000);
        let in_day = self.0.rem_euclid(86_400_000);
        let (year, month, day) = civil_from_days(days);
        let (h, m, s, ms) = (
            in_day / 3_600_000,
            in_day / 60_000 % 60,
            in_day / 1000 % 60,
            in_day % 1000,
        );
        write!(f, "{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}")?;
        if ms != 0 {
            write!(f, ".{ms:03}")?;
        }
        f.write_str("Z")
    }
}

/// Which moment `'now'` denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Clock {
    /// The machine's clock (or the database server's), read when the query runs: verdicts of
    /// queries that read it depend on when they run.
    #[default]
    System,
    /// Always this moment, however long the run and whenever it runs.
    Pinned(Moment),
}

impl Clock {
    /// `"system"` or a moment ([`Moment::parse`]).
    pub fn parse(text: &str) -> Result<Clock, String> {
        if text == "system" {
            Ok(Clock::System)
        } else {
            Moment::parse(text).map(Clock::Pinned)
        }
    }

    /// The pinned moment, if any.
    pub fn pinned(self) -> Option<Moment> {
        match self {
            Clock::System => None,
            Clock::Pinned(m) => Some(m),
        }
    }

    /// What provenance records: `pinned <moment>`, or `system <the machine's time at start>`.
    pub fn describe(self, started: Moment) -> String {
        match self {
            Clock::Pinned(m) => format!("pinned {m}"),
            Clock::System => format!("system {started}"),
        }
    }
}

/// Whether `sql` reads the current date or time, in SQLite's or PostgreSQL's dialect: the
/// string `'now'` (also PostgreSQL's `'today'`, `'tomorrow'`, `'yesterday'`), `CURRENT_DATE`,
/// `CURRENT_TIME`, `CURRENT_TIMESTAMP`, `LOCALTIME`, `LOCALTIMESTAMP`, `now()`,
/// `transaction_timestamp()`, `statement_timestamp()`, `clock_timestamp()`, `timeofday()`, and
/// SQLite's date functions called without a time value (`date()`, `julianday()`,
/// `strftime('%Y')`, `unixepoch()`). Strings and identifiers are told apart by the lexer, so a
/// column named `now_playing` or a value `'nowhere'` does not count.
pub fn reads_clock(sql: &str) -> bool {
    let tokens = tokenize(sql);
    tokens.iter().enumerate().any(|(i, t)| match t.kind {
        TokenKind::Str => t.string_content().is_some_and(|s| {
            let s = s.trim().to_ascii_lowercase();
            matches!(s.as_str(), "now" | "today" | "tomorrow" | "yesterday")
        }),
        TokenKind::Word => {
            let word = t.lower();
            let call = tokens.get(i + 1).is_some_and(|n| n.is_symbol("("));
            let args = if call { arguments(&tokens[i + 2..]) } else { 0 };
            match word.as_str() {
                "current_date" | "current_time" | "current_timestamp" | "localtime"
                | "localtimestamp" => true,
                "now"
                | "transaction_timestamp"
                | "statement_timestamp"
                | "clock_timestamp"
                | "timeofday" => call,
                "date" | "time" | "datetime" | "julianday" | "unixepoch" => call && args == 0,
                "strftime" | "timediff" => call && args == 1,
                _ => false,
            }
        }
        _ => false,
    })
}

/// The number of top-level arguments of a call whose tokens (after its `(`) are `rest`.
fn arguments(rest: &[crate::sql_tokens::Token]) -> usize {
    let (mut depth, mut count) = (0_usize, 0);
    for t in rest {
        if t.is_symbol("(") {
            depth += 1;
        } else if t.is_symbol(")") {
            if depth == 0 {
                return count;
            }
            depth -= 1;
        } else if depth == 0 && t.is_symbol(",") {
            count += 1;
        } else if count == 0 {
            count = 1;
        }
    }
    count
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (the inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_parse_and_print_back() {
        for text in [
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2024-05-01T12:00:00.250Z",
            "1969-12-31T23:59:59Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ] {
            let m = Moment::parse(text).unwrap();
            assert_eq!(m.to_string(), text);
        }
        assert_eq!(Moment::parse("1970-01-02T00:00:00Z").unwrap().0, 86_400_000);
        assert_eq!(
            Moment::parse("2024-05-01 12:00:00+00:00").unwrap(),
            Moment::parse("2024-05-01T12:00:00Z").unwrap()
        );
    }

    #[test]
    fn malformed_or_zoned_moments_are_refused() {
        for text in [
            "2024-05-01",
            "2024-05-01T12:00:00",
            "2024-05-01T12:00:00+02:00",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T12:00:00.1234Z",
            "yesterday",
            "",
        ] {
            assert!(Moment::parse(text).is_err(), "{text}");
        }
        assert_eq!(Clock::parse("system"), Ok(Clock::System));
        assert!(Clock::parse("System").is_err());
    }

    #[test]
    fn the_julian_epoch_is_sqlites() {
        // SQLite: SELECT julianday('1970-01-01') = 2440587.5
        let m = Moment::parse("1970-01-01T00:00:00Z").unwrap();
        assert_eq!(m.julian_millis() as f64 / 86_400_000.0, 2_440_587.5);
    }

    #[test]
    fn queries_that_read_the_clock_are_told_from_those_that_do_not() {
        for sql in [
            "SELECT date('now')",
            "SELECT CAST(julianday('NOW') - julianday(x) AS INTEGER) FROM t",
            "SELECT * FROM t WHERE d > CURRENT_DATE - 7",
            "SELECT current_timestamp",
            "SELECT now() - interval '1 day'",
            "SELECT date()",
            "SELECT strftime('%Y')",
            "SELECT * FROM t WHERE d = 'today'::date",
            "SELECT LOCALTIMESTAMP",
        ] {
            assert!(reads_clock(sql), "{sql}");
        }
        for sql in [
            "SELECT date(x) FROM t",
            "SELECT strftime('%Y', d) FROM t",
            "SELECT now_playing FROM t WHERE name = 'nowhere'",
            "SELECT datetime(d, 'localtime') FROM t",
            "SELECT julianday(a) - julianday(b) FROM t",
        ] {
            assert!(!reads_clock(sql), "{sql}");
        }
    }
}
