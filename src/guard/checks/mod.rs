//! The guard's checks: each reads the session transcript and reports findings.
//! Adding a check = one file + one line in `registry()`.

mod capabilities;
mod http_answers;
mod http_legacy;
mod http_probes;
mod initialize;
mod json_rpc;
mod runtime;
mod stderr_cause;
mod stdio;
mod surface;
mod tool_calls;
mod tool_schema;
mod unasked;
mod wire_schema;

use crate::catalog::Code;
use crate::finding::Finding;
use crate::session::transcript::Transcript;

pub(crate) use runtime::with_stderr_cause;
pub use tool_schema::ToolSchemaSummary;

/// What a check can read.
pub struct CheckContext<'a> {
    pub transcript: &'a Transcript,
    /// Findings of the checks that ran before, so a general check can leave a fault
    /// to the specific check that already named it.
    pub prior: &'a [Finding],
    /// The explicit requests the plan asked for, so one the session never sent (the server
    /// had stopped) is reported too.
    pub planned: &'a [crate::session::PlannedRequest],
    /// The installer that fetches the server (`npx`, `npm exec`, `uvx`), whose words on
    /// stderr may say why the server never started.
    pub launcher: Option<crate::install_faults::Installer>,
    /// The name of the package the launcher fetches, when it fetches one.
    pub package: Option<String>,
    /// The server runs on Python with stdout block-buffered (no -u, no PYTHONUNBUFFERED):
    /// what it printed may arrive only at exit.
    pub python_buffered: bool,
    /// How the server was started (the surface check names an unnamed server after it).
    pub command: &'a crate::process::ServerCommand,
}

/// One check: a name for the report, the codes it may emit, and the inspection itself.
pub trait Check {
    /// Stable name used in the JSON report's `checks` object.
    fn name(&self) -> &'static str;
    fn codes(&self) -> &'static [Code];
    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>);
    /// Whether the check belongs in this session's report (the HTTP checks only over HTTP).
    fn applies(&self, _transcript: &Transcript) -> bool {
        true
    }
}

/// Every check, in report order.
pub fn registry() -> Vec<Box<dyn Check>> {
    vec![
        Box::new(runtime::Runtime),
        Box::new(stdio::StdioTransport),
        Box::new(json_rpc::JsonRpc),
        Box::new(initialize::Initialize),
        Box::new(capabilities::Capabilities),
        Box::new(tool_schema::ToolSchemas),
        Box::new(tool_calls::ToolCalls),
        Box::new(wire_schema::WireSchema),
        Box::new(unasked::ServerTraffic),
        Box::new(http_answers::HttpAnswers),
        Box::new(http_probes::HttpProbes),
        Box::new(http_legacy::HttpLegacy),
        Box::new(surface::Surface),
    ]
}
