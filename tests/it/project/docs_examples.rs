//! Every command example in README.md, CONTRIBUTING.md and docs/ is one the binary accepts:
//! each `mcpcheck …` line of a `sh` block parses with the real command line (so no flag,
//! value or subcommand in the docs is stale), and each `console` block is run and its
//! output compared, with `...` standing for any lines (as trycmd does) and durations
//! (`422 ms`) for any duration, so a page shows real output, never a placeholder. A block
//! of any other language holding a `$ mcpcheck` line fails: every example is run.

use crate::support;
use support::docs::{documents, shown};
use support::repo;

use clap::Parser;
use std::path::Path;

/// Fenced blocks: (language, first line number, body lines).
fn blocks(text: &str) -> Vec<(String, usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            match open.take() {
                Some(block) => out.push(block),
                None => open = Some((rest.trim().to_string(), i + 2, Vec::new())),
            }
        } else if let Some((_, _, body)) = open.as_mut() {
            body.push(line.to_string());
        }
    }
    out
}

/// Shell lines of a block with `\` continuations joined.
fn logical_lines(body: &[String]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    for (i, line) in body.iter().enumerate() {
        if current.is_empty() {
            start = i;
        }
        let line = line.trim();
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
        } else {
            current.push_str(line);
            out.push((start, std::mem::take(&mut current)));
        }
    }
    out
}

/// The `mcpcheck …` invocation in a shell line (`mcpcheck …`, `./target/release/mcpcheck …`,
/// `uvx mcpcheck …`, `npx mcpcheck …`, a YAML `run: mcpcheck …`), up to the first shell
/// operator.
fn invocation(line: &str) -> Option<Vec<String>> {
    let line = line
        .trim()
        .trim_start_matches("$ ")
        .trim_start_matches("- ");
    let line = line.strip_prefix("run: ").unwrap_or(line);
    let cut = [" | ", " > ", " 2>", " && ", " || ", "; ", " >> "]
        .iter()
        .filter_map(|op| line.find(op))
        .min()
        .unwrap_or(line.len());
    let words = shell_words::split(&line[..cut]).ok()?;
    let is_binary = |w: &str| w == "mcpcheck" || w.ends_with("/mcpcheck");
    match words.as_slice() {
        [first, ..] if is_binary(first) => Some(words),
        [runner, second, ..] if (runner == "uvx" || runner == "npx") && second == "mcpcheck" => {
            Some(words[1..].to_vec())
        }
        _ => None,
    }
}

#[test]
fn every_documented_command_line_parses() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("read");
        let shown = shown(&file);
        for (lang, first, body) in blocks(&text) {
            if !matches!(lang.as_str(), "sh" | "bash" | "shell" | "console" | "yaml") {
                continue;
            }
            for (offset, line) in logical_lines(&body) {
                let Some(argv) = invocation(&line) else {
                    continue;
                };
                // A placeholder such as <CMD> is not something to run.
                if argv.iter().any(|a| a.contains('<') || a.contains("${{")) {
                    continue;
                }
                seen += 1;
                if let Err(e) = mcpcheck::app::cli::Cli::try_parse_from(&argv) {
                    use clap::error::ErrorKind;
                    if !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                        let why = e.render().to_string();
                        let why = why.lines().next().unwrap_or("").to_string();
                        bad.push(format!("{shown}:{}: `{line}`: {why}", first + offset));
                    }
                }
            }
        }
    }
    assert!(seen >= 8, "found only {seen} documented command lines");
    assert!(
        bad.is_empty(),
        "documented commands the binary refuses:\n{}",
        bad.join("\n")
    );
}

/// A line with every duration (`  106 ms`, its alignment included) as ` <ms>`.
fn without_durations(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(" ms") {
        let head = &rest[..at];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let after = &rest[at + 3..];
        let word_ends = after.chars().next().is_none_or(|c| !c.is_alphanumeric());
        if digits == 0 || !word_ends {
            out.push_str(&rest[..at + 3]);
        } else {
            out.push_str(head[..head.len() - digits].trim_end_matches(' '));
            out.push_str(" <ms>");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Compares output with the expected text: `...` alone matches any lines, a duration any
/// duration, and `[..]` any text within a line (for this file's own tests; pages show
/// real output).
fn matches(expected: &[String], actual: &str) -> bool {
    fn line_matches(pattern: &str, line: &str) -> bool {
        let (pattern, line) = (without_durations(pattern), without_durations(line));
        let (pattern, line) = (pattern.as_str(), line.as_str());
        let parts: Vec<&str> = pattern.split("[..]").collect();
        if parts.len() == 1 {
            return pattern == line;
        }
        let mut rest = line;
        for (i, part) in parts.iter().enumerate() {
            if i == 0 {
                let Some(r) = rest.strip_prefix(part) else {
                    return false;
                };
                rest = r;
            } else if i == parts.len() - 1 {
                return rest.ends_with(part);
            } else {
                let Some(at) = rest.find(part) else {
                    return false;
                };
                rest = &rest[at + part.len()..];
            }
        }
        true
    }
    fn go(expected: &[String], actual: &[&str]) -> bool {
        match expected.split_first() {
            None => actual.is_empty(),
            Some((first, rest)) if first.trim() == "..." => {
                (0..=actual.len()).any(|skip| go(rest, &actual[skip..]))
            }
            Some((first, rest)) => actual
                .split_first()
                .is_some_and(|(line, more)| line_matches(first, line) && go(rest, more)),
        }
    }
    let actual: Vec<&str> = actual.lines().collect();
    go(expected, &actual)
}

#[test]
fn console_examples_print_what_the_docs_say() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("read");
        let shown = shown(&file);
        for (lang, first, body) in blocks(&text) {
            if lang != "console" {
                if body
                    .iter()
                    .any(|l| l.trim_start().starts_with("$ mcpcheck"))
                {
                    failures.push(format!(
                        "{shown}:{first}: a `{lang}` block runs mcpcheck: make it `console` so it is run"
                    ));
                }
                continue;
            }
            if let Some(at) = body.iter().position(|l| l.contains("[..]")) {
                failures.push(format!(
                    "{shown}:{}: `[..]` would be read as output; show real output (durations match any duration)",
                    first + at
                ));
            }
            // `$ command` lines, each followed by its expected output.
            let mut i = 0;
            while i < body.len() {
                let Some(cmd) = body[i].strip_prefix("$ ") else {
                    i += 1;
                    continue;
                };
                let mut expected = Vec::new();
                let mut j = i + 1;
                while j < body.len() && !body[j].starts_with("$ ") {
                    expected.push(body[j].clone());
                    j += 1;
                }
                let argv = shell_words::split(cmd).expect("shell words");
                assert_eq!(
                    argv[0],
                    "mcpcheck",
                    "{shown}:{}: console examples run mcpcheck",
                    first + i
                );
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
                    .args(&argv[1..])
                    .current_dir(repo())
                    .env_remove("NO_COLOR")
                    .env_remove("CLICOLOR_FORCE")
                    .env_remove("PYTHONUNBUFFERED")
                    .output()
                    .expect("run mcpcheck");
                let mut actual = String::from_utf8_lossy(&out.stdout).into_owned();
                actual.push_str(&String::from_utf8_lossy(&out.stderr));
                ran += 1;
                if !matches(&expected, &actual) {
                    failures.push(format!(
                        "{shown}:{}: `{cmd}` printed:\n{actual}\nexpected:\n{}",
                        first + i,
                        expected.join("\n")
                    ));
                }
                i = j;
            }
        }
    }
    assert!(ran >= 3, "only {ran} console examples ran");
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn the_matcher_is_strict_where_it_should_be() {
    let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    assert!(matches(
        &lines("PASS [..] in 3 ms\n...\nend"),
        "PASS x in 5 ms\na\nb\nend"
    ));
    assert!(!matches(&lines("PASS"), "FAIL"));
    assert!(!matches(&lines("a\nb"), "a"));
    assert!(matches(&lines("a\n..."), "a\nb\nc"));
    assert!(matches(
        &lines("  initialize   result         106 ms"),
        "  initialize   result           0 ms"
    ));
    assert!(!matches(&lines("took 5 ms"), "took 5 s"));
    assert_eq!(
        without_durations("3 items · 12 ms · 4 msgs"),
        "3 items · <ms> · 4 msgs"
    );
}

#[test]
fn every_relative_link_resolves() {
    let mut bad = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("read");
        let shown = shown(&file);
        let dir = file.parent().unwrap_or(Path::new("."));
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = after.find(')') else { break };
                let target = &after[..end];
                rest = &after[end..];
                if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                    continue;
                }
                let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
                let target_file = if path.is_empty() {
                    file.clone()
                } else {
                    dir.join(path)
                };
                if !target_file.exists() {
                    bad.push(format!("{shown}:{}: {target}: no such file", n + 1));
                    continue;
                }
                if !anchor.is_empty() && target_file.extension().is_some_and(|e| e == "md") {
                    let body = std::fs::read_to_string(&target_file).expect("read target");
                    if !anchors(&body).iter().any(|a| a == anchor) {
                        bad.push(format!("{shown}:{}: {target}: no such heading", n + 1));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

/// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, with
/// `-1`, `-2` for repeats.
fn anchors(markdown: &str) -> Vec<String> {
    let mut counts = std::collections::HashMap::<String, usize>::new();
    let mut out = Vec::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = counts.entry(slug.clone()).or_insert(0);
        out.push(if *n == 0 { slug } else { format!("{slug}-{n}") });
        *n += 1;
    }
    out
}

#[test]
fn the_readme_opens_with_two_commands_and_the_first_runs_as_written() {
    // Issue 44 item 14: a newcomer's set-up took three steps. The README's first block is
    // two commands: build and check the bundled server, then the tests. The first runs here
    // as written, with this test's build standing for `cargo run --release --`.
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let (_, line, body) = blocks(&readme)
        .into_iter()
        .next()
        .expect("README.md has a code block");
    let commands = logical_lines(&body);
    let shown: Vec<&str> = commands.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(
        shown,
        [
            "cargo run --release -- guard -- python3 examples/servers/hello.py",
            "scripts/test"
        ],
        "README.md:{line}"
    );
    let args = shell_words::split(
        shown[0]
            .strip_prefix("cargo run --release -- ")
            .expect("cargo run"),
    )
    .expect("words");
    let out = support::mcpcheck_in(&repo())
        .args(&args)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.starts_with("PASS  mcpcheck guard: python3 examples/servers/hello.py"),
        "{stdout}"
    );
    // The second is the suite's own entry point.
    use std::os::unix::fs::PermissionsExt;
    let test = std::fs::metadata(repo().join(shown[1])).expect("scripts/test");
    assert!(
        test.permissions().mode() & 0o111 != 0,
        "scripts/test is executable"
    );
}

#[test]
fn the_install_page_says_what_works_before_any_release() {
    // Issue 44 item 12: docs/install.md gave `uvx mcpcheck`, `pip install mcpcheck`,
    // `npx mcpcheck` as working commands; nothing is published yet.
    let page = std::fs::read_to_string(repo().join("docs/install.md")).expect("install.md");
    let today = page
        .split("## What works today\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/install.md has a \"What works today\" section");
    let first_channel = page.find("## Python servers").expect("the channels");
    assert!(
        page.find("## What works today").expect("section") < first_channel,
        "what works today comes before the channels"
    );
    assert!(today.contains("No release has been made yet"), "{today}");
    for workflow in ["release.yml", "packages.yml"] {
        assert!(
            repo().join(".github/workflows").join(workflow).is_file(),
            "{workflow}"
        );
        assert!(today.contains(workflow), "names {workflow}: {today}");
    }
    for works in [
        "cargo install --locked --path .",
        "docker build -t mcpcheck .",
    ] {
        assert!(today.contains(works), "{works}: {today}");
    }
}
