//! `mcpcheck surface FILE...`: the surface rules over saved listings, without a server.

use super::{check_with_initialize, listing, SurfaceOptions};
use crate::cli::{Format, SurfaceArgs, UsageError};
use crate::report::surface::{self as render, SurfaceRun};
use crate::report::Verdict;
use std::io::IsTerminal;

/// Checks the listings; returns the rendered report and whether it passed (no error).
pub fn run(args: &SurfaceArgs) -> Result<(String, bool), UsageError> {
    let mut servers = Vec::new();
    for file in &args.files {
        servers.extend(listing::read(file)?);
    }
    let surfaces: Vec<_> = servers.iter().map(|s| s.surface.clone()).collect();
    let initialize: Vec<_> = servers.iter().map(|s| s.initialize.clone()).collect();
    let options = SurfaceOptions {
        only_guard_rules: args.guard_rules,
    };
    let findings = check_with_initialize(&surfaces, &initialize, &options);
    let ok = Verdict::of(&findings).ok();
    let run = SurfaceRun {
        files: args.files.iter().map(|f| f.display().to_string()).collect(),
        surfaces,
        options,
        findings,
    };
    let text = match args.format.chosen() {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&render::json(&run))
                .map_err(|e| UsageError(format!("cannot serialise the report: {e}")))?;
            s.push('\n');
            s
        }
        Format::Human => {
            let color = std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            render::human(&run, crate::report::human::Style { color })
        }
        format @ (Format::Sarif | Format::Markdown) => crate::report::output::render_findings(
            format,
            "surface",
            &run.findings,
            i32::from(!ok),
        )?,
    };
    Ok((text, ok))
}
