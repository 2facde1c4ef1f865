//! The layers hold: engines and the modules below them never reach up into the command
//! layer, the renderers or GitHub's outputs, and never see clap; only the process layer
//! starts a shell; only the session layer speaks MCP as a client; no source file grows
//! past 600 lines.

use std::path::{Path, PathBuf};

/// Engines, and what they share below them.
const ENGINE_DIRS: &[&str] = &[
    "guard", "scan", "source", "surface", "proxy", "sweep", "session", "process", "protocol",
    "secrets", "net", "launch",
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
    "install_faults.rs",
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

/// Lines of `text` whose code (outside comments) holds any of `needles`, 1-based.
fn lines_holding(text: &str, needles: &[&str]) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or("");
            needles.iter().any(|s| code.contains(s))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

/// Every `src/` file but those `exempt` says, with the lines `find` reports, as `file:line`.
fn offending_lines(
    exempt: impl Fn(&Path) -> bool,
    find: impl Fn(&str) -> Vec<usize>,
) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut bad = Vec::new();
    for file in files.iter().filter(|f| !exempt(f)) {
        let text = std::fs::read_to_string(file).expect("read source");
        for line in find(&text) {
            bad.push(format!("{}:{line}", file.display()));
        }
    }
    bad
}

/// Lines of `text` (outside comments) that start a shell directly.
fn raw_shells(text: &str) -> Vec<usize> {
    lines_holding(text, RAW_SHELLS)
}

#[test]
fn only_the_process_layer_starts_a_shell() {
    let process = src().join("process");
    let bad = offending_lines(|f| f.starts_with(&process), raw_shells);
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

/// Lines of `text` (outside comments) that build a tokio runtime.
fn runtime_builds(text: &str) -> Vec<usize> {
    lines_holding(
        text,
        &[
            "Builder::new_current_thread",
            "Builder::new_multi_thread",
            "Runtime::new(",
        ],
    )
}

#[test]
fn only_the_command_layer_builds_a_runtime() {
    let home = src().join("app").join("io.rs");
    let bad = offending_lines(|f| f == home, runtime_builds);
    assert!(
        bad.is_empty(),
        "a tokio runtime built outside src/app/io.rs (make the engine async and run it on app::io::runtime): {bad:?}"
    );
    assert_eq!(
        runtime_builds("let r = tokio::runtime::Builder::new_current_thread();\n// Runtime::new()"),
        [1]
    );
}

/// Functions of `text` (before its tests) whose error is a bare `String`.
fn string_errors(text: &str) -> Vec<usize> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.split("//").next().unwrap_or("");
            line.contains("-> ")
                && line.contains("Result<")
                && line
                    .trim_end()
                    .trim_end_matches(['{', ' '])
                    .ends_with(", String>")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn no_function_returns_a_bare_string_as_its_error() {
    let bad = offending_lines(|_| false, string_errors);
    assert!(
        bad.is_empty(),
        "give these errors a type (crate::error::Error, or one of the module's own): {bad:?}"
    );
    assert_eq!(
        string_errors("fn a() -> Result<(), String> {\nfn b() -> Result<String, Error> {"),
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

/// The session layer and the protocol below it own the MCP client: the handshake and the
/// Streamable HTTP session headers.
const CLIENT_DIRS: &[&str] = &["session", "protocol"];
/// Whole string literals that open an MCP session.
const HANDSHAKE: &[&str] = &[
    "\"initialize\"",
    "\"notifications/initialized\"",
    "\"server/discover\"",
    "\"clientInfo\"",
];
/// What carries bytes to a server without the session: an HTTP client, a socket, a child's
/// stdin.
const TRANSPORTS: &[&str] = &[
    "ureq::",
    "reqwest::",
    "hyper::",
    "hyper_util::",
    "TcpStream",
    "std::process::Command",
    "tokio::process",
    "ChildStdin",
    "GroupLeader::spawn",
];
/// Whole string literals (any case) that only a Streamable HTTP client reads or sets.
const SESSION_HEADERS: &[&str] = &[
    "\"mcp-session-id\"",
    "\"mcp-protocol-version\"",
    "\"last-event-id\"",
];

/// Why `text` looks like a second MCP client: a handshake next to a transport of its own,
/// or the session's headers.
fn second_client(text: &str) -> Vec<String> {
    let code: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    let has = |needle: &str| code.iter().any(|l| l.contains(needle));
    let mut why = Vec::new();
    let handshake: Vec<&str> = HANDSHAKE.iter().copied().filter(|h| has(h)).collect();
    let transport: Vec<&str> = TRANSPORTS.iter().copied().filter(|t| has(t)).collect();
    if !handshake.is_empty() && !transport.is_empty() {
        why.push(format!(
            "sends {} over {} itself",
            handshake.join(", "),
            transport.join(", ")
        ));
    }
    for header in SESSION_HEADERS {
        if code.iter().any(|l| l.to_ascii_lowercase().contains(header)) {
            why.push(format!("handles the header {header}"));
        }
    }
    why
}

#[test]
fn only_the_session_layer_speaks_mcp_as_a_client() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut bad = Vec::new();
    for file in &files {
        let shown = file.strip_prefix(src()).unwrap_or(file);
        if CLIENT_DIRS.iter().any(|d| shown.starts_with(d)) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read source");
        for why in second_client(&text) {
            bad.push(format!("src/{}: {why}", shown.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "a second MCP client outside src/session/ (drive a session::Session instead):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_client_check_sees_a_second_client() {
    // So the test above cannot pass by looking at nothing: the shape of the HTTP lister
    // `scan --live` once had beside the session layer.
    let lister = r#"
        let agent: ureq::Agent = client::agent(t, t);
        let init = c.request("initialize", Some(params))?;
        c.notify("notifications/initialized")?;
        req = req.header("Mcp-Session-Id", s.as_str());
    "#;
    assert_eq!(
        second_client(lister),
        [
            "sends \"initialize\", \"notifications/initialized\" over ureq:: itself",
            "handles the header \"mcp-session-id\"",
        ]
    );
    // Judging a transcript's handshake, or a registry look-up, is not a client.
    assert!(second_client(r#"if method == "initialize" { n += 1 }"#).is_empty());
    assert!(second_client("let a: ureq::Agent = agent(); a.post(url)").is_empty());
    assert!(second_client(r#"// c.request("initialize") over ureq::Agent"#).is_empty());
}
