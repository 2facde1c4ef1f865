//! Messages count properly: `1 file`, `2 files`, never `file(s)`. Every string literal in
//! src/ is read for a word with `(s)` or `(es)` glued to it (`http(s)` is a scheme, not a
//! plural); a count is written with `finding::plural` or `frame_findings::plural`.

use std::path::{Path, PathBuf};

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

/// The text inside the string literals of one line (`"..."`, escapes kept as written).
fn literals(line: &str) -> String {
    let mut out = String::new();
    let (mut inside, mut escaped) = (false, false);
    for c in line.chars() {
        match (inside, escaped, c) {
            (true, false, '\\') => escaped = true,
            (_, false, '"') => {
                inside = !inside;
                out.push(' ');
            }
            (true, _, c) => {
                escaped = false;
                out.push(c);
            }
            _ => {}
        }
    }
    out
}

/// Words written as `word(s)` or `word(es)` in the string literals of a line, outside
/// `http(s)` and calls in code snippets.
fn hedged_plurals(line: &str) -> Vec<String> {
    let line = &literals(line);
    let mut out = Vec::new();
    for suffix in ["(s)", "(es)"] {
        let mut from = 0;
        while let Some(at) = line[from..].find(suffix) {
            let at = from + at;
            let word: String = line[..at]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            // `.log(s)` inside a snippet of source code is a call, not a plural.
            let call = line[..at - word.len()].ends_with('.');
            if !word.is_empty() && word != "http" && !call {
                out.push(format!("{word}{suffix}"));
            }
            from = at + suffix.len();
        }
    }
    out
}

#[test]
fn no_message_hedges_a_plural() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for word in hedged_plurals(line) {
                found.push(format!("{}:{}: {word}", file.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "write the count with plural():\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_hedged_plural() {
    assert_eq!(
        hedged_plurals("\"{} server(s) from {} file(s)\""),
        ["server(s)", "file(s)"]
    );
    assert!(hedged_plurals("\"an http(s) URL\", Some(s)").is_empty());
    assert!(hedged_plurals("\"console.log(s);\"").is_empty());
}
