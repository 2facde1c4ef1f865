//! A config entry's launch command, read with the config values each word came from:
//! the command and its arguments, a shell wrapper and its command string, the commands in
//! it, and the packages each fetches (read by `crate::launch`, as every client reads them).

mod packages;

use super::config_file::{ServerEntry, Str};
use crate::launch::{program_index, program_name, LAUNCHER_PROGRAMS};
pub use packages::{packages, pinned_example, version_hint, PackageRef};

/// One word of the launch command, and the config value it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Word<'a> {
    pub text: String,
    pub src: &'a Str,
    /// The word was split out of a shell command string.
    pub from_script: bool,
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
    pub flag: Word<'a>,
    /// The words that form the command string.
    pub script: Vec<Word<'a>>,
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

/// Programs besides shells and launchers recognised at the start of a whole command line
/// written into `command`.
const KNOWN_PROGRAMS: &[&str] = &["env", "node", "python", "python3", "deno"];

/// A whole command line written into `command` that starts with this word is split.
fn is_known(word: &str) -> bool {
    let p = program_name(word);
    [SHELLS, LAUNCHER_PROGRAMS, KNOWN_PROGRAMS]
        .iter()
        .any(|list| list.contains(&p.as_str()))
}

/// The program and arguments a client would execute: a whole command line written into
/// `command` is split when it starts with a known program (as clients that run it do).
pub fn command_line(entry: &ServerEntry) -> Option<(String, Vec<String>)> {
    let command = entry.command.as_ref()?;
    let split = shell_words(&command.value);
    let (program, mut args) = if split.len() > 1 && is_known(&split[0]) {
        (split[0].clone(), split[1..].to_vec())
    } else {
        (command.value.clone(), Vec::new())
    };
    args.extend(entry.args.iter().map(|a| a.value.clone()));
    Some((program, args))
}

/// The command and its arguments as words. A whole command line written into `command`
/// (`"npx -y pkg"`) is split when it starts with a known program, and a leading
/// `env [-i] [VAR=value…]` is dropped, since neither changes what runs.
pub fn argv(entry: &ServerEntry) -> Vec<Word<'_>> {
    let Some(command) = entry.command.as_ref() else {
        return Vec::new();
    };
    let split = shell_words(&command.value);
    let mut words: Vec<Word<'_>> = if split.len() > 1 && is_known(&split[0]) {
        split
            .into_iter()
            .map(|text| Word {
                text,
                src: command,
                from_script: true,
            })
            .collect()
    } else {
        vec![Word {
            text: command.value.clone(),
            src: command,
            from_script: false,
        }]
    };
    words.extend(entry.args.iter().map(|a| Word {
        text: a.value.clone(),
        src: a,
        from_script: false,
    }));
    if words
        .first()
        .is_some_and(|w| program_name(&w.text) == "env")
    {
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        let skip = program_index(&texts).unwrap_or(texts.len());
        words.drain(..skip);
    }
    words
}

/// The shell wrapper of an entry, if its command is a shell given a command string.
pub fn shell_wrapper(entry: &ServerEntry) -> Option<ShellWrapper<'_>> {
    let words = argv(entry);
    let shell = program_name(&words.first()?.text);
    if !SHELLS.contains(&shell.as_str()) {
        return None;
    }
    let i = 1 + words[1..]
        .iter()
        .position(|a| is_command_flag(&shell, &a.text))?;
    // sh-like shells take one string (later arguments are $0, $1…); cmd and PowerShell take the rest.
    let rest = &words[i + 1..];
    let script: Vec<Word<'_>> = if matches!(shell.as_str(), "cmd" | "powershell" | "pwsh") {
        rest.to_vec()
    } else {
        rest.iter().take(1).cloned().collect()
    };
    Some(ShellWrapper {
        shell,
        flag: words[i].clone(),
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
    if let Some(wrapper) = shell_wrapper(entry) {
        let mut segs = vec![Vec::new()];
        for part in &wrapper.script {
            for w in shell_words(&part.text) {
                if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&") {
                    segs.push(Vec::new());
                } else if let Some(seg) = segs.last_mut() {
                    seg.push(Word {
                        text: w,
                        src: part.src,
                        from_script: true,
                    });
                }
            }
        }
        segs.retain(|s| !s.is_empty());
        return segs;
    }
    let words = argv(entry);
    if words.is_empty() {
        Vec::new()
    } else {
        vec![words]
    }
}
