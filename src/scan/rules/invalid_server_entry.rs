//! `invalid-server-entry` (high): an entry no client can load (a known field of the wrong
//! type, no command and no url), reported once per fault at the value that breaks it.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::{ProblemKind, ServerEntry};

pub struct InvalidServerEntry;

impl ConfigRule for InvalidServerEntry {
    fn code(&self) -> Code {
        Code::InvalidServerEntry
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let name = crate::finding::excerpt(&server.name, 60);
        for p in server
            .problems
            .iter()
            .filter(|p| p.kind == ProblemKind::Invalid)
        {
            out.push(
                Finding::new(
                    Code::InvalidServerEntry,
                    format!(
                        "Server {name:?}: {}; no client can load this entry, so the server it names never runs. It was not checked in full, the rest of the file was.",
                        p.message
                    ),
                )
                .at(cx.file.location(&p.pointer, p.span)),
            );
        }
    }
}
