//! How a stdio server is launched: through a shell, and through a package runner
//! (npx, bunx, pnpm dlx, yarn dlx, npm exec, uvx, pipx run, docker run) with which package.

mod runner;
mod spec;

use super::config_file::{ServerEntry, Str};
pub use runner::{packages, Ecosystem, PackageRef, Pin, Runner};
pub use spec::{pinned_example, version_hint};

/// One word of the launch command, and the config value it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Word<'a> {
    pub text: String,
    pub src: &'a Str,
    /// The word was split out of a shell command string.
    pub from_script: bool,
}

/// Program name without directory and Windows extension, lowercase: `C:\x\npx.cmd` → `npx`.
pub fn program_name(program: &str) -> String {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let lower = base.to_ascii_lowercase();
    for ext in [".exe", ".cmd", ".bat", ".ps1", ".com"] {
        if let Some(stem) = lower.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    lower
}

pub const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "cmd",
    "powershell",
    "pwsh",
];

/// A shell started with a command string: `sh -c "…"`, `cmd /c …`, `pwsh -Command …`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellWrapper<'a> {
    pub shell: String,
    /// The flag that takes the command (`-c`, `/c`, `-Command`).
    pub flag: &'a Str,
    /// The argument values that form the command string.
    pub script: Vec<&'a Str>,
}

/// Whether an argument is the command-string flag of this shell.
fn is_command_flag(shell: &str, arg: &str) -> bool {
    match shell {
        "cmd" => matches!(arg.to_ascii_lowercase().as_str(), "/c" | "/k" | "/r"),
        "powershell" | "pwsh" => {
            let a = arg.to_ascii_lowercase();
            let a = a.trim_start_matches(['-', '/']);
            !a.is_empty()
                && ("command".starts_with(a)
                    || a == "encodedcommand"
                    || a == "enc"
                    || a == "e"
                    || a == "ec")
        }
        // -c, and clusters that include it: -lc, -ic, -ec, -xc, -lic.
        _ => {
            arg.len() >= 2
                && arg.starts_with('-')
                && !arg.starts_with("--")
                && arg[1..].chars().all(|c| c.is_ascii_alphabetic())
                && arg.contains('c')
        }
    }
}

/// The shell wrapper of an entry, if its command is a shell given a command string.
pub fn shell_wrapper(entry: &ServerEntry) -> Option<ShellWrapper<'_>> {
    let command = entry.command.as_ref()?;
    let shell = program_name(&command.value);
    if !SHELLS.contains(&shell.as_str()) {
        return None;
    }
    let i = entry
        .args
        .iter()
        .position(|a| is_command_flag(&shell, &a.value))?;
    // sh-like shells take one string (later arguments are $0, $1…); cmd and PowerShell take the rest.
    let rest = &entry.args[i + 1..];
    let script: Vec<&Str> = if matches!(shell.as_str(), "cmd" | "powershell" | "pwsh") {
        rest.iter().collect()
    } else {
        rest.iter().take(1).collect()
    };
    Some(ShellWrapper {
        shell,
        flag: &entry.args[i],
        script,
    })
}

/// Splits a shell command string into words, honouring simple quoting.
/// Operators (`&&`, `||`, `;`, `|`, `&`) become words of their own.
pub fn shell_words(script: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = script.chars().peekable();
    let flush = |cur: &mut String, words: &mut Vec<String>| {
        if !cur.is_empty() {
            words.push(std::mem::take(cur));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() => flush(&mut cur, &mut words),
            (None, '&' | '|' | ';') => {
                flush(&mut cur, &mut words);
                let mut op = c.to_string();
                if chars.peek() == Some(&c) {
                    chars.next();
                    op.push(c);
                }
                words.push(op);
            }
            (None, c) => cur.push(c),
        }
    }
    flush(&mut cur, &mut words);
    words
}

/// The command segments of a launch: the direct command, or the commands inside a shell
/// wrapper's string (split at operators), or what follows `cmd /c`.
pub fn segments(entry: &ServerEntry) -> Vec<Vec<Word<'_>>> {
    let Some(command) = entry.command.as_ref() else {
        return Vec::new();
    };
    if let Some(wrapper) = shell_wrapper(entry) {
        let mut segs = vec![Vec::new()];
        for src in &wrapper.script {
            for w in shell_words(&src.value) {
                if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&") {
                    segs.push(Vec::new());
                } else if let Some(seg) = segs.last_mut() {
                    seg.push(Word {
                        text: w,
                        src,
                        from_script: true,
                    });
                }
            }
        }
        segs.retain(|s| !s.is_empty());
        return segs;
    }
    let mut seg = vec![Word {
        text: command.value.clone(),
        src: command,
        from_script: false,
    }];
    seg.extend(entry.args.iter().map(|a| Word {
        text: a.value.clone(),
        src: a,
        from_script: false,
    }));
    vec![seg]
}
