//! `mcpcheck surface FILE...`: the surface rules over saved listings, without a server.

use super::cli::{ColorChoice, Format, SurfaceArgs};
use super::io::{json_text, Output};
use super::render::render_findings;
use crate::error::Error;
use crate::gate::Gate;
use crate::report::human::Style;
use crate::report::printed::Printed;
use crate::report::surface as render;
use crate::surface::{SurfaceOptions, SurfaceRequest};
use std::process::ExitCode;

pub fn run(args: &SurfaceArgs, color: ColorChoice) -> Result<ExitCode, Error> {
    let format = args.format.chosen()?;
    let output = Output::new("--output", args.output.as_deref(), color)?;
    let run = crate::surface::check_files(&SurfaceRequest {
        files: args.files.clone(),
        options: SurfaceOptions {
            only_guard_rules: args.guard_rules,
        },
    })?;
    let ok = Gate::default().passes(&run.findings);
    let text: Printed = match format {
        Format::Json => json_text(&render::json(&run))?.into(),
        Format::Human => render::human(
            &run,
            Style {
                color: output.color(),
            },
        )
        .into(),
        format @ (Format::Sarif | Format::Markdown) => {
            render_findings(format, "surface", run.findings.clone(), i32::from(!ok))?
        }
    };
    output.write_printed(&text)?;
    Ok(super::verdict_exit(ok))
}
