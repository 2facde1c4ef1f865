//! Stray stdout traced to the source (`guard --scan`): each non-JSON or empty line on stdout
//! is matched against what every stdout write the source scan found would print, and the
//! writes that could have printed it are named on the finding, best first.

use super::GuardRun;
use crate::catalog::Code;
use crate::finding::{Finding, SourceWrite, TracedLine};
use crate::prints::PrintingWrite;
use crate::protocol::jsonrpc::LineContent;
use crate::session::transcript::Transcript;

/// The codes whose stdout line is a line the server printed.
const TRACED: &[Code] = &[Code::StdoutNonJson, Code::StdoutEmptyLine];

/// Candidates kept per line: more than a few means the text says too little to tell.
const MAX_CANDIDATES: usize = 5;

/// Lines traced per finding (a flood is one finding over thousands of lines).
const MAX_LINES: usize = 10;

impl GuardRun {
    /// Names, on each traced finding, the writes that could have printed its line (an empty
    /// list when none could: a finding is never pinned on a write that does not match).
    pub fn trace_stdout(&mut self, writes: &[PrintingWrite]) {
        let primary = &self.runs[0].transcript;
        for f in &mut self.findings {
            trace(f, primary, writes);
        }
        for run in &mut self.runs {
            let transcript = &run.transcript;
            for f in run
                .findings
                .iter_mut()
                .chain(run.checks.iter_mut().flat_map(|c| c.findings.iter_mut()))
            {
                trace(f, transcript, writes);
            }
        }
    }
}

impl GuardRun {
    /// When no source was scanned: says on each stray-stdout finding how to find the write
    /// that printed it, in the words of the front end (`--scan DIR`, the input `scan`).
    pub fn suggest_tracing(&mut self, how: &str) {
        let command = &self.command;
        let suggest = |f: &mut Finding| {
            // npm's banner is npm's own: no write in the server's source printed it.
            if TRACED.contains(&f.code)
                && f.location.stdout_line.is_some()
                && f.printed_by.is_none()
                && super::launch_hints::npm_banner_of(command, f).is_none()
            {
                let fix = f.fix.as_deref().unwrap_or(f.code.meta().help);
                f.fix = Some(format!("{fix} {how}"));
            }
        };
        self.findings.iter_mut().for_each(suggest);
        for run in &mut self.runs {
            run.findings
                .iter_mut()
                .chain(run.checks.iter_mut().flat_map(|c| c.findings.iter_mut()))
                .for_each(suggest);
        }
    }
}

fn trace(f: &mut Finding, transcript: &Transcript, writes: &[PrintingWrite]) {
    if !TRACED.contains(&f.code) || f.location.stdout_line.is_none() {
        return;
    }
    // A finding stands for every line of its kind (the stdio check groups them), from its
    // first line on.
    let first = f.location.stdout_line.unwrap_or(1);
    let traced: Vec<TracedLine> = transcript
        .frames
        .iter()
        .filter(|frame| frame.line >= first)
        .filter_map(|frame| match (&frame.content, f.code) {
            (LineContent::NonJson { text }, Code::StdoutNonJson) => {
                Some((frame.line, text.as_str()))
            }
            (LineContent::Empty, Code::StdoutEmptyLine) => Some((frame.line, "")),
            _ => None,
        })
        .take(MAX_LINES)
        .map(|(line, text)| TracedLine {
            stdout_line: line,
            writes: candidates(text, writes),
        })
        .collect();
    if !traced.is_empty() {
        f.printed_by = Some(traced);
    }
}

/// The writes whose output can be `line`, most literal text matched first, then in file
/// order. A write that is all holes (`console.log(message)`) could print anything, so it
/// names nothing; an empty line is matched only by writes that print an empty line.
pub fn candidates(line: &str, writes: &[PrintingWrite]) -> Vec<SourceWrite> {
    let mut ranked: Vec<(usize, &SourceWrite)> = writes
        .iter()
        .filter_map(|w| {
            w.prints
                .lines()
                .iter()
                .filter(|p| (p.literal_chars() > 0 || !p.has_hole()) && p.matches(line))
                .map(|p| p.literal_chars())
                .max()
                .map(|score| (score, &w.write))
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| (&a.1.file, a.1.line).cmp(&(&b.1.file, b.1.line)))
    });
    // The code shown is the server's own source: a credential written in it stays masked.
    ranked
        .into_iter()
        .take(MAX_CANDIDATES)
        .map(|(_, w)| SourceWrite {
            code: crate::secrets::redact(&w.code),
            ..w.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prints::Pattern;

    fn write(line: u64, prints: Pattern) -> PrintingWrite {
        PrintingWrite {
            write: SourceWrite {
                file: "src/index.js".into(),
                line,
                column: 1,
                code: format!("write {line}"),
            },
            prints,
        }
    }

    #[test]
    fn the_most_specific_match_comes_first_and_others_that_cannot_print_it_are_left_out() {
        let writes = [
            write(3, Pattern::literal("Usage: server [--port N]")),
            write(5, Pattern::hole()),
            write(7, Pattern::literal("Server ").then(Pattern::hole())),
            write(
                9,
                Pattern::literal("Server started on port ").then(Pattern::hole()),
            ),
        ];
        let found = candidates("Server started on port 8080", &writes);
        assert_eq!(found.iter().map(|w| w.line).collect::<Vec<_>>(), [9, 7]);
        assert!(candidates("something else", &writes).is_empty());
    }

    #[test]
    fn a_credential_in_the_code_shown_is_masked() {
        let mut w = write(4, Pattern::literal("token ").then(Pattern::hole()));
        let secret = format!("ghp_{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6");
        w.write.code = format!("console.log('token ' + '{secret}')");
        let found = candidates("token x", &[w]);
        assert_eq!(found.len(), 1);
        assert!(!found[0].code.contains(&secret), "{found:?}");
        assert!(
            found[0].code.starts_with("console.log('token ' + '"),
            "{found:?}"
        );
    }

    #[test]
    fn an_empty_line_is_traced_only_to_writes_of_an_empty_line() {
        let writes = [
            write(2, Pattern::hole()),
            write(4, Pattern::default()),
            write(6, Pattern::literal("a\n\nb")),
        ];
        let found = candidates("", &writes);
        assert_eq!(found.iter().map(|w| w.line).collect::<Vec<_>>(), [4, 6]);
    }
}
