//! `mcpcheck explain CODE` and `mcpcheck rules`: the catalog, read aloud.

use super::cli::RulesArgs;
use super::io::{write_stdout, Output};
use crate::catalog::{self, Code};
use crate::error::Error;
use std::process::ExitCode;

pub fn explain(code: &str) -> Result<ExitCode, Error> {
    let wanted = code_in(code);
    let Some(code) = Code::from_name(&wanted) else {
        // The closest code by edit distance, when it is close enough to be a typo.
        let closest = crate::catalog::ALL
            .iter()
            .map(|c| (strsim::levenshtein(&wanted, c.as_str()), c.as_str()))
            .min()
            .filter(|(d, c)| *d <= 3.max(c.len() / 5))
            .map(|(_, c)| format!(" (did you mean {c}?)"))
            .unwrap_or_default();
        return Err(Error::Usage(format!(
            "unknown code {:?}{closest}; `mcpcheck rules` lists them",
            crate::finding::excerpt(code, 60)
        )));
    };
    let meta = code.meta();
    write_stdout(&format!(
        "{} ({}, {}, default {})\n{}\n\n{}\n{}",
        meta.code,
        meta.title,
        meta.class.as_str(),
        code.severity().as_str(),
        "-".repeat(meta.code.len()),
        meta.help,
        match (
            meta.rationale,
            catalog::clients::decision(meta.code).as_deref()
        ) {
            (Some(r), Some(d)) => format!("\nWhy the rule is this way: {r} {d}\n"),
            (Some(why), None) | (None, Some(why)) => format!("\nWhy the rule is this way: {why}\n"),
            (None, None) => String::new(),
        }
    ))?;
    write_stdout(&observed(meta.code))?;
    Ok(ExitCode::SUCCESS)
}

/// The code in what was pasted from a report: `error[stdout-non-json]` (any label before the
/// brackets: warning, note, a risk), `stdout-non-json:`, `` `stdout-non-json` ``, or the code.
fn code_in(pasted: &str) -> String {
    let text = pasted.trim();
    let text = match (text.find('['), text.rfind(']')) {
        (Some(open), Some(close)) if open < close => &text[open + 1..close],
        _ => text,
    };
    text.trim_matches(|c: char| c == '`' || c == ':' || c.is_whitespace())
        .to_ascii_lowercase()
}

pub fn rules(args: &RulesArgs) -> Result<ExitCode, Error> {
    if let Some(dir) = &args.markdown {
        let written = crate::report::rule_docs::write_all(dir)?;
        Output::stdout().write(&format!(
            "wrote {} pages to {}\n",
            written.len(),
            dir.display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::new();
    for code in catalog::ALL {
        let m = code.meta();
        text.push_str(&format!(
            "{:<38} {:<8} {:<15} {}\n",
            m.code,
            code.severity().as_str(),
            m.class.as_str(),
            m.title
        ));
    }
    write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// What real clients did on the code's fixture, one client a line, with what each said.
fn observed(code: &str) -> String {
    let Some(fixture) = catalog::clients::evidence(code) else {
        return String::new();
    };
    let data = catalog::clients::data();
    let mut out = format!(
        "\nWhat real clients did on the fixture server {} ({}), observed by scripts/client-impact on {}:\n",
        fixture.title(), fixture.transport, data.generated
    );
    for (client, o) in fixture.ran() {
        out.push_str(&format!("  {}: {}", client.label(), o.phrase()));
        if let Some(detail) = &o.detail {
            out.push_str(&format!(" ({})", crate::finding::excerpt(detail, 200)));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::code_in;

    #[test]
    fn a_code_is_read_as_a_report_spells_it() {
        // Issue 44 item 9: `explain error[stdout-non-json]`, pasted from a report, was refused.
        for pasted in [
            "stdout-non-json",
            "error[stdout-non-json]",
            "warning[stdout-non-json]",
            "note[stdout-non-json]",
            "high[stdout-non-json]",
            "stdout-non-json:",
            "`stdout-non-json`",
            "  STDOUT-NON-JSON ",
        ] {
            assert_eq!(code_in(pasted), "stdout-non-json", "{pasted}");
        }
    }
}
