//! Times on the command line: the flags that take one, and the warning a bare number too
//! short to be meant as milliseconds earns (`--timeout 5`).

use super::{Cli, Command};
use crate::duration::Millis;

impl Cli {
    /// Times given as bare numbers too short to be meant as milliseconds (`--timeout 5`).
    pub fn duration_warnings(&self) -> Vec<String> {
        let tuning = match &self.command {
            Command::Guard(a) => a.tuning.warnings.clone(),
            Command::Sweep(a) => a.tuning.warnings.clone(),
            _ => Vec::new(),
        };
        let given: Vec<(&str, Option<Millis>)> = match &self.command {
            Command::Proxy(a) => vec![
                ("--timeout", Some(a.timeout)),
                ("--shutdown-grace", Some(a.shutdown_grace)),
            ],
            Command::Sweep(a) => vec![("--setup-timeout", Some(a.setup_timeout))],
            Command::Scan(a) => vec![("--live-timeout", Some(a.live.live_timeout))],
            Command::Baseline(a) => vec![("--live-timeout", Some(a.live.live_timeout))],
            Command::Pin(a) => vec![("--live-timeout", Some(a.live.live_timeout))],
            Command::Inventory(a) => vec![("--live-timeout", Some(a.live.live_timeout))],
            _ => Vec::new(),
        };
        tuning
            .into_iter()
            .chain(given.into_iter().filter_map(|(flag, t)| t?.warning(flag)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from([&["mcpcheck"], args].concat()).expect("parses")
    }

    #[test]
    fn every_time_flag_takes_a_unit_and_warns_of_a_short_bare_number() {
        // Issue 44 item 5: `--timeout 5` was silently 5 ms.
        let times = |cli: &Cli| -> Vec<u64> {
            match &cli.command {
                Command::Guard(a) => {
                    let t = a.tuning.tuning;
                    [t.timeout, t.settle, t.shutdown_grace]
                        .iter()
                        .map(|t| t.unwrap_or(0))
                        .collect()
                }
                Command::Proxy(a) => vec![a.timeout.ms, a.shutdown_grace.ms],
                Command::Sweep(a) => vec![
                    a.tuning.tuning.timeout.unwrap_or(0),
                    a.setup_timeout.ms,
                    a.tuning.tuning.install_timeout.unwrap_or(0),
                ],
                Command::Scan(a) => vec![a.live.live_timeout.ms],
                _ => Vec::new(),
            }
        };
        let guard = parse(&[
            "guard",
            "--timeout",
            "5s",
            "--settle",
            "500ms",
            "--shutdown-grace",
            "1.5s",
            "--",
            "x",
        ]);
        assert_eq!(times(&guard), [5_000, 500, 1_500]);
        assert!(guard.duration_warnings().is_empty());
        let proxy = parse(&[
            "proxy",
            "--timeout",
            "2m",
            "--shutdown-grace",
            "3s",
            "--",
            "x",
        ]);
        assert_eq!(times(&proxy), [120_000, 3_000]);
        let sweep = parse(&[
            "sweep",
            "m.json",
            "--out",
            "o",
            "--timeout",
            "5s",
            "--setup-timeout",
            "1h",
            "--install-timeout",
            "90s",
        ]);
        assert_eq!(times(&sweep), [5_000, 3_600_000, 90_000]);
        let scan = parse(&["scan", "--live-timeout", "20s"]);
        assert_eq!(times(&scan), [20_000]);

        let bare = parse(&["guard", "--timeout", "5", "--settle", "300", "--", "x"]);
        assert_eq!(times(&bare), [5, 300, 0]);
        assert_eq!(
            bare.duration_warnings(),
            ["--timeout 5 is 5 milliseconds (a bare number is milliseconds); write 5s for seconds, or 5ms to keep it and silence this"]
        );
        let defaults = parse(&["proxy", "--", "x"]);
        assert_eq!(times(&defaults), [30_000, 2_000]);
        assert!(defaults.duration_warnings().is_empty());
    }
}
