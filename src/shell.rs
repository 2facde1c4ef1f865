//! Command lines an operator pastes: each word means the same to `sh`, `bash` and an
//! interactive `bash` (where `!` outside single quotes recalls history), and the variables
//! they read are never the shell's own.

use std::borrow::Cow;

/// Variables a shell sets, reads for itself or treats specially (POSIX sh, bash and the
/// dynamic loader every started program reads): exporting a value under one of these
/// names changes the shell or what it starts, and `${RANDOM}` or `${PPID}` never read an
/// exported value at all.
pub const SHELLS_OWN: &[&str] = &[
    "_",
    "auto_resume",
    "CDPATH",
    "COLUMNS",
    "COMP_CWORD",
    "COMP_KEY",
    "COMP_LINE",
    "COMP_POINT",
    "COMP_TYPE",
    "COMP_WORDBREAKS",
    "COMP_WORDS",
    "COMPREPLY",
    "COPROC",
    "DIRSTACK",
    "EMACS",
    "ENV",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EUID",
    "EXECIGNORE",
    "FCEDIT",
    "FIGNORE",
    "FPATH",
    "FUNCNAME",
    "FUNCNEST",
    "GLOBIGNORE",
    "GLOBSORT",
    "GROUPS",
    "histchars",
    "HISTCMD",
    "HISTCONTROL",
    "HISTFILE",
    "HISTFILESIZE",
    "HISTIGNORE",
    "HISTSIZE",
    "HISTTIMEFORMAT",
    "HOME",
    "HOSTFILE",
    "HOSTNAME",
    "HOSTTYPE",
    "IFS",
    "IGNOREEOF",
    "INPUTRC",
    "INSIDE_EMACS",
    "LANG",
    "LINENO",
    "LINES",
    "LOGNAME",
    "MACHTYPE",
    "MAPFILE",
    "NLSPATH",
    "OLDPWD",
    "OPTARG",
    "OPTERR",
    "OPTIND",
    "OSTYPE",
    "PATH",
    "PIPESTATUS",
    "POSIXLY_CORRECT",
    "PPID",
    "PROMPT_COMMAND",
    "PROMPT_DIRTRIM",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "PWD",
    "RANDOM",
    "READLINE_ARGUMENT",
    "READLINE_LINE",
    "READLINE_MARK",
    "READLINE_POINT",
    "REPLY",
    "SECONDS",
    "SHELL",
    "SHELLOPTS",
    "SHLVL",
    "SRANDOM",
    "TERM",
    "TIMEFORMAT",
    "TMOUT",
    "TMPDIR",
    "UID",
    "USER",
];

/// Families of the shell's own names: `BASH`, `BASHOPTS`, `BASH_ENV`…, the locale's
/// `LC_*`, `MAIL`, `MAILCHECK`, `MAILPATH`, and the loader's `LD_*` and `DYLD_*`.
pub const SHELLS_OWN_PREFIXES: &[&str] = &["BASH", "LC_", "MAIL", "LD_", "DYLD_"];

/// What a name that is the shell's own is given in front, so it is a name of its own.
pub const OWN_NAME_PREFIX: &str = "MCPCHECK_";

/// Whether a variable name is one the shell sets or reads for itself.
pub fn is_shells_own(name: &str) -> bool {
    SHELLS_OWN.contains(&name) || SHELLS_OWN_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// `name` when it is not the shell's own, else `MCPCHECK_name`.
pub fn own_name(name: &str) -> Cow<'_, str> {
    if is_shells_own(name) {
        Cow::Owned(format!("{OWN_NAME_PREFIX}{name}"))
    } else {
        Cow::Borrowed(name)
    }
}

/// Characters that mean themselves anywhere in a word, in every shell and with history
/// expansion on; a word of only these is left bare.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | ',' | '@' | '+')
}

/// `text` as one shell word: bare when every character means itself, else single-quoted
/// (nothing is special inside single quotes, `!` included; a `'` is written `'\''`).
pub fn quote(text: &str) -> Cow<'_, str> {
    if !text.is_empty() && text.chars().all(is_plain) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!("'{}'", text.replace('\'', r"'\''")))
}

/// Words quoted with [`quote`], joined by spaces.
pub fn join<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words
        .into_iter()
        .map(|w| quote(w.as_ref()).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_words_stay_bare() {
        assert_eq!(quote("--mode"), "--mode");
        assert_eq!(quote("/srv/x:1,a@b+c"), "/srv/x:1,a@b+c");
        for special in [
            "!!", "a!b", "", "a b", "$x", "`x`", "\\", "\"", "~", "#", "*", "?", "[", "{a,b}",
            "^x", "=x", "%1", "ünï", "\t", "\n", "\r",
        ] {
            assert!(quote(special).starts_with('\''), "{special:?}");
        }
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(join(["mcpcheck", "a!b", ""]), "mcpcheck 'a!b' ''");
    }

    #[test]
    fn docs_sweep_lists_the_shells_own_names() {
        let docs = include_str!("../docs/sweep.md");
        let listed = docs
            .split_once("The shell's own names are ")
            .and_then(|(_, rest)| rest.split_once(", every name starting with"))
            .map(|(list, _)| list)
            .expect("docs/sweep.md lists the shell's own names");
        let listed: Vec<&str> = listed
            .split(',')
            .map(|n| n.trim().trim_matches('`'))
            .collect();
        assert_eq!(listed, SHELLS_OWN);
        for prefix in SHELLS_OWN_PREFIXES {
            assert!(docs.contains(&format!("`{prefix}")), "{prefix}");
        }
    }

    #[test]
    fn the_shells_own_names_are_given_a_prefix_once() {
        for own in [
            "PATH",
            "RANDOM",
            "_",
            "BASH_ENV",
            "LC_ALL",
            "MAILPATH",
            "LD_PRELOAD",
        ] {
            assert_eq!(own_name(own), format!("MCPCHECK_{own}"));
            assert_eq!(own_name(&own_name(own)), own_name(own));
        }
        assert_eq!(own_name("API_KEY"), "API_KEY");
        assert_eq!(own_name("path"), "path");
        assert!(!SHELLS_OWN_PREFIXES
            .iter()
            .any(|p| OWN_NAME_PREFIX.starts_with(p)));
    }
}
