//! The summary of `source --fix` / `--diff`: how many writes were rewritten, and each one
//! left as it is with why and the manual fix.

use crate::finding::{excerpt, plural};
use crate::source::fix::{FixPlan, Unfixed};
use std::fmt::Write;

pub fn summary(plan: &FixPlan, dry_run: bool) -> String {
    let mut out = String::new();
    let fixed = plural(plan.fixed(), "write");
    let files = plural(plan.changes.len(), "file");
    let _ = if dry_run {
        writeln!(
            out,
            "would fix {fixed} in {files} (--diff: nothing changed)"
        )
    } else {
        writeln!(out, "fixed {fixed} in {files}")
    };
    for change in &plan.changes {
        let _ = writeln!(
            out,
            "  {}: {}",
            excerpt(&change.file, 300),
            plural(change.fixed, "write")
        );
    }
    section(&mut out, "not fixable", &plan.not_fixable);
    section(&mut out, "refused", &plan.refused);
    out
}

fn section(out: &mut String, title: &str, items: &[Unfixed]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}: {}", plural(items.len(), "write"));
    for item in items {
        let f = &item.finding;
        let _ = writeln!(
            out,
            "  {} {}: {}",
            excerpt(&f.location.describe(), 300),
            f.code.as_str(),
            excerpt(&item.reason, 300)
        );
    }
}
