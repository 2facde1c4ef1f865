//! `unknown-server-entry` (info): an entry of a shape the scanner does not know, which some
//! client might load. The rest of the file is still scanned.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::{EntryProblem, ProblemKind, ServerEntry};

pub struct UnknownServerEntry;

impl UnknownServerEntry {
    fn report(cx: &RuleContext<'_>, subject: &str, p: &EntryProblem, out: &mut Vec<Finding>) {
        if p.kind != ProblemKind::Unknown {
            return;
        }
        out.push(
            Finding::new(
                Code::UnknownServerEntry,
                format!(
                    "{subject}: {}; it was not checked in full, the rest of the file was.",
                    p.message
                ),
            )
            .at(cx.file.location(&p.pointer, p.span)),
        );
    }
}

impl ConfigRule for UnknownServerEntry {
    fn code(&self) -> Code {
        Code::UnknownServerEntry
    }

    fn check_file(&self, cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for p in &cx.file.problems {
            Self::report(cx, &cx.file.display, p, out);
        }
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let subject = format!("Server {:?}", crate::finding::excerpt(&server.name, 60));
        for p in &server.problems {
            Self::report(cx, &subject, p, out);
        }
    }
}
