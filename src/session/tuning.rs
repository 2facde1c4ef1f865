//! A session's tuning — the guard's times and limits — declared once. Each line of [`tunings!`] is
//! one setting: its field, its unit, its flag, its Action input (if the Action has it), its
//! config key, its help heading, whether `-h` shows it, its default, its least value and its
//! help text. The flags (`app::cli`), the Action's inputs, the config file, a sweep's
//! settings, the command line a report shows (`argv`) and docs/config.md are all read from
//! this table, so a new time or limit is one line here and its use where the guard needs it.

use crate::duration::Millis;
use crate::error::Error;
use crate::finding::excerpt;
use crate::process::StdioLimits;

/// What a tuning value counts, which says how it is written and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A time: `5s`, `500ms`, `2m`; a bare number is milliseconds.
    Time,
    /// A number of bytes.
    Bytes,
    /// A number of things (pages).
    Count,
}

impl Unit {
    /// The placeholder `--help` shows for its value.
    pub fn value_name(self) -> &'static str {
        match self {
            Unit::Time => "DURATION",
            Unit::Bytes => "BYTES",
            Unit::Count => "N",
        }
    }

    /// One of this unit, for "must be at least 1 ms".
    fn one(self) -> &'static str {
        match self {
            Unit::Time => "ms",
            Unit::Bytes => "byte",
            Unit::Count => "page",
        }
    }

    /// A value as every front writes it back: a time with its unit, else the number.
    pub fn show(self, value: u64) -> String {
        match self {
            Unit::Time => Millis::ms(value).to_string(),
            Unit::Bytes | Unit::Count => value.to_string(),
        }
    }

    /// A value written as text (a flag's value, an Action input): the value, and whether it
    /// is a time written as a bare number (milliseconds by default, not by choice).
    pub fn parse(self, text: &str) -> Result<(u64, bool), BadValue> {
        match self {
            Unit::Time => text
                .parse::<Millis>()
                .map(|t| (t.ms, t.bare))
                .map_err(|e| BadValue(e.to_string())),
            Unit::Bytes | Unit::Count => {
                let what = if self == Unit::Bytes {
                    "bytes"
                } else {
                    "pages"
                };
                text.trim().parse::<u64>().map(|n| (n, false)).map_err(|_| {
                    BadValue(format!(
                        "{:?} is not a whole number of {what}",
                        excerpt(text, 40)
                    ))
                })
            }
        }
    }

    /// A value as a config file holds it: a number, or for a time also a string with a unit.
    fn of_json(self, value: &serde_json::Value) -> Result<u64, BadValue> {
        let bad = |why: &str| BadValue(why.to_string());
        match (self, value) {
            (_, serde_json::Value::Number(n)) => n
                .as_u64()
                .ok_or_else(|| bad(&format!("{n} is not a whole number of at least 0"))),
            (Unit::Time, serde_json::Value::String(s)) => self.parse(s).map(|(v, _)| v),
            (Unit::Time, _) => Err(bad(
                "expected milliseconds, or a duration such as \"5s\", \"500ms\" or \"2m\"",
            )),
            _ => Err(bad("expected a whole number")),
        }
    }
}

/// Why a written value is not one a setting takes (the caller names the setting).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(pub String);

/// One tuning setting: how every front spells it, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The field's name in [`Tuning`].
    pub field: &'static str,
    pub unit: Unit,
    /// `--timeout`.
    pub flag: &'static str,
    /// The Action's input, where the Action has one.
    pub input: Option<&'static str>,
    /// The config file's key.
    pub key: &'static str,
    /// The `--help` heading it is listed under.
    pub heading: &'static str,
    /// Whether `-h` (the short help) lists it, not only `--help`.
    pub short_help: bool,
    pub default: u64,
    /// The least value accepted.
    pub min: u64,
    pub help: &'static str,
}

impl Spec {
    /// The help text with its default: `… [default: 5s]`.
    pub fn help_with_default(&self) -> String {
        format!("{} [default: {}]", self.help, self.unit.show(self.default))
    }
}

macro_rules! tunings {
    ($(
        $field:ident: $unit:ident, $flag:literal, input $input:expr, key $key:literal,
        $heading:literal, short $short:literal, default $default:expr, min $min:literal,
        $help:literal;
    )+) => {
        /// The guard's times and limits, each `None` where this layer (a request, a config
        /// file, the defaults) does not set it. Times are milliseconds.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct Tuning {
            $( pub $field: Option<u64>, )+
        }

        /// Every value resolved: what a run uses.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Tuned {
            $( pub $field: u64, )+
        }

        impl Tuning {
            /// Every tuning setting, in the order the help lists them.
            pub const SPECS: &'static [Spec] = &[$(
                Spec {
                    field: stringify!($field),
                    unit: Unit::$unit,
                    flag: $flag,
                    input: $input,
                    key: $key,
                    heading: $heading,
                    short_help: $short,
                    default: $default,
                    min: $min,
                    help: $help,
                },
            )+];

            /// The config file's keys, for serde and for "did you mean".
            pub const KEYS: &'static [&'static str] = &[$( $key, )+];

            /// This layer over `below`: a value set here wins.
            pub fn over(self, below: Tuning) -> Tuning {
                Tuning { $( $field: self.$field.or(below.$field), )+ }
            }

            /// The bottom layer: every default.
            pub fn defaults() -> Tuning {
                Tuning { $( $field: Some($default), )+ }
            }

            /// Every value, the default where none is set.
            pub fn tuned(self) -> Tuned {
                Tuned { $( $field: self.$field.unwrap_or($default), )+ }
            }

            /// The value `spec` names.
            pub fn get(&self, spec: &Spec) -> Option<u64> {
                match spec.field {
                    $( stringify!($field) => self.$field, )+
                    _ => None,
                }
            }

            /// Sets the value `spec` names.
            pub fn set(&mut self, spec: &Spec, value: u64) {
                match spec.field {
                    $( stringify!($field) => self.$field = Some(value), )+
                    _ => {}
                }
            }
        }
    };
}

tunings! {
    timeout: Time, "--timeout", input Some("timeout"), key "timeoutMs",
        "Timing", short true, default 5_000, min 1,
        "How long to wait for initialize and for each request: 5s, 500ms, 2m (a bare number is milliseconds).";
    settle: Time, "--settle", input None, key "settleMs",
        "Timing", short false, default 300, min 0,
        "How long to keep listening for late stdout after the last answer.";
    shutdown_grace: Time, "--shutdown-grace", input None, key "shutdownGraceMs",
        "Timing", short false, default 2_000, min 0,
        "How long the server has to exit after stdin closes (and again after SIGTERM).";
    install_timeout: Time, "--install-timeout", input Some("install_timeout"), key "installTimeoutMs",
        "Timing", short false, default crate::install::DEFAULT_INSTALL_TIMEOUT.as_millis() as u64, min 1,
        "How long installing the package the command's launcher fetches (npx, uvx) may take, before the session and its --timeout.";
    max_stdout_line_bytes: Bytes, "--max-stdout-line-bytes", input None, key "maxStdoutLineBytes",
        "Limits", short false, default StdioLimits::DEFAULT_MAX_STDOUT_LINE_BYTES as u64, min 1,
        "Largest stdout line read, in bytes; a longer one stops the run (lines over 256 KiB are parsed and warned about).";
    max_stdout_bytes: Bytes, "--max-stdout-bytes", input None, key "maxStdoutBytes",
        "Limits", short false, default StdioLimits::DEFAULT_MAX_STDOUT_BYTES, min 1,
        "Most stdout accepted over the whole run, in bytes.";
    max_stderr_bytes: Bytes, "--max-stderr-bytes", input None, key "maxStderrBytes",
        "Limits", short false, default StdioLimits::DEFAULT_MAX_STDERR_BYTES, min 0,
        "Stderr beyond this many bytes is noted, and only its tail kept (stderr is always drained).";
    stderr_flood_bytes: Bytes, "--stderr-flood-bytes", input None, key "stderrFloodBytes",
        "Limits", short false, default StdioLimits::DEFAULT_STDERR_FLOOD_BYTES, min 0,
        "Stderr beyond this many bytes in one session is a flood (stderr-flood).";
    max_list_pages: Count, "--max-list-pages", input None, key "maxListPages",
        "Limits", short false, default 100, min 1,
        "Most pages followed per list method.";
}

/// A config file's tuning keys (its other keys are the config's own): read by
/// [`Tuning::take_from_config`], so a config file, a flag and an input hold the same values.
impl<'de> serde::Deserialize<'de> for Tuning {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{Error as _, MapAccess, Visitor};
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = Tuning;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the guard's times and limits")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tuning, A::Error> {
                let mut object = serde_json::Map::new();
                while let Some((key, value)) = map.next_entry::<String, serde_json::Value>()? {
                    object.insert(key, value);
                }
                let tuning = Tuning::take_from_config(&mut object).map_err(A::Error::custom)?;
                match object.keys().next() {
                    Some(key) => Err(A::Error::unknown_field(key, Tuning::KEYS)),
                    None => Ok(tuning),
                }
            }
        }
        deserializer.deserialize_struct("Tuning", Tuning::KEYS, Keys)
    }
}

/// Who wrote a tuning value, for messages that name it as its writer spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Flags,
    ActionInputs,
    ConfigFile,
}

impl Writer {
    /// `--timeout`, input `timeout`, config `timeoutMs`.
    pub fn name(self, spec: &Spec) -> String {
        match (self, spec.input) {
            (Writer::ActionInputs, Some(input)) => format!("input `{input}`"),
            (Writer::ConfigFile, _) => format!("config `{}`", spec.key),
            _ => spec.flag.to_string(),
        }
    }
}

impl Tuning {
    /// The tuning a front gives as text (flags, Action inputs): `text(spec)` is the value
    /// written for `spec`, if any. Returns the values and the warnings a time written as a
    /// short bare number earns (`--timeout 5` is 5 ms).
    pub fn read(
        writer: Writer,
        text: impl Fn(&Spec) -> Option<String>,
    ) -> Result<(Tuning, Vec<String>), Error> {
        let mut tuning = Tuning::default();
        let mut warnings = Vec::new();
        for spec in Self::SPECS {
            let Some(given) = text(spec) else { continue };
            let (value, bare) = spec
                .unit
                .parse(&given)
                .map_err(|why| Error::Usage(format!("{}: {why}", writer.name(spec))))?;
            if bare && spec.unit == Unit::Time {
                let name = match writer {
                    Writer::Flags => writer.name(spec),
                    _ => format!("{}:", writer.name(spec)),
                };
                warnings.extend(Millis { ms: value, bare }.warning(&name));
            }
            tuning.set(spec, value);
        }
        Ok((tuning, warnings))
    }

    /// Every value set here is at least its setting's least value.
    pub fn check(&self, writer: Writer) -> Result<(), Error> {
        for spec in Self::SPECS {
            if self.get(spec).is_some_and(|v| v < spec.min) {
                return Err(Error::Usage(format!(
                    "{} must be at least {} {}",
                    writer.name(spec),
                    spec.min,
                    spec.unit.one()
                )));
            }
        }
        Ok(())
    }

    /// The flags that ask for these values, in the table's order: `--timeout 9s`.
    pub fn argv(&self) -> Vec<String> {
        Self::SPECS
            .iter()
            .filter_map(|spec| {
                let value = self.get(spec)?;
                Some([spec.flag.to_string(), spec.unit.show(value)])
            })
            .flatten()
            .collect()
    }

    /// The config keys of this table in `object`, read and removed (the rest is the config
    /// file's other keys). A value of the wrong kind is an error naming its key.
    pub fn take_from_config(
        object: &mut serde_json::Map<String, serde_json::Value>,
    ) -> Result<Tuning, BadValue> {
        let mut tuning = Tuning::default();
        for spec in Self::SPECS {
            let Some(value) = object.remove(spec.key) else {
                continue;
            };
            if value.is_null() {
                continue;
            }
            let value = spec
                .unit
                .of_json(&value)
                .map_err(|why| BadValue(format!("config `{}`: {why}", spec.key)))?;
            tuning.set(spec, value);
        }
        Ok(tuning)
    }

    /// docs/config.md's rows for these keys.
    pub fn config_rows() -> String {
        Self::SPECS
            .iter()
            .map(|spec| {
                let kind = match spec.unit {
                    Unit::Time => "integer (milliseconds) or string with a unit (`\"5s\"`, `\"500ms\"`, `\"2m\"`)",
                    Unit::Bytes => "integer (bytes)",
                    Unit::Count => "integer",
                };
                format!(
                    "| `{}` | {kind} | As `{}` (default {}). |\n",
                    spec.key,
                    spec.flag,
                    spec.unit.show(spec.default)
                )
            })
            .collect()
    }
}

impl Tuned {
    /// The plan of a session run with these values, as mcpcheck's client: the protocol
    /// version asked for, whether to probe the list methods, the requests after them, and
    /// the remote server (else the command is spawned).
    pub fn plan(
        &self,
        protocol: String,
        probe_lists: bool,
        requests: Vec<super::PlannedRequest>,
        http: Option<super::http::HttpTarget>,
    ) -> super::SessionPlan {
        use std::time::Duration;
        super::SessionPlan {
            protocol,
            client_name: "mcpcheck".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            probe_lists,
            requests,
            timeout: Duration::from_millis(self.timeout),
            settle: Duration::from_millis(self.settle),
            shutdown_grace: Duration::from_millis(self.shutdown_grace),
            max_list_pages: usize::try_from(self.max_list_pages).unwrap_or(usize::MAX),
            limits: self.limits(),
            http,
        }
    }

    /// The stdout and stderr limits of a process run with these values.
    pub fn limits(&self) -> StdioLimits {
        let max_stdout_line_bytes =
            usize::try_from(self.max_stdout_line_bytes).unwrap_or(usize::MAX);
        StdioLimits {
            max_stdout_line_bytes,
            soft_stdout_line_bytes: StdioLimits::default()
                .soft_stdout_line_bytes
                .min(max_stdout_line_bytes),
            max_stdout_bytes: self.max_stdout_bytes,
            max_stderr_bytes: self.max_stderr_bytes,
            stderr_flood_bytes: self.stderr_flood_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_spelled_once_and_distinctly() {
        let mut seen = std::collections::HashSet::new();
        for spec in Tuning::SPECS {
            assert!(spec.flag.starts_with("--"), "{spec:?}");
            let spellings = [
                ("flag", spec.flag),
                ("key", spec.key),
                ("field", spec.field),
            ];
            for (kind, name) in spellings
                .into_iter()
                .chain(spec.input.map(|i| ("input", i)))
            {
                assert!(seen.insert((kind, name)), "{kind} {name} is spelled twice");
            }
            assert!(spec.default >= spec.min, "{spec:?}");
            let mut t = Tuning::default();
            t.set(spec, 7);
            assert_eq!(t.get(spec), Some(7), "{}", spec.field);
        }
    }

    #[test]
    fn text_is_read_back_from_what_argv_writes() {
        let mut given = Tuning::default();
        for (i, spec) in Tuning::SPECS.iter().enumerate() {
            given.set(spec, 1_000 * (i as u64 + 1) + 7);
        }
        let argv = given.argv();
        let (read, warnings) = Tuning::read(Writer::Flags, |spec| {
            let at = argv.iter().position(|w| w == spec.flag)?;
            argv.get(at + 1).cloned()
        })
        .expect("reads");
        assert_eq!(read, given);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_short_bare_time_is_warned_about_and_a_bad_value_named() {
        let (t, warnings) = Tuning::read(Writer::ActionInputs, |spec| {
            (spec.field == "timeout").then(|| "5".to_string())
        })
        .expect("reads");
        assert_eq!(t.timeout, Some(5));
        assert_eq!(
            warnings,
            ["input `timeout`: 5 is 5 milliseconds (a bare number is milliseconds); write 5s for seconds, or 5ms to keep it and silence this"]
        );
        let e = Tuning::read(Writer::Flags, |spec| {
            (spec.field == "max_stdout_bytes").then(|| "lots".to_string())
        })
        .expect_err("not a number");
        assert_eq!(
            e.message(),
            "--max-stdout-bytes: \"lots\" is not a whole number of bytes"
        );
        let zero = Tuning {
            timeout: Some(0),
            ..Tuning::default()
        };
        assert_eq!(
            zero.check(Writer::ConfigFile).expect_err("zero").message(),
            "config `timeoutMs` must be at least 1 ms"
        );
    }

    #[test]
    fn a_config_holds_numbers_and_times_with_units() {
        let mut object = serde_json::json!({
            "timeoutMs": "5s", "settleMs": 20, "maxListPages": 3, "command": "x"
        })
        .as_object()
        .cloned()
        .expect("object");
        let t = Tuning::take_from_config(&mut object).expect("reads");
        assert_eq!(
            (t.timeout, t.settle, t.max_list_pages),
            (Some(5_000), Some(20), Some(3))
        );
        assert_eq!(object.keys().collect::<Vec<_>>(), ["command"]);
        let mut bad = serde_json::json!({"maxStdoutBytes": "5s"})
            .as_object()
            .cloned()
            .expect("object");
        assert_eq!(
            Tuning::take_from_config(&mut bad)
                .expect_err("bytes are numbers")
                .to_string(),
            "config `maxStdoutBytes`: expected a whole number"
        );
    }
}
