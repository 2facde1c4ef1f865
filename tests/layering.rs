//! The layers hold: engines and the modules below them never reach up into the command
//! layer, the renderers or GitHub's outputs, and never see clap; only the process layer
//! starts a shell; no source file grows past 600 lines.

use std::path::{Path, PathBuf};

/// Engines, and what they share below them.
const ENGINE_DIRS: &[&str] = &[
    "guard", "scan", "source", "surface", "proxy", "sweep", "session", "process", "protocol",
    "secrets", "net",
];
/// Neutral modules at the top of src/ that every layer may use.
const NEUTRAL_FILES: &[&str] = &[
    "finding.rs",
    "catalog.rs",
    "verdict.rs",
    "error.rs",
    "gate.rs",
    "lazy_patterns.rs",
    "prints.rs",
    "frame_findings.rs",
    "server_traffic.rs",
    "catalog/meta.rs",
    "upstream.rs",
];
/// What an engine file must not mention.
const FORBIDDEN: &[&str] = &[
    "crate::app",
    "crate::cli",
    "crate::report",
    "crate::github",
    "clap::",
    "use clap",
    "mcpcheck::app",
    // src/fuzzing is a test harness over the engines and renderers (it may use both); no
    // engine may lean on it.
    "crate::fuzzing",
];

const MAX_LINES: usize = 600;

/// Ways to start a shell that skip the process layer (its group, deadline and clean-up).
const RAW_SHELLS: &[&str] = &[
    "Command::new(\"sh\")",
    "Command::new(\"/bin/sh\")",
    "Command::new(\"bash\")",
    "Command::new(\"/bin/bash\")",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn engine_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ENGINE_DIRS {
        let path = src().join(dir);
        assert!(
            path.is_dir(),
            "engine folder src/{dir} is gone: update this test"
        );
        rust_files(&path, &mut files);
    }
    files.extend(NEUTRAL_FILES.iter().map(|f| src().join(f)));
    files
}

/// Where each forbidden name appears in `text`, outside comments.
fn violations(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for name in FORBIDDEN {
            if code.contains(name) {
                found.push((i + 1, *name));
            }
        }
    }
    found
}

#[test]
fn engines_never_import_the_command_layer_renderers_or_clap() {
    let mut bad = Vec::new();
    for file in engine_files() {
        let text = std::fs::read_to_string(&file).expect("read source");
        for (line, name) in violations(&text) {
            let shown = file
                .strip_prefix(src())
                .unwrap_or(&file)
                .display()
                .to_string();
            bad.push(format!("src/{shown}:{line} uses {name}"));
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn the_check_itself_sees_a_violation() {
    // So the test above cannot pass by looking at nothing.
    assert_eq!(
        violations(
            "use crate::report::guard::json;\n// crate::app in a comment\nuse clap::Parser;"
        ),
        [(1, "crate::report"), (3, "clap::"), (3, "use clap")]
    );
    assert!(engine_files().len() > 100, "found too few engine files");
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).expect("read").lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "split these by responsibility: {long:?}");
}

/// Lines of `text` (outside comments) that start a shell directly.
fn raw_shells(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or("");
            RAW_SHELLS.iter().any(|s| code.contains(s))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn only_the_process_layer_starts_a_shell() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let process = src().join("process");
    let mut bad = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&process)) {
        let text = std::fs::read_to_string(file).expect("read source");
        for line in raw_shells(&text) {
            bad.push(format!("{}:{line}", file.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "a shell started outside src/process (run it as a ServerCommand through the process layer, e.g. process::setup): {bad:?}"
    );
    // The check sees what it looks for.
    assert_eq!(
        raw_shells("let c = std::process::Command::new(\"sh\");\n// Command::new(\"sh\")"),
        [1]
    );
}

/// The engines proper (the shared layers below them may be used by any).
const ENGINES: &[&str] = &["guard", "scan", "source", "surface", "proxy", "sweep"];

/// Which engines each engine's files name (`crate::scan::…`, `use crate::guard;`).
fn engine_imports(engine: &str, text: &str) -> Vec<&'static str> {
    ENGINES
        .iter()
        .filter(|other| **other != engine)
        .filter(|other| {
            text.lines().any(|line| {
                let code = line.split("//").next().unwrap_or("");
                let name = format!("crate::{other}");
                code.match_indices(&name).any(|(i, _)| {
                    !code[i + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        })
        .copied()
        .collect()
}

/// The pairs CONTRIBUTING.md allows, from its lines "- `sweep` uses `guard`: why".
fn allowed_pairs() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("CONTRIBUTING.md"))
            .expect("CONTRIBUTING.md");
    text.lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| {
            let (from, rest) = l.split_once("` uses `")?;
            let (to, _) = rest.split_once('`')?;
            Some((from.to_string(), to.to_string()))
        })
        .collect()
}

#[test]
fn engines_use_each_other_only_as_contributing_lists() {
    let allowed = allowed_pairs();
    assert!(
        allowed.iter().any(|(f, t)| f == "sweep" && t == "guard"),
        "CONTRIBUTING.md lists no engine pairs: {allowed:?}"
    );
    let mut bad = Vec::new();
    let mut used = Vec::new();
    for engine in ENGINES {
        let mut files = Vec::new();
        rust_files(&src().join(engine), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read source");
            for other in engine_imports(engine, &text) {
                used.push((engine.to_string(), other.to_string()));
                if !allowed.iter().any(|(f, t)| f == engine && t == other) {
                    bad.push(format!("{} uses {other}", file.display()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "an engine uses another that CONTRIBUTING.md does not list (move the shared part below the engines, or list the pair with its reason): {bad:?}"
    );
    // A listed pair that nothing uses any more is stale documentation.
    let stale: Vec<_> = allowed.iter().filter(|p| !used.contains(p)).collect();
    assert!(
        stale.is_empty(),
        "CONTRIBUTING.md lists unused pairs: {stale:?}"
    );
    // The check sees what it looks for, and not a longer name.
    assert_eq!(
        engine_imports(
            "scan",
            "use crate::guard;\nuse crate::guardian::x; // crate::proxy"
        ),
        ["guard"]
    );
}
