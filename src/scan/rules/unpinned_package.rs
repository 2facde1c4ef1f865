//! `unpinned-package`: a package runner (npx, bunx, pnpm dlx, yarn dlx, npm exec, uvx,
//! pipx run, docker run) fetches a package without an exact version or digest.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{Finding, Risk};
use crate::launch::{Launcher, Pin};
use crate::scan::config_file::ServerEntry;
use crate::scan::entry_command;

pub struct UnpinnedPackage;

impl ConfigRule for UnpinnedPackage {
    fn code(&self) -> Code {
        Code::UnpinnedPackage
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        for p in entry_command::packages(server) {
            let Pin::Unpinned(why) = &p.package.pin else {
                continue;
            };
            let mut f = cx
                .finding(
                    Code::UnpinnedPackage,
                    p.word.src,
                    format!(
                        "Server {:?}: {} runs {} unpinned ({}); a new release runs on the next start without review.",
                        crate::finding::excerpt(&server.name, 60),
                        p.launcher.as_str(),
                        crate::finding::excerpt(&crate::scan::urls::mask_all(&p.package.spec), 120),
                        // The reason quotes the version or digest, which may hold a token.
                        crate::scan::urls::mask_all(why)
                    ),
                )
                .evidence(&crate::scan::urls::mask_all(&p.package.spec))
                .fix(crate::scan::urls::mask_all(&format!(
                    "Pin an exact version, for example `{}`; {}.",
                    entry_command::pinned_example(&p),
                    entry_command::version_hint(&p)
                )));
            // A version tag is less bad than no tag at all: it only moves if re-pushed.
            let moving = p.package.version.as_deref().is_none_or(|v| v == "latest");
            if p.launcher == Launcher::DockerRun && !moving {
                f = f.risk(Risk::Low);
            }
            out.push(f);
        }
    }
}
