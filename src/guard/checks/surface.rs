//! The guard's `surface` check: the high-precision surface rules over what the server listed.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::process::ServerCommand;
use crate::session::transcript::{ListKind, Transcript};
use crate::surface::{self, ServerSurface, SurfaceOptions};
use serde_json::Value;
use std::sync::LazyLock;

/// Characters of `serverInfo.name` kept as the server's name.
const MAX_SERVER_NAME_CHARS: usize = 128;

/// The surface rules the guard runs, and the note that a listing was too large to read whole.
static CODES: LazyLock<Vec<Code>> = LazyLock::new(|| {
    let mut codes = surface::rules::guard_codes();
    codes.push(Code::SurfaceScanIncomplete);
    codes
});

/// The guard's surface rules (poisoning, hidden characters, secrets, look-alike names,
/// credential resources) over the lists and the `initialize` result (its `instructions`);
/// the heuristic rules are left to `mcpcheck surface` and the security scan. The rules live
/// below the engines; this check runs their high-precision subset.
pub struct Surface;

impl Check for Surface {
    fn name(&self) -> &'static str {
        "surface"
    }

    fn codes(&self) -> &'static [Code] {
        &CODES
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        out.extend(surface::check_with_initialize(
            &[surface_of(t, cx.command)],
            &[t.initialize_result().cloned()],
            &SurfaceOptions {
                only_guard_rules: true,
            },
        ));
    }
}

/// What the session listed, named by `serverInfo.name`, else by the command's program.
pub fn surface_of(transcript: &Transcript, command: &ServerCommand) -> ServerSurface {
    let items = |kind: ListKind| {
        transcript
            .list(kind)
            .map(|probe| probe.items.clone())
            .unwrap_or_default()
    };
    let reported = transcript
        .initialize_result()
        .and_then(|r| r.get("serverInfo"))
        .and_then(|i| i.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .map(|n| {
            // Cleaned of the run's secrets before it is cut, so no part of one is kept.
            let n = crate::secrets::known::clean_in_force(n).unwrap_or_else(|| n.to_string());
            n.chars().take(MAX_SERVER_NAME_CHARS).collect::<String>()
        });
    let server = reported.unwrap_or_else(|| {
        std::path::Path::new(&command.program)
            .file_name()
            .map(|f| {
                f.to_string_lossy()
                    .chars()
                    .take(MAX_SERVER_NAME_CHARS)
                    .collect()
            })
            .unwrap_or_else(|| "server".to_string())
    });
    ServerSurface {
        server,
        tools: items(ListKind::Tools),
        prompts: items(ListKind::Prompts),
        resources: items(ListKind::Resources),
        resource_templates: items(ListKind::ResourceTemplates),
    }
}
