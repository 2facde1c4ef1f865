//! The sweep's shown values: names, quoting for the shell, and a replay through real shells.

use super::*;

#[test]
fn secrets_are_shown_by_name_and_quoted_for_the_shell() {
    let mut v = Shown::text("mongodb://u:");
    v.push(Shown::secret("conn pw", "p\"w$x"));
    v.push(Shown::text("@h/$db"));
    assert_eq!(v.value(), "mongodb://u:p\"w$x@h/$db");
    assert_eq!(v.display(), "mongodb://u:${CONN_PW}@h/$db");
    assert_eq!(v.shell_word(), "mongodb://u:\"${CONN_PW}\"'@h/$db'");
    assert_eq!(Shown::text("a b").shell_word(), "'a b'");
}

#[test]
fn literal_text_is_single_quoted_and_a_secret_read_from_its_variable() {
    assert_eq!(Shown::text("!!").shell_word(), "'!!'");
    assert_eq!(Shown::text("a!b").shell_word(), "'a!b'");
    assert_eq!(Shown::text("").shell_word(), "''");
    assert_eq!(Shown::text("it's").shell_word(), "'it'\\''s'");
    assert_eq!(Shown::text("ünï").shell_word(), "'ünï'");
    assert_eq!(Shown::text("--mode").shell_word(), "--mode");
    let mut description = Shown::text("--description ");
    description.push(Shown::secret("NAME", "dummy"));
    description.push(Shown::text(" index!"));
    assert_eq!(
        description.shell_word(),
        "'--description '\"${NAME}\"' index!'"
    );
}

#[test]
fn the_shells_own_variables_are_never_a_secrets_name() {
    for own in [
        "PATH",
        "HOME",
        "IFS",
        "RANDOM",
        "PWD",
        "OLDPWD",
        "SHELL",
        "PS1",
        "PS4",
        "USER",
        "LANG",
        "LC_ALL",
        "TERM",
        "SECONDS",
        "LINENO",
        "HOSTNAME",
        "UID",
        "EUID",
        "PPID",
        "BASH_ENV",
        "BASHOPTS",
        "OPTARG",
        "OPTIND",
        "CDPATH",
        "ENV",
        "MAILPATH",
        "TMPDIR",
        "_",
        "HISTFILE",
        "LD_PRELOAD",
    ] {
        assert_eq!(shell_name(own), format!("MCPCHECK_{own}"), "{own}");
    }
    assert_eq!(shell_name("MCPCHECK_PATH"), "MCPCHECK_PATH");
    assert_eq!(shell_name("PATHS"), "PATHS");
    assert_eq!(shell_name("path"), "path");
}

#[test]
fn a_secret_inside_a_longer_argument_is_read_from_its_variable() {
    let mut values = [
        Shown::text("--description"),
        Shown::text("dummy index"),
        Shown::secret("LLAMA_CLOUD_PROJECT_NAME", "dummy"),
    ];
    Secrets::collect(values.iter_mut());
    assert_eq!(values[1].display(), "${LLAMA_CLOUD_PROJECT_NAME} index");
    assert_eq!(
        values[1].shell_word(),
        "\"${LLAMA_CLOUD_PROJECT_NAME}\"' index'"
    );
    assert_eq!(values[1].value(), "dummy index");
}

/// Values a shell would read as something else: history, substitutions, quotes, blanks.
const HOSTILE: &[&str] = &[
    "!!",
    "a!b",
    "!x",
    "$(id)",
    "`id`",
    "'",
    "\"",
    "a\nb",
    "\t",
    "\\",
    "ünï ✓",
    "",
    "${X}",
    "$X",
    "-n",
    "#c",
    "~",
    "*",
    "a b",
    "!'\"$`\\",
];

#[test]
fn a_command_line_means_its_argv_in_sh_bash_and_interactive_bash() {
    let mut argv = vec![Shown::text("printf"), Shown::text("%s\\0")];
    for (i, v) in HOSTILE.iter().enumerate() {
        argv.push(Shown::text(*v));
        argv.push(Shown::secret(&format!("S{i}"), *v));
        let mut mixed = Shown::text(*v);
        mixed.push(Shown::secret("MIXED", format!("{v}{i}")));
        mixed.push(Shown::text(*v));
        argv.push(mixed);
    }
    for own in [
        "PATH", "HOME", "RANDOM", "IFS", "PPID", "LINENO", "SECONDS", "PWD", "_", "BASH_ENV",
        "PS1", "LC_ALL", "SHELL",
    ] {
        argv.push(Shown::secret(own, format!("{own} value !! $(id)")));
    }
    let want: Vec<String> = argv[2..].iter().map(Shown::value).collect();
    let secrets = Secrets::collect(argv.iter_mut());
    let line: Vec<String> = argv.iter().map(Shown::shell_word).collect();
    let line = line.join(" ");
    for (shell, printed) in replay(&line, &secrets.0) {
        assert_eq!(printed, want, "{shell} ran: {line}");
    }
}

/// What `line` prints (NUL-separated) run by `sh -c`, `bash -c` and an interactive bash
/// that reads it as typed (history expansion on), with `env` exported and nothing else.
fn replay(line: &str, env: &[(String, String)]) -> Vec<(&'static str, Vec<String>)> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // Found on the test's PATH: the one exported may be a secret's value.
    let on_path = |program: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is not on PATH"))
    };
    let shell = |program: &str| {
        let mut cmd = Command::new(on_path(program));
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", "/nonexistent")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    };
    let words = |out: Vec<u8>| -> Vec<String> {
        let text = String::from_utf8(out).expect("utf-8");
        let mut words: Vec<String> = text.split('\0').map(String::from).collect();
        assert_eq!(words.pop().as_deref(), Some(""), "{text:?}");
        words
    };
    let mut printed = Vec::new();
    for program in ["sh", "bash"] {
        let out = shell(program).arg("-c").arg(line).output().expect("shell");
        printed.push((program, words(out.stdout)));
    }
    // `bash -i -c` never expands history: only lines read as typed do. No line editing:
    // without a terminal's bracketed paste a typed tab would complete a file name.
    let mut child = shell("bash")
        .args(["--norc", "--noprofile", "--noediting", "-i"])
        .spawn()
        .expect("bash -i");
    let typed = format!("unset HISTFILE\n: probe\nprintf 'history:%s\\n' \"!!\"\n{line}\n");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(typed.as_bytes())
        .expect("type");
    let out = child.wait_with_output().expect("bash -i");
    let text = out.stdout;
    let probe = b"history:: probe\n";
    assert!(
        text.starts_with(probe),
        "history expansion is off: {}",
        String::from_utf8_lossy(&text)
    );
    printed.push(("interactive bash", words(text[probe.len()..].to_vec())));
    printed
}

#[test]
fn names_are_shell_variables() {
    assert_eq!(shell_name("conn"), "conn");
    assert_eq!(shell_name("--api-key"), "API_KEY");
    assert_eq!(shell_name("positional argument 1"), "POSITIONAL_ARGUMENT_1");
    assert_eq!(shell_name("1st"), "_1ST");
    assert_eq!(shell_name("--"), "SECRET");
}

#[test]
fn credentials_no_input_marked_are_found_and_named() {
    let mut argv = vec![
        Shown::text("npx"),
        Shown::text("--db"),
        Shown::text("mongodb://admin:s3cretpw@db/x"),
        Shown::text("--token"),
        Shown::text("hunter2"),
        Shown::text("postgres://u:pw@h/d"),
    ];
    mark_credentials(&mut argv);
    let shown: Vec<String> = argv.iter().map(Shown::display).collect();
    assert_eq!(
        shown,
        [
            "npx",
            "--db",
            "mongodb://admin:${ARG2_PASSWORD}@db/x",
            "--token",
            "${TOKEN}",
            "postgres://u:${ARG5_PASSWORD}@h/d"
        ]
    );
    let secrets = Secrets::collect(argv.iter_mut());
    assert_eq!(
        secrets.names().collect::<Vec<_>>(),
        ["ARG2_PASSWORD", "TOKEN", "ARG5_PASSWORD"]
    );
}

#[test]
fn a_variables_url_password_is_a_secret_under_its_name() {
    let mut value = Shown::text("postgres://app:pg-Secr3t@db:5432/x");
    mark_value_credentials(&mut value, "DATABASE_URL");
    assert_eq!(
        value.display(),
        "postgres://app:${DATABASE_URL_PASSWORD}@db:5432/x"
    );
    assert_eq!(value.value(), "postgres://app:pg-Secr3t@db:5432/x");
}

#[test]
fn names_belong_to_variables_and_one_name_holds_one_value() {
    let mut values = [
        Shown::secret("KEY", "first-value"),
        Shown::secret("KEY", "second-value"),
        Shown::secret("OTHER", "first-value"),
        Shown::secret("KEY", "second-value"),
        Shown::secret("RAMP_ENV", "demo"),
        Shown::secret("RAMP_CLIENT_ID", "demo"),
    ];
    let secrets = Secrets::collect(values.iter_mut());
    let shown: Vec<String> = values.iter().map(Shown::display).collect();
    assert_eq!(
        shown,
        [
            "${KEY}",
            "${KEY_2}",
            "${OTHER}",
            "${KEY_2}",
            "${RAMP_ENV}",
            "${RAMP_CLIENT_ID}"
        ]
    );
    assert_eq!(
        secrets.names().collect::<Vec<_>>(),
        ["KEY", "KEY_2", "OTHER", "RAMP_ENV", "RAMP_CLIENT_ID"]
    );
    assert_eq!(
        secrets.known().remove("a first-value b second-value c"),
        "a ${KEY} b ${KEY_2} c"
    );
}
