//! What a stopped or hung server's stderr says about why: the line that names the error,
//! with the lines after it, and the last lines — shown under the finding, since the last
//! lines alone are often a stack's closing brace or the runtime's version (`Node.js v20`).

use crate::finding::excerpt;
use regex::Regex;
use std::sync::LazyLock;

/// An exception or error line as runtimes print them: `Error: …`, `TypeError: …`,
/// `ModuleNotFoundError: …`, `java.lang.IllegalStateException: …`.
static ERROR_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?:Uncaught )?(?:[A-Za-z_][\w.$]*)?(?:Error|Exception)\b").ok());

/// Lines that open a crash when no error line is found: a panic, a traceback, a fatal.
const OPENERS: [&str; 5] = [
    "panicked at",
    "Traceback (most recent call last)",
    "fatal error",
    "FATAL",
    "error:",
];
/// Lines kept after the error line (its stack or message).
const AFTER: usize = 3;
/// Traceback frames kept before a Python exception line.
const BEFORE_IN_TRACEBACK: usize = 2;
/// The last lines, always kept.
const TAIL: usize = 3;
/// Characters kept of each line.
const LINE_CHARS: usize = 300;

/// The finding's one-line evidence and the excerpt shown under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StderrCause {
    pub evidence: String,
    pub excerpt: Vec<String>,
}

pub(crate) fn stderr_cause(text: &str) -> Option<StderrCause> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let error_line = |l: &&str| {
        ERROR_LINE
            .as_ref()
            .is_some_and(|re| re.is_match(l.trim_start()))
    };
    let cause = lines
        .iter()
        .position(|l| error_line(l) && !l.starts_with(char::is_whitespace))
        .or_else(|| lines.iter().position(error_line))
        .or_else(|| {
            lines
                .iter()
                .position(|l| OPENERS.iter().any(|o| l.contains(o)))
        });
    let tail_from = lines.len().saturating_sub(TAIL);
    let mut keep: Vec<usize> = Vec::new();
    if let Some(at) = cause {
        let in_traceback = lines[..at].iter().any(|l| l.starts_with("Traceback"));
        let from = if in_traceback {
            at.saturating_sub(BEFORE_IN_TRACEBACK)
        } else {
            at
        };
        keep.extend(from..(at + 1 + AFTER).min(lines.len()));
    }
    keep.extend(tail_from..lines.len());
    keep.sort_unstable();
    keep.dedup();
    let mut excerpt_lines = Vec::new();
    if keep.first().is_some_and(|&first| first > 0) {
        excerpt_lines.push("…".to_string());
    }
    for (n, &i) in keep.iter().enumerate() {
        if n > 0 && keep[n - 1] + 1 != i {
            excerpt_lines.push("…".to_string());
        }
        excerpt_lines.push(excerpt(lines[i], LINE_CHARS));
    }
    let evidence = match cause {
        Some(at) => format!("stderr: {}", lines[at].trim()),
        None => format!("stderr: {}", lines[tail_from..].join(" | ")),
    };
    Some(StderrCause {
        evidence,
        excerpt: excerpt_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_missing_module_names_the_error_line_not_the_version_banner() {
        let text = "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/srv/dist/index.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at Module._load (node:internal/modules/cjs/loader:1051:27)\n    at Function.executeUserEntryPoint (node:internal/modules/run_main:174:12)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2\n";
        let cause = stderr_cause(text).expect("a cause");
        assert_eq!(
            cause.evidence,
            "stderr: Error: Cannot find module '/srv/dist/index.js'"
        );
        assert_eq!(cause.excerpt[0], "…");
        assert_eq!(
            cause.excerpt[1],
            "Error: Cannot find module '/srv/dist/index.js'"
        );
        assert_eq!(
            cause.excerpt.last().map(String::as_str),
            Some("Node.js v20.20.2")
        );
        assert!(cause.excerpt.contains(&"…".to_string()));
    }

    #[test]
    fn a_python_traceback_keeps_its_last_frames_and_the_exception() {
        let text = "Traceback (most recent call last):\n  File \"/srv/server.py\", line 2, in <module>\n    import missing_dep\nModuleNotFoundError: No module named 'missing_dep'\n";
        let cause = stderr_cause(text).expect("a cause");
        assert_eq!(
            cause.evidence,
            "stderr: ModuleNotFoundError: No module named 'missing_dep'"
        );
        assert_eq!(
            cause.excerpt,
            [
                "…",
                "  File \"/srv/server.py\", line 2, in <module>",
                "    import missing_dep",
                "ModuleNotFoundError: No module named 'missing_dep'"
            ]
        );
    }

    #[test]
    fn a_rust_panic_and_plain_text_are_shown_too() {
        let text = "starting\nthread 'main' panicked at src/main.rs:3:5:\nno config\nnote: run with `RUST_BACKTRACE=1`\n";
        let cause = stderr_cause(text).expect("a cause");
        assert_eq!(
            cause.evidence,
            "stderr: thread 'main' panicked at src/main.rs:3:5:"
        );
        assert_eq!(
            cause.excerpt[1],
            "thread 'main' panicked at src/main.rs:3:5:"
        );
        let plain = stderr_cause("a\nb\nc\nd\n").expect("a tail");
        assert_eq!(plain.evidence, "stderr: b | c | d");
        assert_eq!(plain.excerpt, ["…", "b", "c", "d"]);
        assert_eq!(stderr_cause("\n  \n"), None);
    }
}
