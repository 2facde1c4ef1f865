//! Rule tables in the docs (`<!-- generated:rules:FAMILY -->`): the codes of a family with
//! what the catalog says of each (risk, OWASP category, precision, severity), so no page
//! restates it by hand. Only the last column, what the code reports, is written by hand:
//! it is kept from the committed table, by code, when the table is regenerated.

use crate::catalog::{Code, ALL};
use std::collections::HashMap;
use std::fmt::Write;

/// The columns a family's table has besides the code and the hand-written text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Columns {
    /// Risk, OWASP, precision, and whether the guard runs it (surface rules).
    SurfaceRule,
    /// Risk, OWASP and precision (config scan).
    Security,
    /// The severity (guard checks).
    Severity,
}

/// The codes of a family, in catalog order, and its columns; `None` for an unknown family.
fn family(name: &str) -> Option<(Vec<Code>, Columns, &'static str)> {
    let prefixed = |p: &str| -> Vec<Code> {
        ALL.iter()
            .copied()
            .filter(|c| c.as_str().starts_with(p))
            .collect()
    };
    let in_catalog_order = |mut codes: Vec<Code>| {
        codes.sort();
        codes.dedup();
        codes
    };
    Some(match name {
        "surface" => {
            let mut codes: Vec<Code> = crate::surface::rules::registry()
                .iter()
                .map(|r| r.code())
                .collect();
            codes.push(Code::SurfaceScanIncomplete);
            (
                in_catalog_order(codes),
                Columns::SurfaceRule,
                "What it reports",
            )
        }
        "scan" => {
            let mut codes = crate::scan::run::static_codes();
            codes.push(Code::ToolSurfaceDrift);
            (in_catalog_order(codes), Columns::Security, "What it finds")
        }
        "http" => (prefixed("http-"), Columns::Severity, "When"),
        "adversarial" => (prefixed("adversarial-"), Columns::Severity, "Title"),
        _ => return None,
    })
}

/// The cells of a table row, split at pipes that are not escaped.
fn cells(row: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut escaped = false;
    for c in row.trim().trim_start_matches('|').chars() {
        match c {
            '|' if !escaped => out.push(std::mem::take(&mut cell).trim().to_string()),
            c => {
                escaped = c == '\\';
                cell.push(c);
            }
        }
    }
    out
}

/// The hand-written last cell of each row of a committed table, by code.
fn descriptions(old: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in old.lines().filter(|l| l.starts_with("| ")) {
        let row = cells(line);
        let (Some(first), Some(last)) = (row.first(), row.last()) else {
            continue;
        };
        let code = first
            .split('`')
            .nth(1)
            .map(str::to_string)
            .unwrap_or_default();
        if Code::from_name(&code).is_some() {
            out.insert(code, last.clone());
        }
    }
    out
}

/// The table of a family, keeping the hand-written cells of `old`; `None` for an unknown family.
pub fn table(name: &str, old: &str) -> Option<String> {
    let (codes, columns, last) = family(name)?;
    let kept = descriptions(old);
    let guard = crate::surface::rules::guard_codes();
    let mut out = String::new();
    let _ = match columns {
        Columns::SurfaceRule => writeln!(
            out,
            "| Code | Risk | OWASP | Precision | Guard | {last} |\n|---|---|---|---|---|---|"
        ),
        Columns::Security => writeln!(
            out,
            "| Code | Risk | OWASP | Precision | {last} |\n|---|---|---|---|---|"
        ),
        Columns::Severity => writeln!(out, "| Code | Severity | {last} |\n|---|---|---|"),
    };
    for code in codes {
        let m = code.meta();
        let text = match columns {
            Columns::Severity if last == "Title" => m.title.replace('|', "\\|"),
            _ => kept.get(m.code).cloned().unwrap_or_default(),
        };
        let risk = m.risk.map_or_else(
            || format!("({})", code.severity().as_str()),
            |r| r.as_str().to_string(),
        );
        let link = format!("[`{}`](rules/{}.md)", m.code, m.code);
        let _ = match columns {
            Columns::SurfaceRule => writeln!(
                out,
                "| {link} | {risk} | {} | {} | {} | {text} |",
                m.owasp.unwrap_or(""),
                m.precision.as_str().replace('-', " "),
                // The bounds' note is the surface engine's own, in the guard as everywhere.
                if guard.contains(&code) || code == Code::SurfaceScanIncomplete {
                    "yes"
                } else {
                    "no"
                }
            ),
            Columns::Security => writeln!(
                out,
                "| {link} | {risk} | {} | {} | {text} |",
                m.owasp.unwrap_or(""),
                m.precision.as_str().replace('-', " "),
            ),
            Columns::Severity => {
                writeln!(out, "| {link} | {} | {text} |", code.severity().as_str())
            }
        };
    }
    Some(out)
}

/// The codes of a family whose hand-written cell is empty (a new code to describe).
pub fn undescribed(name: &str, table: &str) -> Vec<String> {
    let Some((codes, _, last)) = family(name) else {
        return Vec::new();
    };
    if last == "Title" {
        return Vec::new();
    }
    let kept = descriptions(table);
    codes
        .iter()
        .filter(|c| kept.get(c.as_str()).is_none_or(|d| d.is_empty()))
        .map(|c| c.as_str().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_written_cell_survives_and_a_hand_written_risk_does_not() {
        let old = "| Code | Risk | OWASP | Precision | Guard | What it reports |\n|---|---|---|---|---|---|\n| `tool-poisoning-instructions` | low | MCP01 | low | no | Prose aimed at the model, `a\\|b`. |\n";
        let new = table("surface", old).expect("surface");
        assert!(new.contains("| [`tool-poisoning-instructions`](rules/tool-poisoning-instructions.md) | critical | MCP03 | high | yes | Prose aimed at the model, `a\\|b`. |"), "{new}");
        assert!(undescribed("surface", &new).contains(&"invisible-characters".to_string()));
        assert!(table("nothing", "").is_none());
    }
}
