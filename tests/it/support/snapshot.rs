//! Snapshot helpers: run the real binary, and pin its output with insta, every part that
//! varies between runs or machines (paths, times, versions, platform) redacted by filters.

use std::path::Path;
use std::process::{Command, Output};

/// What one run of the binary left: exit code and both streams, as text.
pub struct Run {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(cmd: &mut Command) -> Run {
    finish(cmd.output().expect("run mcpcheck"))
}

pub fn finish(out: Output) -> Run {
    Run {
        exit: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

/// A path as a regex, in its plain form and in the Markdown-escaped form (`\/`, `\.`,
/// `\-`, `\_`) the Markdown renderers give text outside code spans.
fn path_pattern(path: &str) -> String {
    let plain = regex::escape(path);
    let escaped: String = path
        .chars()
        .map(|c| match c {
            '/' | '.' | '-' | '_' => format!(r"\\\{c}"),
            c => regex::escape(&c.to_string()),
        })
        .collect();
    format!("(?:{plain}|{escaped})")
}

/// Settings that redact paths and versions; `dirs` are temporary directories of the test,
/// each shown as `[dir]` (canonical and as given). For output computed from fixed input.
pub fn exact_settings(dirs: &[&Path]) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots");
    s.set_prepend_module_to_snapshot(false);
    // The ref rule links name: the release tag, or the commit this build was made from.
    s.add_filter(
        &regex::escape(concat!(
            "/blob/",
            env!("MCPCHECK_SOURCE_REF"),
            "/docs/rules/"
        )),
        "/blob/[ref]/docs/rules/",
    );
    // Longest paths first: the binary lives inside the repository.
    s.add_filter(&path_pattern(env!("CARGO_BIN_EXE_mcpcheck")), "[mcpcheck]");
    for dir in dirs {
        let canonical = dir.canonicalize().expect("canonical temporary directory");
        for p in [canonical.as_path(), *dir] {
            s.add_filter(&path_pattern(&p.display().to_string()), "[dir]");
        }
    }
    s.add_filter(&path_pattern(env!("CARGO_MANIFEST_DIR")), "[repo]");
    // mcpcheck's own version (the report, SARIF driver, generatedBy, init's `@vX.Y.Z`).
    let version = regex::escape(env!("CARGO_PKG_VERSION"));
    s.add_filter(
        &format!(r"(^|[^0-9.]){version}([^0-9.]|$)"),
        "${1}[version]${2}",
    );
    s.add_filter(r#""platform":( ?)"[^"]*""#, r#""platform":$1"[platform]""#);
    // The fingerprint's system facts differ per machine.
    s.add_filter(r#""(arch|osRelease)":( ?)"[^"]*""#, r#""$1":$2"[system]""#);
    // The server's pid differs per run.
    s.add_filter(r#""pid":( ?)\d+"#, r#""pid":$1"[pid]""#);
    // The runtime's version, as the machine's interpreter prints it.
    s.add_filter(
        r#""version":( ?)"Python \d[^"]*""#,
        r#""version":$1"[python version]""#,
    );
    s
}

/// [`exact_settings`] plus the times a live run measures.
pub fn settings(dirs: &[&Path]) -> insta::Settings {
    let mut s = exact_settings(dirs);
    // Times measured by the run: JSON fields, and human `123 ms`, `1.2 s`, `201.1ms` with
    // the padding that aligns them.
    s.add_filter(
        r#""(latencyMs|durationMs|wallMs|startupMs|totalMs|spawnMs|initializeMs|listsMs|requestsMs|settlingMs|shutdownMs|sessionsMs|bufferingCheckMs|matrixMs|probesMs|p50|p90|p99|max)":( ?)\d+(\.\d+)?"#,
        r#""$1":$2"[ms]""#,
    );
    s.add_filter(r" +\d+(\.\d+)? ?ms\b", " [ms]");
    s.add_filter(r"\b\d+(\.\d+)? ?ms\b", "[ms]");
    s.add_filter(r" +\d+(\.\d+)? s\b", " [s]");
    s.add_filter(r"\b\d+(\.\d+)? s\b", "[s]");
    s.add_filter(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
        "[timestamp]",
    );
    s
}
