//! A time as people write it, wherever one is given (flags, Action inputs, config files):
//! `5s`, `500ms`, `2m`, `1h`, `1.5s`. A bare number is milliseconds, as it always was.

use serde::de::{self, Deserializer, Visitor};
use std::fmt;
use std::str::FromStr;

/// Bare numbers under this are probably seconds meant as milliseconds (`--timeout 5`).
const SUSPICIOUSLY_SHORT_MS: u64 = 100;

/// A time in milliseconds, and whether it was written without a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Millis {
    pub ms: u64,
    /// Written as a bare number: milliseconds by default, not by the writer's choice.
    pub bare: bool,
}

impl Millis {
    /// A time written with its unit.
    pub const fn ms(ms: u64) -> Self {
        Self { ms, bare: false }
    }

    pub fn as_duration(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.ms)
    }

    /// The warning a bare number too short to be meant earns, naming the setting as the
    /// user wrote it (`--timeout`, input `timeout`).
    pub fn warning(self, setting: &str) -> Option<String> {
        // Zero is zero in any unit (and refused where a time must be positive).
        (self.bare && self.ms > 0 && self.ms < SUSPICIOUSLY_SHORT_MS).then(|| {
            format!(
                "{setting} {ms} is {ms} milliseconds (a bare number is milliseconds); write {ms}s for seconds, or {ms}ms to keep it and silence this",
                ms = self.ms
            )
        })
    }
}

/// Why a time did not parse, for a message that names the setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a duration: write a number with a unit, such as 5s, 500ms or 2m (a bare number is milliseconds)")]
pub struct DurationError(pub String);

impl FromStr for Millis {
    type Err = DurationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || DurationError(crate::text::bounded(text, 40));
        let t = text.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let per_unit: f64 = match unit.trim() {
            "" => {
                let ms = number.parse::<u64>().map_err(|_| bad())?;
                return Ok(Self { ms, bare: true });
            }
            "ms" => 1.0,
            "s" | "sec" => 1_000.0,
            "m" | "min" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return Err(bad()),
        };
        // Digits with at most one point: `1.5s`, never `1.2.3s`, `.s` or `-5s`.
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(bad());
        }
        let value: f64 = number.parse().map_err(|_| bad())?;
        let ms = (value * per_unit).round();
        if !(0.0..=u64::MAX as f64).contains(&ms) {
            return Err(bad());
        }
        Ok(Self::ms(ms as u64))
    }
}

impl fmt::Display for Millis {
    /// The shortest exact spelling: `30s`, `2m`, `250ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ms {
            0 => write!(f, "0ms"),
            ms if ms % 3_600_000 == 0 => write!(f, "{}h", ms / 3_600_000),
            ms if ms % 60_000 == 0 => write!(f, "{}m", ms / 60_000),
            ms if ms % 1_000 == 0 => write!(f, "{}s", ms / 1_000),
            ms => write!(f, "{ms}ms"),
        }
    }
}

/// A config file's time: a number of milliseconds, or a string with a unit.
impl<'de> serde::Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MillisVisitor;
        impl Visitor<'_> for MillisVisitor {
            type Value = Millis;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("milliseconds, or a duration such as \"5s\", \"500ms\" or \"2m\"")
            }

            fn visit_u64<E: de::Error>(self, ms: u64) -> Result<Millis, E> {
                Ok(Millis { ms, bare: true })
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Millis, E> {
                u64::try_from(v)
                    .map(|ms| Millis { ms, bare: true })
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Millis, E> {
                v.parse().map_err(|e: DurationError| E::custom(e))
            }
        }
        deserializer.deserialize_any(MillisVisitor)
    }
}

/// For a config key held as milliseconds: accepts what [`Millis`] accepts.
pub fn millis_opt<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    use serde::Deserialize;
    Ok(Option::<Millis>::deserialize(deserializer)?.map(|m| m.ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> u64 {
        text.parse::<Millis>().expect(text).ms
    }

    #[test]
    fn units_are_read_and_a_bare_number_is_milliseconds() {
        assert_eq!(ms("5s"), 5_000);
        assert_eq!(ms("500ms"), 500);
        assert_eq!(ms("2m"), 120_000);
        assert_eq!(ms("1h"), 3_600_000);
        assert_eq!(ms("1.5s"), 1_500);
        assert_eq!(ms(" 30 s "), 30_000);
        assert_eq!(ms("5000"), 5_000);
        assert!("5000".parse::<Millis>().expect("bare").bare);
        assert!(!"5s".parse::<Millis>().expect("unit").bare);
        for bad in ["", "s", "5x", "-5s", "1.2.3s", ".s", "five", "5 seconds"] {
            assert!(bad.parse::<Millis>().is_err(), "{bad}");
        }
    }

    #[test]
    fn only_a_short_bare_number_is_warned_about() {
        let warn = |t: &str| t.parse::<Millis>().expect(t).warning("--timeout");
        assert_eq!(
            warn("5").as_deref(),
            Some("--timeout 5 is 5 milliseconds (a bare number is milliseconds); write 5s for seconds, or 5ms to keep it and silence this")
        );
        assert_eq!(warn("5ms"), None);
        assert_eq!(warn("100"), None);
        assert_eq!(warn("0"), None);
        assert_eq!(warn("5s"), None);
    }

    #[test]
    fn it_displays_in_its_shortest_exact_unit() {
        let shown = |ms: u64| Millis::ms(ms).to_string();
        assert_eq!(shown(30_000), "30s");
        assert_eq!(shown(120_000), "2m");
        assert_eq!(shown(250), "250ms");
        assert_eq!(shown(0), "0ms");
    }

    #[test]
    fn a_config_takes_a_number_or_a_string() {
        let read = |json: &str| serde_json::from_str::<Millis>(json).map(|m| m.ms);
        assert_eq!(read("5000").ok(), Some(5_000));
        assert_eq!(read("\"5s\"").ok(), Some(5_000));
        assert!(read("\"soon\"").is_err());
        assert!(read("-1").is_err());
    }
}
