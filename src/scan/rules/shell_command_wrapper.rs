//! `shell-command-wrapper`: the server is started as `sh -c "…"`, `cmd /c …` or
//! `powershell -Command …`, so a shell interprets a whole string. Reported at that string
//! (the arguments after the flag), which is what a reviewer has to read: `command` only
//! names the shell.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::ServerEntry;
use crate::scan::entry_command;
use crate::scan::jsonc::Span;

pub struct ShellCommandWrapper;

impl ConfigRule for ShellCommandWrapper {
    fn code(&self) -> Code {
        Code::ShellCommandWrapper
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let (Some(_), Some(wrapper)) = (&server.command, entry_command::shell_wrapper(server))
        else {
            return;
        };
        // From the first argument of the string to the end of its last (the flag, if empty).
        let first = wrapper.script.first().map_or(wrapper.flag.src, |w| w.src);
        let last = wrapper.script.last().map_or(wrapper.flag.src, |w| w.src);
        let at = cx.file.location(
            &first.pointer,
            Span {
                start: first.span.start,
                end: last.span.end.max(first.span.end),
            },
        );
        let script: Vec<String> = wrapper.script.iter().map(|w| w.text.clone()).collect();
        let shown = crate::secrets::redact_argv(&script).join(" ");
        out.push(
            Finding::new(
                Code::ShellCommandWrapper,
                format!(
                    "Server {:?} is started through {} {}: the shell expands and runs the whole string with the client's privileges.",
                    crate::finding::excerpt(&server.name, 60),
                    wrapper.shell,
                    crate::finding::excerpt(&wrapper.flag.text, 20)
                ),
            )
            .at(at)
            .evidence(&crate::scan::urls::mask_all(&shown))
            .fix("Put the server's own executable in command and its arguments in args, without a shell in between."),
        );
    }
}
