//! The page's two charts as inline SVG, drawn from the summary: servers per status, and the
//! commonest codes of each issue class. Each has a `<title>` and its numbers as text.

use super::escape::text;
use crate::sweep::line::LineStatus;
use crate::sweep::summary::Summary;
use std::fmt::Write;

const WIDTH: usize = 640;
const LABEL: usize = 250;
const BAR: usize = 20;
const GAP: usize = 6;
/// Codes drawn per class, and classes drawn; the codes table lists the rest.
const CODES_PER_CLASS: usize = 5;
const CLASSES: usize = 12;

/// A status's colour: red for a fault, amber for inspection, grey where nothing was judged.
pub fn status_colour(status: LineStatus) -> &'static str {
    match status.as_str() {
        "fail" => "#b42318",
        "needs_inspection" => "#b54708",
        "install-failed" => "#9a3412",
        "setup-failed" | "sweep-error" => "#6941c6",
        "warning" => "#8a6100",
        "pass" => "#067647",
        _ => "#475467",
    }
}

struct Bar<'a> {
    label: &'a str,
    value: usize,
    colour: &'a str,
}

enum Line<'a> {
    Heading(String),
    Bar(Bar<'a>),
}

fn svg(title: &str, id: &str, lines: &[Line]) -> String {
    let max = lines
        .iter()
        .filter_map(|l| match l {
            Line::Bar(b) => Some(b.value),
            Line::Heading(_) => None,
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let height = lines.len() * (BAR + GAP) + GAP;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart" role="img" aria-labelledby="{id}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}"><title id="{id}">{}</title>"#,
        text(title)
    );
    let room = WIDTH - LABEL - 60;
    for (i, line) in lines.iter().enumerate() {
        let y = GAP + i * (BAR + GAP);
        let baseline = y + BAR - 5;
        match line {
            Line::Heading(h) => {
                let _ = write!(
                    out,
                    r##"<text x="0" y="{baseline}" class="h">{}</text>"##,
                    text(h)
                );
            }
            Line::Bar(b) => {
                let w = (b.value * room).div_ceil(max).max(1);
                let _ = write!(
                    out,
                    r##"<text x="{}" y="{baseline}" text-anchor="end">{}</text><rect x="{LABEL}" y="{y}" width="{w}" height="{BAR}" fill="{}"/><text x="{}" y="{baseline}">{}</text>"##,
                    LABEL - 8,
                    text(&crate::finding::excerpt(b.label, 34)),
                    b.colour,
                    LABEL + w + 6,
                    b.value
                );
            }
        }
    }
    out.push_str("</svg>");
    out
}

/// Servers per status, worst first.
pub fn statuses(summary: &Summary) -> String {
    let lines: Vec<Line> = summary
        .statuses
        .iter()
        .map(|(status, n)| {
            Line::Bar(Bar {
                label: status.as_str(),
                value: *n,
                colour: status_colour(*status),
            })
        })
        .collect();
    svg("Servers per status", "chart-statuses", &lines)
}

/// The commonest codes of each class, by servers; `None` when no server had an issue.
pub fn codes_by_class(summary: &Summary) -> Option<String> {
    let mut lines = Vec::new();
    for class in summary.classes.iter().take(CLASSES) {
        lines.push(Line::Heading(format!(
            "{} ({})",
            crate::finding::excerpt(&class.class, 40),
            crate::finding::plural(class.servers, "server")
        )));
        for row in class.codes.iter().take(CODES_PER_CLASS) {
            lines.push(Line::Bar(Bar {
                label: &row.code,
                value: row.servers,
                colour: if row.severity == "error" {
                    "#b42318"
                } else {
                    "#8a6100"
                },
            }));
        }
    }
    (!lines.is_empty()).then(|| svg("Most common codes by issue class", "chart-codes", &lines))
}
