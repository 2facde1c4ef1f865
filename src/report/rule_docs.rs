//! One Markdown page per code, generated from the catalog (`mcpcheck rules --markdown DIR`).
//! SARIF `help.markdown` is the same text, so the docs and Code Scanning cannot drift.

use super::owasp;
use crate::catalog::{self, CodeMeta};
use crate::error::Error;
use std::fmt::Write;
use std::path::{Path, PathBuf};

const GENERATED: &str =
    "Generated from `src/catalog.rs` by `mcpcheck rules --markdown docs/rules`; do not edit by hand.";

/// The body of a rule's help: what it is, its metadata, and how to fix it.
pub fn help_markdown(meta: &CodeMeta) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "**{}**\n", meta.title);
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(out, "| Code | `{}` |", meta.code);
    let _ = writeln!(out, "| Class | `{}` |", meta.class.as_str());
    let _ = writeln!(
        out,
        "| Default severity | {} |",
        meta.default_severity().as_str()
    );
    let _ = writeln!(out, "| Precision | {} |", meta.precision.as_str());
    if let Some(risk) = meta.risk {
        let _ = writeln!(
            out,
            "| Risk | {} (security-severity {:.1}) |",
            risk.as_str(),
            risk.score()
        );
    }
    if let Some(id) = meta.owasp {
        let _ = writeln!(
            out,
            "| {} | {id} {} |",
            owasp::TAXONOMY_NAME,
            owasp::name(id).unwrap_or("")
        );
    }
    let _ = writeln!(out, "\n## What it means and how to fix it\n\n{}", meta.help);
    let decided = catalog::clients::decision(meta.code);
    match (meta.rationale, decided.as_deref()) {
        (Some(rationale), Some(decided)) => {
            let _ = writeln!(
                out,
                "\n## Why the rule is this way\n\n{rationale}\n\n{decided}"
            );
        }
        (Some(why), None) | (None, Some(why)) => {
            let _ = writeln!(out, "\n## Why the rule is this way\n\n{why}");
        }
        (None, None) => {}
    }
    out.push_str(&super::clients_doc::observed(meta.code));
    let _ = writeln!(
        out,
        "\nExplain it locally with `mcpcheck explain {}`.",
        meta.code
    );
    out
}

/// The whole page for `docs/rules/<code>.md`.
pub fn page(meta: &CodeMeta) -> String {
    format!(
        "# {}\n\n{}\n<!-- {GENERATED} -->\n",
        meta.code,
        help_markdown(meta)
    )
}

/// `docs/rules/README.md`: every code, in catalog order.
pub fn index() -> String {
    let mut out = String::from("# Rules\n\nEvery finding code mcpcheck reports, in catalog order.\n\n| Code | Default severity | Class | Title |\n|---|---|---|---|\n");
    for code in catalog::ALL {
        let m = code.meta();
        let _ = writeln!(
            out,
            "| [`{}`]({}.md) | {} | {} | {} |",
            m.code,
            m.code,
            code.severity().as_str(),
            m.class.as_str(),
            m.title.replace('|', "\\|")
        );
    }
    let _ = writeln!(out, "\n<!-- {GENERATED} -->");
    out
}

/// Every generated file: name and content.
pub fn files() -> Vec<(String, String)> {
    let mut files = vec![("README.md".to_string(), index())];
    files.extend(
        catalog::ALL
            .iter()
            .map(|c| (format!("{}.md", c.as_str()), page(c.meta()))),
    );
    files
}

/// Writes every page into `dir` (created if missing); returns the paths written.
pub fn write_all(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::Output(format!(
            "--markdown {}: cannot create the directory ({e})",
            dir.display()
        ))
    })?;
    let mut written = Vec::new();
    for (name, content) in files() {
        let path = dir.join(name);
        std::fs::write(&path, content).map_err(|e| {
            Error::Output(format!(
                "--markdown: cannot write {} ({e}); check the directory is writable",
                path.display()
            ))
        })?;
        written.push(path);
    }
    Ok(written)
}
