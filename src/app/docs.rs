//! The parts of README.md and docs/ that the code knows: the usage lines and option tables
//! from clap, the code table and the rule tables (`docs_rules`) from the catalog. Each sits between a pair of markers
//! (`<!-- generated:NAME -->` … `<!-- end:NAME -->`); a test fails when the committed text
//! differs, and `MCPCHECK_UPDATE_DOCS=1 cargo test --test it project::docs_generated` rewrites it.

use super::cli::Cli;
use crate::catalog;
use clap::CommandFactory;
use std::fmt::Write;

/// Every generated section, by marker name.
pub fn sections() -> Vec<(String, String)> {
    let mut out = vec![
        ("usage".to_string(), usage()),
        ("codes".to_string(), codes()),
        ("clients".to_string(), crate::report::clients_doc::matrix()),
        (
            "config-tuning".to_string(),
            format!(
                "| Key | Type | Meaning |\n|---|---|---|\n{}",
                crate::session::tuning::Tuning::config_rows()
            ),
        ),
        (
            "action-workflow".to_string(),
            format!("```yaml\n{}```\n", super::init::documented_workflow()),
        ),
    ];
    let mut cli = Cli::command();
    cli.build();
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        out.push((format!("options:{}", sub.get_name()), options(sub)));
    }
    out
}

/// One line per subcommand, as `--help` names it.
fn usage() -> String {
    let mut cli = Cli::command();
    cli.build();
    let mut out = String::from("```text\n");
    for sub in cli.get_subcommands_mut().filter(|s| s.get_name() != "help") {
        let line = sub.render_usage().to_string();
        let line = line.trim_start_matches("Usage: ").trim();
        let _ = writeln!(out, "{line}");
    }
    out.push_str("```\n");
    out
}

/// `mcpcheck rules` as a Markdown table.
fn codes() -> String {
    let mut out = String::from("| Code | Default severity | Class | Title |\n|---|---|---|---|\n");
    for code in catalog::ALL {
        let m = code.meta();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            m.code,
            code.severity().as_str(),
            m.class.as_str(),
            m.title.replace('|', "\\|")
        );
    }
    out
}

/// A subcommand's options: flag, default and help, as `--help` has them.
fn options(cmd: &clap::Command) -> String {
    let mut out = String::from("| Option | Default | Meaning |\n|---|---|---|\n");
    for arg in cmd.get_arguments() {
        // `--color` is global: docs/options.md names it once.
        if arg.is_hide_set()
            || arg.is_positional()
            || ["help", "color"].contains(&arg.get_id().as_str())
        {
            continue;
        }
        let mut flag = match (arg.get_long(), arg.get_short()) {
            (Some(l), _) => format!("--{l}"),
            (None, Some(s)) => format!("-{s}"),
            (None, None) => continue,
        };
        let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
        if takes_value {
            let names = arg
                .get_value_names()
                .map(|v| {
                    v.iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
            let _ = write!(flag, " {names}");
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        let mut help = arg
            .get_help()
            .map(|h| h.to_string())
            .unwrap_or_default()
            .replace('\n', " ");
        // A default the help text states (it depends on a profile or the config) is shown
        // as the default.
        let stated = help.find(" [default: ").map(|at| {
            let stated = help[at + " [default: ".len()..]
                .trim_end_matches(']')
                .to_string();
            help.truncate(at);
            stated
        });
        let default = match (defaults.as_slice(), stated) {
            (_, Some(stated)) => stated,
            ([], _) if takes_value => "none".to_string(),
            ([], _) => "off".to_string(),
            (d, _) if !takes_value && d == ["false"] => "off".to_string(),
            (d, _) => format!("`{}`", d.join(", ")),
        };
        if !help.is_empty() && !help.ends_with('.') {
            help.push('.');
        }
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| format!("`{}`", v.get_name()))
            .collect();
        if !values.is_empty() && takes_value {
            let _ = write!(help, " One of {}.", values.join(", "));
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            flag.replace('|', "\\|"),
            default,
            help.replace('|', "\\|")
        );
    }
    for arg in cmd.get_arguments().filter(|a| a.is_positional()) {
        let name = arg
            .get_value_names()
            .and_then(|v| v.first().map(|s| s.to_string()))
            .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
        let mut help = arg
            .get_help()
            .map(|h| h.to_string())
            .unwrap_or_default()
            .replace('\n', " ");
        if !help.is_empty() && !help.ends_with('.') {
            help.push('.');
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| format!("`{}`", v.to_string_lossy()))
            .collect();
        let default = if arg.is_required_set() {
            "required".to_string()
        } else if defaults.is_empty() {
            "none".to_string()
        } else {
            defaults.join(", ")
        };
        let _ = writeln!(
            out,
            "| `{name}` | {default} | {} |",
            help.replace('|', "\\|")
        );
    }
    out
}

/// Replaces every marked section of `text` with its generated content; returns the new
/// text and the names of the sections found.
pub fn fill(text: &str) -> (String, Vec<String>) {
    let sections = sections();
    let mut out = String::with_capacity(text.len());
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!-- generated:") {
        let Some(name_end) = rest[start..].find(" -->") else {
            break;
        };
        let name = &rest[start + "<!-- generated:".len()..start + name_end];
        let open_end = start + name_end + " -->".len();
        let close = format!("<!-- end:{name} -->");
        let Some(close_at) = rest[open_end..].find(&close) else {
            break;
        };
        out.push_str(&rest[..open_end]);
        out.push('\n');
        // A rule table keeps its hand-written column from the committed text.
        let rules = name.strip_prefix("rules:").and_then(|family| {
            super::docs_rules::table(family, &rest[open_end..open_end + close_at])
        });
        match (rules, sections.iter().find(|(n, _)| n == name)) {
            (Some(table), _) => out.push_str(&table),
            (None, Some((_, content))) => out.push_str(content),
            (None, None) => out.push_str(&format!("(unknown generated section {name})\n")),
        }
        out.push_str(&close);
        found.push(name.to_string());
        rest = &rest[open_end + close_at + close.len()..];
    }
    out.push_str(rest);
    (out, found)
}
