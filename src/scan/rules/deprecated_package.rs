//! `deprecated-package`: the registry marks the launched package (or its pinned version)
//! deprecated or yanked. Needs `--registry`; the facts are looked up before the rules run.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::launch::Pin;
use crate::scan::config_file::ServerEntry;
use crate::scan::entry_command;

pub struct DeprecatedPackage;

impl ConfigRule for DeprecatedPackage {
    fn code(&self) -> Code {
        Code::DeprecatedPackage
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let Some(facts) = cx.registry else { return };
        for p in entry_command::packages(server) {
            if p.package.pin == Pin::NotRegistry {
                continue;
            }
            let exact = (p.package.pin == Pin::Exact)
                .then_some(p.package.version.as_deref())
                .flatten();
            let Some(notice) = facts.deprecation(p.package.ecosystem, &p.package.name, exact)
            else {
                continue;
            };
            out.push(
                cx.finding(
                    Code::DeprecatedPackage,
                    p.word.src,
                    format!(
                        "Server {:?}: {}{} is {} in its registry: {}",
                        crate::finding::excerpt(&server.name, 60),
                        crate::finding::excerpt(&crate::scan::urls::mask_all(&p.package.name), 100),
                        notice
                            .version
                            .as_deref()
                            .map(|v| format!(" {}", crate::finding::excerpt(v, 40)))
                            .unwrap_or_default(),
                        notice.state,
                        crate::finding::excerpt(&notice.message, 200)
                    ),
                )
                .evidence(&crate::scan::urls::mask_all(&p.package.spec)),
            );
        }
    }
}
