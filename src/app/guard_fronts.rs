//! The guard's three front ends — `mcpcheck guard`'s flags, the Action's inputs and a sweep's
//! entry — build their request for the one builder (`guard::options::resolve`); the same
//! settings given to each give the same session.

use super::cli::{Cli, Command};
use crate::app::action::inputs::Inputs;
use crate::guard::{GuardRequest, GuardSettings};
use crate::session::tuning::Tuning;
use crate::sweep::sandbox::EnvPolicy;
use crate::sweep::{Renderers, SweepConfig};
use clap::{CommandFactory, Parser};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn flags(argv: &[&str]) -> GuardRequest {
    let argv = std::iter::once("mcpcheck").chain(argv.iter().copied());
    match Cli::try_parse_from(argv).expect("the flags parse").command {
        Command::Guard(args) => args.request(),
        _ => panic!("not a guard command"),
    }
}

fn inputs(pairs: &[(&str, &str)]) -> GuardRequest {
    let env: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (format!("INPUT_{}", k.to_ascii_uppercase()), v.to_string()))
        .collect();
    Inputs::read(|k| env.get(k).cloned())
        .expect("the inputs read")
        .guard_request()
        .expect("the inputs make a request")
}

fn sweep(config: &Path, profile: &str, timeout: u64) -> SweepConfig {
    SweepConfig {
        jobs: 1,
        tuning: Tuning {
            timeout: Some(timeout),
            ..Tuning::default()
        },
        profile: Some(profile.into()),
        config: Some(config.to_path_buf()),
        setup_timeout: Duration::from_secs(1),
        install_timeout: Duration::from_secs(1),
        env_policy: EnvPolicy::default(),
        render: Renderers {
            guard: Arc::new(|_, _| serde_json::Value::Null),
            findings: Arc::new(|_| serde_json::Value::Null),
        },
        remote: false,
        remote_allow_unsafe: false,
    }
}

/// Everything the session runs with, as one comparable text.
fn session(settings: Result<GuardSettings, crate::error::Error>) -> String {
    format!("{:#?}", settings.expect("the request resolves"))
}

/// A project with a config file that sets what only the file can (requests with params,
/// probes, variables, a tool call) and a directory for the server.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("pkg")).expect("pkg");
    std::fs::write(
        dir.path().join("mcpcheck.json"),
        r#"{"protocol": "2025-06-18", "repeat": 2, "env": {"MODE": "test"},
            "requests": [{"method": "tools/call", "params": {"name": "echo"}}],
            "safeToolCalls": [{"name": "ping"}], "adversarialProbes": ["invalid-method"],
            "maxStdoutBytes": 4096}"#,
    )
    .expect("config");
    dir
}

#[test]
fn the_flags_the_inputs_and_a_sweep_entry_resolve_to_the_same_session() {
    let dir = project();
    let config = dir.path().join("mcpcheck.json");
    let cwd = dir.path().join("pkg");
    let (config_s, cwd_s) = (
        config.to_str().expect("a UTF-8 path"),
        cwd.to_str().expect("a UTF-8 path"),
    );
    let from_flags = flags(&[
        "guard",
        "--config",
        config_s,
        "--profile",
        "registry",
        "--timeout",
        "900",
        "--cwd",
        cwd_s,
        "--",
        "node",
        "dist/my server.js",
    ]);
    let from_inputs = inputs(&[
        ("config", config_s),
        ("profile", "registry"),
        ("timeout", "900"),
        ("working_directory", cwd_s),
        ("command", "node 'dist/my server.js'"),
    ]);
    let swept = crate::sweep::guard_settings(
        vec!["node".into(), "dist/my server.js".into()],
        &[],
        &cwd,
        &sweep(&config, "registry", 900),
    );
    let expected = session(crate::guard::options::resolve(&from_flags));
    assert!(
        expected.contains("2025-06-18") && expected.contains("MODE"),
        "{expected}"
    );
    assert_eq!(
        session(crate::guard::options::resolve(&from_inputs)),
        expected
    );
    assert_eq!(session(swept), expected);
}

#[test]
fn what_the_flags_and_the_inputs_share_resolves_alike() {
    let dir = project();
    let config = dir.path().join("mcpcheck.json");
    let from_flags = flags(&[
        "guard",
        "--config",
        config.to_str().expect("a UTF-8 path"),
        "--profile",
        "strict",
        "--protocol",
        "auto",
        "--repeat",
        "3",
        "--request",
        "tools/list",
        "--request",
        "prompts/list",
        "--",
        "python3",
        "-u",
        "server.py",
    ]);
    let from_inputs = inputs(&[
        ("config", config.to_str().expect("a UTF-8 path")),
        ("profile", "strict"),
        ("protocol", "auto"),
        ("repeat", "3"),
        ("requests", "tools/list,\nprompts/list"),
        ("command", "python3 -u server.py"),
    ]);
    let expected = session(crate::guard::options::resolve(&from_flags));
    // The flags' requests come after the config file's, whichever front end gave them.
    let order = ["tools/call", "tools/list", "prompts/list"].map(|m| expected.find(m));
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{expected}");
    assert_eq!(
        session(crate::guard::options::resolve(&from_inputs)),
        expected
    );
}

#[test]
fn an_error_names_the_setting_as_its_front_end_spells_it() {
    let error = |request: GuardRequest| {
        crate::guard::options::resolve(&request)
            .expect_err("out of range")
            .message()
            .to_string()
    };
    let flags_say = error(flags(&["guard", "--repeat", "25", "--", "true"]));
    assert_eq!(flags_say, "--repeat 25: give 1 to 20 runs");
    let inputs_say = error(inputs(&[("repeat", "25"), ("command", "true")]));
    assert_eq!(inputs_say, "input `repeat` is 25: give 1 to 20 runs");
    let inputs_say = error(inputs(&[("protocol", "1999-01-01"), ("command", "true")]));
    assert!(
        inputs_say.starts_with("input `protocol` is \"1999-01-01\": not a supported version"),
        "{inputs_say}"
    );
    let inputs_say = error(inputs(&[
        ("working_directory", "/no/such/dir"),
        ("command", "true"),
    ]));
    assert!(
        inputs_say.starts_with("input `working_directory` is /no/such/dir: not a directory"),
        "{inputs_say}"
    );
    let inputs_say = error(inputs(&[("url", "ftp://example.com/mcp")]));
    assert!(
        inputs_say.starts_with("input `url` is ftp://example.com/mcp: not an http://"),
        "{inputs_say}"
    );
    let flags_say = error(flags(&["guard", "--url", "ftp://example.com/mcp"]));
    assert!(
        flags_say.starts_with("--url ftp://example.com/mcp: not an http://"),
        "{flags_say}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("c.json");
    std::fs::write(&config, r#"{"command": ["true"], "timeoutMs": 0}"#).expect("config");
    let file_says = error(flags(&[
        "guard",
        "--config",
        config.to_str().expect("a UTF-8 path"),
    ]));
    assert_eq!(file_says, "config `timeoutMs` must be at least 1 ms");
}

#[test]
fn the_flags_help_states_the_builders_defaults() {
    let help = Cli::command()
        .find_subcommand_mut("guard")
        .expect("guard")
        .render_long_help()
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // Times are shown in their unit (300ms, 2s), as the flags take them; the defaults are
    // the ones the builder's bottom layer holds.
    let defaults = crate::guard::layers::Layer::defaults().tuning;
    assert_eq!(defaults, Tuning::defaults());
    for spec in Tuning::SPECS {
        let (flag, default) = (
            spec.flag,
            spec.unit.show(defaults.get(spec).expect("a default")),
        );
        let at = help
            .find(&format!("{flag} <"))
            .expect("the flag is in the help");
        let next = help[at..]
            .find("[default: ")
            .map(|i| at + i)
            .expect("a default");
        assert!(
            help[next..].starts_with(&format!("[default: {default}]")),
            "{flag}: {}",
            &help[at..next + 20]
        );
    }
}

/// `mcpcheck guard`'s command line for a request reads back as that request: every flag the
/// request can carry, set to a value that is not its default (secrets are shown redacted,
/// so they are left out here; the Action's test covers its inputs the same way).
#[test]
fn a_requests_command_line_reads_back_as_the_request() {
    let request = flags(&[
        "guard",
        "--config",
        "mcpcheck.json",
        "--profile",
        "ci",
        "--protocol",
        "2025-06-18",
        "--timeout",
        "1500ms",
        "--repeat",
        "3",
        "--cwd",
        "pkg",
        "--request",
        "tools/list",
        "--params",
        "{\"a\":1}",
        "--request",
        "ping",
        "--scan",
        "src",
        "--scan",
        "lib",
        "--url",
        "https://example.com/mcp",
        "--adversarial-probes",
        "all",
        "--settle",
        "2s",
        "--shutdown-grace",
        "3m",
        "--install-timeout",
        "90s",
        "--max-stdout-line-bytes",
        "1000",
        "--max-stdout-bytes",
        "2000",
        "--max-stderr-bytes",
        "3000",
        "--stderr-flood-bytes",
        "4000",
        "--max-list-pages",
        "5",
        "--protocol-matrix",
        "--no-list-probes",
        "--json",
        "--fail-on-static",
        "--url-allow-unsafe",
        "--no-install",
        "--",
        "node",
        "server.js",
        "--port=1",
    ]);
    let line = super::guard::argv(&request);
    let back = flags(&line.iter().skip(1).map(String::as_str).collect::<Vec<_>>());
    assert_eq!(back, request, "{line:?}");
    assert_eq!(
        super::guard::argv(&flags(&["guard", "--timeout", "30000", "--", "x"])),
        ["mcpcheck", "guard", "--timeout", "30s", "--", "x"]
    );
}
