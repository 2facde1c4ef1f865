//! An MCP registry `server.json` entry turned into the launch command a client would use:
//! `npx -y pkg@version`, `uvx pkg==version`, `docker run -i --rm image:tag`, `dnx pkg@version`.
//! Inputs resolve as manifest value > `value` > `default`; a required one with none of them
//! makes the entry `needs-configuration`.

use super::manifest::{needs_configuration, EntryError, EntryPlan, Launch, Supplied};
use super::shown::{fill, is_secret, Shown};
use crate::finding::excerpt;
use crate::install::Install;
use crate::install_faults::Installer;
use crate::launch::{Ecosystem, Package};
use serde_json::{Map, Value};

/// Registry types mcpcheck can launch, with their runtimes (the first is the default).
const RUNTIMES: &[(&str, &[&str])] = &[
    ("npm", &["npx", "bunx"]),
    ("pypi", &["uvx", "pipx"]),
    ("oci", &["docker", "podman"]),
    ("nuget", &["dnx"]),
];

/// `runtimeHint`s that name a language, not a launcher: run as a client would, with the
/// first of these launchers found on PATH.
const LANGUAGE_HINTS: &[(&str, &str, &[&str])] = &[
    ("pypi", "python", &["uvx", "pipx"]),
    ("npm", "node", &["npx", "bunx"]),
];

pub fn launch_plan(server: &Map<String, Value>, supplied: &Supplied) -> EntryPlan {
    let packages: &[Value] = server
        .get("packages")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut skipped = Vec::new();
    for package in packages {
        match launchable(package) {
            Ok((registry, runtime, note)) => {
                let mut plan = package_plan(package, registry, runtime, supplied);
                if let EntryPlan::Launch(launch) = &mut plan {
                    launch.runtime_note = note;
                }
                return plan;
            }
            Err(why) => skipped.push(why.0),
        }
    }
    if let Some(plan) = super::remote::registry_plan(server, supplied) {
        return plan;
    }
    let remotes: Vec<String> = server
        .get("remotes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| {
            excerpt(
                r.get("type").and_then(Value::as_str).unwrap_or("remote"),
                30,
            )
        })
        .collect();
    let reason = match (packages.is_empty(), remotes.is_empty()) {
        (true, false) => format!(
            "remote-only server ({}); mcpcheck sweeps servers it can start over stdio",
            remotes.join(", ")
        ),
        (true, true) => "no packages and no remotes: nothing to start".to_string(),
        (false, _) => format!(
            "no package mcpcheck can start over stdio: {}",
            skipped.join("; ")
        ),
    };
    EntryPlan::NotAsked { reason }
}

/// The package's registry type and runtime (with a note when a language hint chose it),
/// or why it cannot be started.
fn launchable(package: &Value) -> Result<(&'static str, &'static str, Option<String>), EntryError> {
    let kind = package
        .get("registryType")
        .and_then(Value::as_str)
        .unwrap_or("");
    let Some((registry, runtimes)) = RUNTIMES.iter().find(|(k, _)| *k == kind) else {
        return Err(EntryError(format!(
            "registryType {:?} is not launched",
            excerpt(kind, 30)
        )));
    };
    let transport = package
        .get("transport")
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("stdio");
    if transport != "stdio" {
        return Err(EntryError(format!(
            "{registry} package uses {:?}",
            excerpt(transport, 30)
        )));
    }
    let hint = package.get("runtimeHint").and_then(Value::as_str);
    if let Some((_, language, launchers)) = LANGUAGE_HINTS
        .iter()
        .find(|(r, l, _)| r == registry && hint == Some(*l))
    {
        let on_path = |p: &str| crate::process::find_program(p, None).is_some();
        if let Some(found) = launchers.iter().find(|l| on_path(l)) {
            let note = format!(
                "runtimeHint {language:?} run with {found}, the first of {} on PATH",
                launchers.join(", ")
            );
            return Ok((registry, found, Some(note)));
        }
        // Python without a launcher: a virtual environment of its own, as `python -m` needs.
        if *language == "python" && on_path("python3") {
            let note = format!(
                "runtimeHint \"python\" run from a virtual environment made with python3 -m venv and pip (none of {} on PATH)",
                launchers.join(", ")
            );
            return Ok((registry, "python", Some(note)));
        }
        return Err(EntryError(format!(
            "runtimeHint {language:?}: none of {} is on PATH; install one (uv: `pip install uv`)",
            launchers.join(", ")
        )));
    }
    let runtime = match hint {
        None => runtimes[0],
        Some(hint) => *runtimes.iter().find(|r| **r == hint).ok_or_else(|| {
            format!(
                "runtimeHint {:?} is not one mcpcheck runs for {registry} ({})",
                excerpt(hint, 30),
                runtimes.join(", ")
            )
        })?,
    };
    Ok((registry, runtime, None))
}

fn package_plan(package: &Value, registry: &str, runtime: &str, supplied: &Supplied) -> EntryPlan {
    let field = |k: &str| package.get(k).and_then(Value::as_str).unwrap_or("");
    let identifier = field("identifier");
    let version = field("version");
    // Values become argv elements, never shell text; a leading '-' would still read as an option.
    if identifier.is_empty() || identifier.starts_with('-') || version.starts_with('-') {
        return EntryPlan::NotAsked {
            reason: format!(
                "{registry} package identifier {:?} / version {:?} cannot be launched safely",
                excerpt(identifier, 60),
                excerpt(version, 30)
            ),
        };
    }
    let mut missing = Vec::new();
    let runtime_args = arguments(package.get("runtimeArguments"), supplied, &mut missing);
    let package_args = arguments(package.get("packageArguments"), supplied, &mut missing);
    let env = environment(package.get("environmentVariables"), supplied, &mut missing);
    if !missing.is_empty() {
        return needs_configuration(missing);
    }
    let text = |t: &str| Shown::text(t);
    // Installed with pip when no launcher is at hand, but shown (and replayed) as a client
    // with uv would run it.
    let mut command = vec![text(if runtime == "python" { "uvx" } else { runtime })];
    // The runtimes whose package a sweep installs first: the server then starts from the
    // install, with the package's arguments.
    let installer = match runtime {
        "npx" => Some(Installer::Npm),
        "uvx" => Some(Installer::Uv),
        "python" => Some(Installer::Pip),
        _ => None,
    };
    let written = |ecosystem| Package::spec_of(ecosystem, identifier, version);
    let spec = match registry {
        "npm" => written(Ecosystem::Npm),
        "pypi" => written(Ecosystem::PyPI),
        "oci" => written(Ecosystem::Docker),
        // nuget's `dnx ID@VERSION`.
        _ if version.is_empty() => identifier.to_string(),
        _ => format!("{identifier}@{version}"),
    };
    match registry {
        "npm" => {
            let yes = runtime_args
                .iter()
                .any(|a| matches!(a.value().as_str(), "-y" | "--yes"));
            if runtime == "npx" && !yes {
                command.push(text("-y"));
            }
            command.extend(runtime_args);
            command.push(text(&spec));
            command.extend(package_args);
        }
        "pypi" => {
            if runtime == "pipx" {
                command.push(text("run"));
            }
            command.extend(runtime_args);
            command.push(text(&spec));
            command.extend(package_args);
        }
        "oci" => {
            command.extend(["run", "-i", "--rm"].map(text));
            command.extend(runtime_args);
            // The container does not see the CLI's environment; `-e NAME` passes each value in.
            for (name, _) in &env {
                command.extend([text("-e"), text(name)]);
            }
            command.push(text(&spec));
            command.extend(package_args);
        }
        _ => {
            command.extend(runtime_args);
            command.push(text(&spec));
            if !package_args.is_empty() {
                command.push(text("--"));
                command.extend(package_args);
            }
        }
    }
    let mut env = env;
    for (name, value) in &supplied.env {
        if !env.iter().any(|(k, _)| k == name) {
            env.push((name.clone(), Shown::secret(name, value.clone())));
        }
    }
    let mut launch = Launch::new(command, env);
    launch.install = installer
        .and_then(|installer| Install::of_command(&launch.argv(), installer))
        // Only the entry's own package (a runtime argument could name another).
        .filter(|install| install.package.spec == spec);
    EntryPlan::Launch(launch)
}

/// An input's value: the manifest's, else `value`, else `default`, with `{variables}` filled;
/// secret where the input or a variable is `isSecret`. `None` when there is none, or a
/// variable in it has none.
fn input_value(input: &Value, key: &str, supplied: &Supplied) -> Option<Shown> {
    let own = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let raw = supplied
        .inputs
        .get(key)
        .cloned()
        .or_else(|| own("value"))
        .or_else(|| own("default"))?;
    let (shown, unfilled) = fill(&raw, input.get("variables"), &supplied.inputs);
    if !unfilled.is_empty() {
        return None;
    }
    Some(if is_secret(input) {
        Shown::secret(key, shown.value())
    } else {
        shown
    })
}

fn required(input: &Value) -> bool {
    input.get("isRequired").and_then(Value::as_bool) == Some(true)
}

fn arguments(list: Option<&Value>, supplied: &Supplied, missing: &mut Vec<String>) -> Vec<Shown> {
    let mut argv = Vec::new();
    for (i, arg) in list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let named = arg.get("type").and_then(Value::as_str) == Some("named");
        let name = arg.get("name").and_then(Value::as_str).unwrap_or("");
        let key = if named {
            name.to_string()
        } else {
            arg.get("valueHint")
                .and_then(Value::as_str)
                .map_or_else(|| format!("positional argument {}", i + 1), str::to_string)
        };
        let boolean = arg.get("format").and_then(Value::as_str) == Some("boolean");
        match input_value(arg, &key, supplied) {
            // A boolean named argument is its flag alone, or nothing when false.
            Some(value) if named && boolean && value.value().eq_ignore_ascii_case("false") => {}
            Some(_) if named && boolean => argv.push(Shown::text(name)),
            Some(value) if named => argv.extend([Shown::text(name), value]),
            Some(value) => argv.push(value),
            // A named argument that takes no value (`--ignore-robots-txt`) is passed as a flag.
            None if named && (boolean || arg.get("valueHint").is_none()) => {
                argv.push(Shown::text(name));
            }
            None if required(arg) => missing.push(key),
            None => {}
        }
    }
    argv
}

fn environment(
    list: Option<&Value>,
    supplied: &Supplied,
    missing: &mut Vec<String>,
) -> Vec<(String, Shown)> {
    let mut env = Vec::new();
    for var in list.and_then(Value::as_array).into_iter().flatten() {
        let Some(name) = var
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty() && !n.contains('=') && !n.contains('\0'))
        else {
            continue;
        };
        // A value the manifest gives is never shown; one of the server.json's own is, unless secret.
        let value = match supplied.env.get(name) {
            Some(given) => Some(Shown::secret(name, given.clone())),
            None => input_value(var, name, &Supplied::default()),
        };
        match value {
            Some(v) => env.push((name.to_string(), v)),
            None if required(var) => {
                missing.push(if is_secret(var) {
                    format!("{name} (secret)")
                } else {
                    name.to_string()
                });
            }
            None => {}
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(server: Value, supplied: &Supplied) -> EntryPlan {
        launch_plan(server.as_object().expect("object"), supplied)
    }

    fn command(p: &EntryPlan) -> Vec<String> {
        match p {
            EntryPlan::Launch(l) => l.argv(),
            other => panic!("not a launch: {other:?}"),
        }
    }

    #[test]
    fn npm_pypi_oci_and_nuget_become_the_client_commands() {
        let none = Supplied::default();
        let npm = plan(
            json!({"packages":[{"registryType":"npm","identifier":"@s/x","version":"1.2.3","transport":{"type":"stdio"},
            "packageArguments":[{"type":"positional","valueHint":"dir","default":"/data"},{"type":"named","name":"--mode","value":"ro"}]}]}),
            &none,
        );
        assert_eq!(
            command(&npm),
            ["npx", "-y", "@s/x@1.2.3", "/data", "--mode", "ro"]
        );
        let pypi = plan(
            json!({"packages":[{"registryType":"pypi","identifier":"mcp-server-time","version":"0.6.2","runtimeHint":"uvx","transport":{"type":"stdio"}}]}),
            &none,
        );
        assert_eq!(command(&pypi), ["uvx", "mcp-server-time==0.6.2"]);
        let oci = plan(
            json!({"packages":[{"registryType":"oci","identifier":"mcp/fs","version":"1.0","transport":{"type":"stdio"},
            "runtimeArguments":[{"type":"named","name":"--mount","value":"type=bind,src={src},dst=/p","variables":{"src":{"default":"/tmp"}}}],
            "environmentVariables":[{"name":"LOG_LEVEL","default":"info"}]}]}),
            &none,
        );
        assert_eq!(
            command(&oci),
            [
                "docker",
                "run",
                "-i",
                "--rm",
                "--mount",
                "type=bind,src=/tmp,dst=/p",
                "-e",
                "LOG_LEVEL",
                "mcp/fs:1.0"
            ]
        );
        let tagged = plan(
            json!({"packages":[{"registryType":"oci","identifier":"ghcr.io/o/r:v2","transport":{"type":"stdio"}}]}),
            &none,
        );
        assert_eq!(
            command(&tagged),
            ["docker", "run", "-i", "--rm", "ghcr.io/o/r:v2"]
        );
        let nuget = plan(
            json!({"packages":[{"registryType":"nuget","identifier":"Knapcode.Sample","version":"0.4.0","transport":{"type":"stdio"},
            "packageArguments":[{"type":"positional","value":"mcp"},{"type":"positional","value":"start"}]}]}),
            &none,
        );
        assert_eq!(
            command(&nuget),
            ["dnx", "Knapcode.Sample@0.4.0", "--", "mcp", "start"]
        );
    }

    #[test]
    fn named_arguments_without_a_value_are_flags() {
        let server = json!({"packages":[{"registryType":"npm","identifier":"x","version":"1","transport":{"type":"stdio"},
        "packageArguments":[
            {"type":"named","name":"--ignore-robots-txt"},
            {"type":"named","name":"--read-only","isRequired":true},
            {"type":"named","name":"--verbose","format":"boolean","default":"false"},
            {"type":"named","name":"--color","format":"boolean","value":"true"},
            {"type":"named","name":"--port","valueHint":"port"}
        ]}]});
        assert_eq!(
            command(&plan(server, &Supplied::default())),
            [
                "npx",
                "-y",
                "x@1",
                "--ignore-robots-txt",
                "--read-only",
                "--color"
            ]
        );
    }

    #[test]
    fn required_values_without_default_need_configuration() {
        let server = json!({"packages":[{"registryType":"npm","identifier":"x","version":"1","transport":{"type":"stdio"},
            "packageArguments":[{"type":"positional","valueHint":"target_dir","isRequired":true}],
            "environmentVariables":[{"name":"API_KEY","isRequired":true,"isSecret":true},{"name":"OPT"}]}]});
        assert_eq!(
            plan(server.clone(), &Supplied::default()),
            needs_configuration(vec!["target_dir".into(), "API_KEY (secret)".into()])
        );
        let mut given = Supplied::default();
        given.env.insert("API_KEY".into(), "k".into());
        given.inputs.insert("target_dir".into(), "/srv".into());
        let EntryPlan::Launch(l) = plan(server, &given) else {
            panic!("launch")
        };
        assert_eq!(l.argv(), ["npx", "-y", "x@1", "/srv"]);
        assert_eq!(l.env_values(), [("API_KEY".to_string(), "k".to_string())]);
    }

    #[test]
    fn remote_entries_plan_a_remote_and_unlaunchable_ones_are_not_asked() {
        let remote = plan(
            json!({"remotes":[{"type":"streamable-http","url":"https://x"}]}),
            &Supplied::default(),
        );
        assert!(
            matches!(&remote, EntryPlan::Remote(r) if r.url.value() == "https://x" && r.transport == crate::sweep::line::RemoteType::StreamableHttp),
            "{remote:?}"
        );
        let websocket = plan(
            json!({"remotes":[{"type":"websocket","url":"wss://x"}]}),
            &Supplied::default(),
        );
        assert!(
            matches!(&websocket, EntryPlan::NotAsked { reason } if reason.starts_with("remote-only server (websocket)")),
            "{websocket:?}"
        );
        let http = plan(
            json!({"packages":[{"registryType":"npm","identifier":"x","version":"1","transport":{"type":"streamable-http"}},
            {"registryType":"mcpb","identifier":"https://x/y.mcpb"}]}),
            &Supplied::default(),
        );
        assert_eq!(http, EntryPlan::NotAsked { reason: "no package mcpcheck can start over stdio: npm package uses \"streamable-http\"; registryType \"mcpb\" is not launched".into() });
        let hint = plan(
            json!({"packages":[{"registryType":"npm","identifier":"x","runtimeHint":"sh","transport":{"type":"stdio"}}]}),
            &Supplied::default(),
        );
        assert!(
            matches!(&hint, EntryPlan::NotAsked { reason } if reason.contains("runtimeHint \"sh\"")),
            "{hint:?}"
        );
        let dash = plan(
            json!({"packages":[{"registryType":"npm","identifier":"--eval=x","transport":{"type":"stdio"}}]}),
            &Supplied::default(),
        );
        assert!(matches!(dash, EntryPlan::NotAsked { .. }));
    }
}
