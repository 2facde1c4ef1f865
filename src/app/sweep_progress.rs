//! The sweep's progress on stderr: a bar on a terminal, plain periodic lines otherwise or
//! under CI.

use crate::sweep::line::LineStatus;
use crate::sweep::SweepProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often a plain line is written while servers run.
const PLAIN_INTERVAL: Duration = Duration::from_secs(10);

pub struct Progress {
    out: String,
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    running: u64,
    tally: BTreeMap<String, u64>,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    /// Progress of a sweep writing to `out`.
    pub fn new(out: &str) -> Self {
        Self {
            out: out.to_string(),
            bar: None,
            total: 0,
            done: 0,
            running: 0,
            tally: BTreeMap::new(),
            started: Instant::now(),
            last_line: Instant::now(),
        }
    }

    fn bar(total: u64) -> Option<ProgressBar> {
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        (std::io::stderr().is_terminal() && !ci).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} · {msg}",
            ) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        })
    }
}

impl SweepProgress for Progress {
    fn begin(&mut self, total: u64, skipped: u64, jobs: usize) {
        self.total = total;
        self.bar = Self::bar(total);
        self.started = Instant::now();
        self.last_line = Instant::now();
        self.say(&format!(
            "mcpcheck sweep: {total} to check, {skipped} already in {}, {jobs} at a time",
            self.out
        ));
    }

    fn note(&mut self, text: &str) {
        self.say(text);
    }

    fn started(&mut self) {
        self.running += 1;
        self.refresh();
    }

    fn finished(&mut self, status: LineStatus) {
        if status.was_started() {
            self.running = self.running.saturating_sub(1);
        }
        self.done += 1;
        *self.tally.entry(status.as_str().to_string()).or_default() += 1;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            bar.set_message(self.counts());
        }
    }

    /// Called every second: a plain line when one is due.
    fn tick(&mut self) {
        if self.bar.is_none() && self.last_line.elapsed() >= PLAIN_INTERVAL {
            self.last_line = Instant::now();
            self.say(&self.status_line());
        }
    }
}

impl Progress {
    pub fn finish(&mut self, interrupted: Option<&str>) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        let mut line = self.status_line();
        if let Some(why) = interrupted {
            line.push_str(&format!(
                " · stopped by {why}; rerun with --resume to finish"
            ));
        }
        self.say(&line);
    }

    fn refresh(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(self.counts());
        }
    }

    fn counts(&self) -> String {
        let mut parts: Vec<String> = self.tally.iter().map(|(s, n)| format!("{s} {n}")).collect();
        parts.push(format!("{} running", self.running));
        parts.join(", ")
    }

    fn status_line(&self) -> String {
        format!(
            "mcpcheck sweep: {}/{} done ({}) · {:.0} s",
            self.done,
            self.total,
            self.counts(),
            self.started.elapsed().as_secs_f64()
        )
    }

    fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
    }
}
