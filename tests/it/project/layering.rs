//! The layers hold: engines and the modules below them never reach up into the command
//! layer, the renderers or GitHub's outputs, and never see clap; only the process layer
//! starts a shell; only the session layer speaks MCP as a client; no source file grows
//! past 600 lines.

use std::path::{Path, PathBuf};

/// Engines, and what they share below them.
const ENGINE_DIRS: &[&str] = &[
    "guard", "scan", "source", "surface", "proxy", "sweep", "session", "process", "protocol",
    "secrets", "net", "launch", "install",
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
    // Read from the `use` trees and paths, so a grouped import counts too.
    for (file, engine, named) in module_graph() {
        if !ENGINES.contains(&engine.as_str()) {
            continue;
        }
        for other in named.iter().filter(|o| ENGINES.contains(&o.as_str())) {
            used.push((engine.clone(), other.clone()));
            if !allowed.iter().any(|(f, t)| *f == engine && t == other) {
                bad.push(format!("{} uses {other}", file.display()));
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
    // The check sees a grouped import, and not a longer name.
    let named = Named::of(
        &src().join("scan/mod.rs"),
        "use crate::{guard, guardian::x};\n// crate::proxy",
    );
    assert!(named.contains("guard") && !named.contains("proxy"));
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

/// The crate's modules by floor, lowest first: a module names only its own floor's and
/// those below it (an arrow never runs back up). On a floor, the engines name one another
/// only as CONTRIBUTING.md lists (the test above).
const FLOORS: &[&[&str]] = &[
    &[
        "error",
        "text",
        "lazy_patterns",
        "shell",
        "duration",
        "protocol",
    ],
    &["process", "secrets"],
    &["finding", "catalog"],
    &[
        "session",
        "net",
        "gate",
        "upstream",
        "prints",
        "verdict",
        "launch",
        "install_faults",
        "install",
        "server_traffic",
        "frame_findings",
    ],
    &["surface", "source", "guard", "scan", "proxy", "sweep"],
    &["report"],
    &["fuzzing"],
    &["app"],
];

/// The one loop between modules the design needs: a finding names its code, and the
/// catalog's metadata names a finding's class and severity (CONTRIBUTING.md says why).
const ALLOWED_LOOP: [&str; 2] = ["catalog", "finding"];

fn floor_of(module: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&module))
}

/// The module path of a source file: `src/guard/checks/mod.rs` is `guard::checks`.
fn module_path(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src()).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every module of the crate a file names, by its top-level name: each `use` tree read
/// whole (groups, renames, globs), and every path in the code (`crate::report::x()`), with
/// `self::` and `super::` resolved from where they stand (inline modules included).
struct Named {
    here: Vec<String>,
    found: std::collections::BTreeSet<String>,
}

impl Named {
    fn of(file: &Path, text: &str) -> std::collections::BTreeSet<String> {
        let parsed = syn::parse_file(text)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", file.display()));
        let mut named = Named {
            here: module_path(file),
            found: Default::default(),
        };
        syn::visit::Visit::visit_file(&mut named, &parsed);
        named.found
    }

    fn resolve(&mut self, segments: &[String]) {
        let full: Vec<String> = match segments.first().map(String::as_str) {
            Some("crate") => segments[1..].to_vec(),
            Some("self") | Some("super") => {
                let mut base = self.here.clone();
                let mut rest = segments;
                while let Some(first) = rest.first() {
                    match first.as_str() {
                        "self" => {}
                        "super" => {
                            base.pop();
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                base
            }
            _ => return,
        };
        if let Some(top) = full.first() {
            self.found.insert(top.clone());
        }
    }

    fn tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.tree(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.resolve(&prefix.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.tree(t, prefix)),
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Named {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.tree(&item.tree, &mut Vec::new());
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.here.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.here.pop();
    }
}

/// Every source file with its top-level module and the modules it names.
fn module_graph() -> Vec<(PathBuf, String, std::collections::BTreeSet<String>)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files
        .into_iter()
        .filter(|f| !f.ends_with("lib.rs") && !f.ends_with("main.rs"))
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("read source");
            let module = module_path(&f).first().cloned().unwrap_or_default();
            let mut named = Named::of(&f, &text);
            named.remove(&module);
            (f, module, named)
        })
        .collect()
}

#[test]
fn no_module_names_one_on_a_higher_floor() {
    let mut bad = Vec::new();
    for (file, module, named) in module_graph() {
        let Some(own) = floor_of(&module) else {
            bad.push(format!(
                "{}: module `{module}` has no floor in FLOORS",
                file.display()
            ));
            continue;
        };
        for other in &named {
            match floor_of(other) {
                None => bad.push(format!(
                    "{} names `{other}`, which has no floor",
                    file.display()
                )),
                Some(f)
                    if f > own
                        && !(ALLOWED_LOOP.contains(&module.as_str())
                            && ALLOWED_LOOP.contains(&other.as_str())) =>
                {
                    bad.push(format!(
                        "{} ({module}, floor {own}) names {other} (floor {f})",
                        file.display()
                    ))
                }
                _ => {}
            }
        }
    }
    assert!(
        bad.is_empty(),
        "arrows that run back up:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_loop_spans_two_modules_but_the_catalogs() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, module, named) in module_graph() {
        edges.entry(module).or_default().extend(named);
    }
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(m) = stack.pop() {
            if m == to {
                return true;
            }
            if seen.insert(m.clone()) {
                stack.extend(edges.get(&m).into_iter().flatten().cloned());
            }
        }
        false
    };
    let mut loops = Vec::new();
    for (a, named) in &edges {
        for b in named {
            let allowed = ALLOWED_LOOP.contains(&a.as_str()) && ALLOWED_LOOP.contains(&b.as_str());
            if a < b && !allowed && reaches(b, a) {
                loops.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(loops.is_empty(), "modules in a loop: {loops:?}");
}

#[test]
fn grouped_nested_and_relative_imports_are_read() {
    let file = src().join("guard/checks/wire_schema.rs");
    let named = Named::of(
        &file,
        "use crate::{finding::Finding, report::{self, markdown}};\nuse super::super::super::app::cli as c;\nfn f() { crate::sweep::run(); }\nmod tests { use super::super::x; }",
    );
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["app", "finding", "guard", "report", "sweep"]
    );
}
