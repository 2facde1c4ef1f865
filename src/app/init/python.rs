//! A Python project: the installer from its lockfile or requirements, the entry from
//! `[project.scripts]` (or poetry's) or a `server.py`/`main.py` at the root.

use super::detect::{is_plain_path, Plan, Unsure};
use std::path::Path;

/// How the project's dependencies are installed. The Action's image has pip (into the
/// system Python) and uv; poetry it installs with pip first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Installer {
    Uv,
    Poetry,
    Pip,
}

const SERVER_FILES: [&str; 3] = ["server.py", "main.py", "src/server.py"];

/// None when nothing here is Python.
pub fn plan(root: &Path) -> Option<Plan> {
    let pyproject = std::fs::read_to_string(root.join("pyproject.toml")).ok();
    let requirements = root.join("requirements.txt").is_file();
    let server_file = SERVER_FILES.into_iter().find(|f| root.join(f).is_file());
    if pyproject.is_none() && !requirements && server_file.is_none() {
        return None;
    }
    let mut basis = Vec::new();
    let installer = if root.join("uv.lock").is_file() {
        basis.push("uv.lock");
        Installer::Uv
    } else if root.join("poetry.lock").is_file() {
        basis.push("poetry.lock");
        Installer::Poetry
    } else {
        Installer::Pip
    };
    let pyproject = pyproject.unwrap_or_default();
    // A pyproject.toml with only tool settings is not a project pip could install.
    let project = has_table(&pyproject, "project") || has_table(&pyproject, "tool.poetry");
    if project {
        basis.push("pyproject.toml");
    }
    if requirements {
        basis.push("requirements.txt");
    }
    let setup = match installer {
        Installer::Uv => Some("uv sync --locked".to_string()),
        Installer::Poetry => Some("python3 -m pip install poetry && poetry install".to_string()),
        Installer::Pip => {
            let steps: Vec<&str> = [
                requirements.then_some("python3 -m pip install -r requirements.txt"),
                project.then_some("python3 -m pip install ."),
            ]
            .into_iter()
            .flatten()
            .collect();
            (!steps.is_empty()).then(|| steps.join(" && "))
        }
    };
    let script = if project {
        script(&pyproject, installer == Installer::Poetry)
    } else {
        Err(Unsure(
            "no pyproject.toml declares [project.scripts]".into(),
        ))
    };
    let command = match (script, server_file) {
        (Ok(script), _) => Ok(match installer {
            Installer::Uv => format!("uv run {script}"),
            Installer::Poetry => format!("poetry run {script}"),
            Installer::Pip => script,
        }),
        (Err(_), Some(file)) => {
            basis.push(file);
            Ok(match installer {
                Installer::Uv => format!("uv run {file}"),
                Installer::Poetry => format!("poetry run python3 {file}"),
                Installer::Pip => format!("python3 {file}"),
            })
        }
        (Err(why), None) => Err(Unsure(format!(
            "{}, and there is no server.py or main.py",
            why.0
        ))),
    };
    Some(Plan {
        setup,
        command,
        basis,
    })
}

/// The console script that starts the server: the only one, or the one named after the
/// project.
fn script(pyproject: &str, poetry: bool) -> Result<String, Unsure> {
    let mut scripts = table(pyproject, "project.scripts");
    let mut name = value(pyproject, "project", "name");
    if poetry {
        scripts.extend(table(pyproject, "tool.poetry.scripts"));
        name = name.or_else(|| value(pyproject, "tool.poetry", "name"));
    }
    scripts.retain(|(k, _)| is_plain_path(k) && !k.contains('/'));
    let normal = |s: &str| s.to_ascii_lowercase().replace(['_', '.'], "-");
    match scripts.as_slice() {
        [] => Err(Unsure(
            "pyproject.toml declares no [project.scripts]".into(),
        )),
        [(only, _)] => Ok(only.clone()),
        several => {
            let name = name.map(|n| normal(&n)).unwrap_or_default();
            several
                .iter()
                .find(|(k, _)| normal(k) == name)
                .map(|(k, _)| k.clone())
                .ok_or_else(|| {
                    Unsure(format!(
                        "pyproject.toml declares {} scripts, none named after the project",
                        several.len()
                    ))
                })
        }
    }
}

/// Whether a `[header]` table is present.
fn has_table(text: &str, header: &str) -> bool {
    text.lines().any(|l| table_header(l) == Some(header))
}

/// The header of a `[table]` line, spaces trimmed; None for other lines and `[[arrays]]`.
fn table_header(line: &str) -> Option<&str> {
    let l = line.trim();
    let inner = l.strip_prefix('[')?.split(']').next()?;
    (!inner.starts_with('[')).then(|| inner.trim())
}

/// The `key = "string"` pairs of one table, read line by line: enough for `[project]`'s
/// name and `[project.scripts]`. Anything else (inline tables, escapes, dotted keys) reads
/// as absent, so an unusual file leads to the placeholder rather than a wrong command.
fn table(text: &str, header: &str) -> Vec<(String, String)> {
    let mut inside = false;
    let mut pairs = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with('[') {
            inside = table_header(line) == Some(header);
            continue;
        }
        if !inside {
            continue;
        }
        let Some((key, rest)) = line.split_once('=') else {
            continue;
        };
        if let (Some(key), Some(value)) = (string_or_bare(key.trim()), string(rest.trim())) {
            pairs.push((key, value));
        }
    }
    pairs
}

fn value(text: &str, header: &str, key: &str) -> Option<String> {
    table(text, header)
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// A TOML key: bare (`my-server`) or quoted without escapes.
fn string_or_bare(key: &str) -> Option<String> {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        Some(key.to_string())
    } else {
        string(key)
    }
}

/// A one-line TOML string without escapes, followed by nothing but a comment.
fn string(s: &str) -> Option<String> {
    let quote = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &s[1..];
    let end = rest.find(quote)?;
    let (inner, after) = (&rest[..end], rest[end + 1..].trim());
    let clean = !inner.contains('\\') && (after.is_empty() || after.starts_with('#'));
    clean.then(|| inner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::detect::test_repo as repo;

    fn setup_and_command(files: &[(&str, &str)]) -> (Option<String>, Result<String, Unsure>) {
        let dir = repo(files);
        let plan = plan(dir.path()).expect("python");
        (plan.setup, plan.command)
    }

    const SCRIPTS: &str = "[project]\nname = \"my_server\"\nversion = \"1\"\n\n[project.scripts]\nmy-server = \"my_server:main\"\n";

    #[test]
    fn the_lockfile_chooses_the_installer_and_the_script_the_command() {
        for (lock, setup, command) in [
            ("uv.lock", Some("uv sync --locked"), "uv run my-server"),
            (
                "poetry.lock",
                Some("python3 -m pip install poetry && poetry install"),
                "poetry run my-server",
            ),
            ("", Some("python3 -m pip install ."), "my-server"),
        ] {
            let mut files = vec![("pyproject.toml", SCRIPTS)];
            if !lock.is_empty() {
                files.push((lock, ""));
            }
            let got = setup_and_command(&files);
            assert_eq!(got.0.as_deref(), setup, "{lock}");
            assert_eq!(got.1.as_deref(), Ok(command), "{lock}");
        }
    }

    #[test]
    fn requirements_install_before_the_project_and_a_server_file_runs_under_python3() {
        let got = setup_and_command(&[("requirements.txt", "mcp\n"), ("server.py", "")]);
        assert_eq!(
            got.0.as_deref(),
            Some("python3 -m pip install -r requirements.txt")
        );
        assert_eq!(got.1.as_deref(), Ok("python3 server.py"));
        let got = setup_and_command(&[("requirements.txt", "mcp\n"), ("pyproject.toml", SCRIPTS)]);
        assert_eq!(
            got.0.as_deref(),
            Some("python3 -m pip install -r requirements.txt && python3 -m pip install .")
        );
        assert_eq!(got.1.as_deref(), Ok("my-server"));
        for (lock, command) in [
            ("uv.lock", "uv run main.py"),
            ("poetry.lock", "poetry run python3 main.py"),
        ] {
            let got = setup_and_command(&[(lock, ""), ("main.py", "")]);
            assert_eq!(got.1.as_deref(), Ok(command), "{lock}");
        }
        // A pyproject.toml of tool settings only is not installed.
        let got = setup_and_command(&[("pyproject.toml", "[tool.ruff]\n"), ("main.py", "")]);
        assert_eq!(got, (None, Ok("python3 main.py".into())));
    }

    #[test]
    fn several_scripts_take_the_one_named_after_the_project_or_none() {
        let named = "[project]\nname = \"My.Server\"\n[project.scripts]\nmy-server-admin = \"a:b\"\n'my_server' = 'm:main' # the server\n";
        let got = setup_and_command(&[("pyproject.toml", named), ("uv.lock", "")]);
        assert_eq!(got.1.as_deref(), Ok("uv run my_server"));
        let unnamed = "[project]\nname = \"x\"\n[project.scripts]\na = \"a:b\"\nb = \"b:c\"\n";
        let err = setup_and_command(&[("pyproject.toml", unnamed)])
            .1
            .expect_err("unsure")
            .0;
        assert!(
            err.contains("2 scripts, none named after the project"),
            "{err}"
        );
        let poetry = "[tool.poetry]\nname = \"p\"\n[tool.poetry.scripts]\np = \"p:main\"\n";
        let got = setup_and_command(&[("pyproject.toml", poetry), ("poetry.lock", "")]);
        assert_eq!(got.1.as_deref(), Ok("poetry run p"));
    }

    #[test]
    fn a_project_without_scripts_or_server_file_is_unsure() {
        // The case: only a pyproject.toml never gets `uv run server.py`.
        let (setup, command) =
            setup_and_command(&[("pyproject.toml", "[project]\nname = \"x\"\n")]);
        assert_eq!(setup.as_deref(), Some("python3 -m pip install ."));
        let err = command.expect_err("unsure").0;
        assert!(err.contains("no server.py or main.py"), "{err}");
        for odd in [
            "[project.scripts]\n\"a b\" = \"x:y\"\n",
            "[project.scripts]\nx = \"a\\\"b\"\n",
            "[project]\nscripts = { x = \"x:y\" }\n",
            "[[project.scripts]]\nx = \"x:y\"\n",
        ] {
            let got = setup_and_command(&[("pyproject.toml", odd)]);
            assert!(got.1.is_err(), "{odd}: {got:?}");
        }
    }
}
