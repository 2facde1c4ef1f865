//! The sweep manifest: JSON (an array, or `{"servers": [...]}` as the MCP registry API
//! returns it) or JSON Lines, each entry a launch command or an MCP registry `server.json`.
//! Everything is parsed and validated before any server starts.

use super::manifest_fields::{
    command_argv, cwd, setup, string_field, string_map, valid_env_name, valid_id,
};
use super::remote::{self, HeaderValue, Remote};
use super::server_json;
use super::shown::{mark_credentials, mark_value_credentials, Secrets, Shown};
use crate::error::Error;
use crate::finding::excerpt;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What is wrong with one manifest entry (or the manifest's shape); the caller says which
/// manifest and where in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EntryError(pub String);

impl From<String> for EntryError {
    fn from(problem: String) -> Self {
        EntryError(problem)
    }
}

/// Largest manifest accepted; a registry dump of tens of thousands of servers fits.
const MAX_MANIFEST_BYTES: u64 = 256 * 1024 * 1024;
/// Longest id accepted: ids appear in every report row.
pub const MAX_ID_CHARS: usize = 200;
/// Keys a command entry may have; anything else is most likely a typo.
const COMMAND_KEYS: &[&str] = &[
    "id",
    "command",
    "args",
    "cwd",
    "env",
    "setup",
    "name",
    "description",
];

/// One server to check.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    /// Where it is in the manifest ("line 3", "entry 4"), for messages.
    pub position: String,
    pub plan: EntryPlan,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EntryPlan {
    Launch(Launch),
    /// A required value (argument, secret) has no value and no default: not started.
    NeedsConfiguration {
        reason: String,
        missing: Vec<String>,
    },
    /// Nothing mcpcheck can launch over stdio (remote-only, another transport...): not started.
    NotAsked {
        reason: String,
    },
    /// A server reached over HTTP: guarded with `--remote`, else not started.
    Remote(Remote),
}

/// How to start a server, as a client would.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub command: Vec<Shown>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, Shown)>,
    pub setup: Option<Vec<String>>,
    /// Every secret of `command` and `env`, by the name it is shown under.
    pub secrets: Secrets,
    /// How the runtime was chosen, where a `runtimeHint` named a language.
    pub runtime_note: Option<String>,
    /// A registry package installed before the server starts, which then starts from it.
    pub install: Option<crate::install::Install>,
}

impl Launch {
    /// A launch whose credentials no input marked are marked by their shape or flag, and
    /// whose secrets each have a name of their own.
    pub fn new(mut command: Vec<Shown>, mut env: Vec<(String, Shown)>) -> Self {
        mark_credentials(&mut command);
        for (name, value) in &mut env {
            mark_value_credentials(value, name);
        }
        let secrets = Secrets::collect(command.iter_mut().chain(env.iter_mut().map(|(_, v)| v)));
        Self {
            command,
            cwd: None,
            env,
            setup: None,
            secrets,
            runtime_note: None,
            install: None,
        }
    }

    /// The program and arguments the server is started with.
    pub fn argv(&self) -> Vec<String> {
        self.command.iter().map(Shown::value).collect()
    }

    /// The variables the server is given.
    pub fn env_values(&self) -> Vec<(String, String)> {
        self.env
            .iter()
            .map(|(k, v)| (k.clone(), v.value()))
            .collect()
    }
}

/// Values a manifest supplies for a `server.json` entry's inputs.
#[derive(Debug, Clone, Default)]
pub struct Supplied {
    pub env: BTreeMap<String, String>,
    /// Argument values and `{variables}`, by valueHint, flag name or variable name.
    pub inputs: BTreeMap<String, String>,
    /// Values for a remote's headers, by header name.
    pub headers: BTreeMap<String, HeaderValue>,
}

pub fn load(path: &Path) -> Result<Vec<Entry>, Error> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::Input(format!(
            "manifest {shown}: cannot read it ({e}); give the path of a JSON or JSON Lines file"
        ))
    })?;
    if meta.len() > MAX_MANIFEST_BYTES {
        return Err(Error::Input(format!(
            "manifest {shown}: {} bytes is more than the {MAX_MANIFEST_BYTES} accepted; split it",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Input(format!(
            "manifest {shown}: cannot read it as UTF-8 text ({e})"
        ))
    })?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // An empty file is a manifest without entries, said as for `[]`, not as serde's EOF.
    if text.trim().is_empty() {
        return Err(no_entries(path));
    }
    let values =
        split_entries(&text, path).map_err(|e| Error::Input(format!("manifest {shown}: {e}")))?;
    let mut entries = Vec::with_capacity(values.len());
    let mut seen: HashMap<String, String> = HashMap::new();
    for (position, value) in values {
        let entry = parse_entry(value, &position, dir)
            .map_err(|e| Error::Input(format!("manifest {shown}, {position}: {e}")))?;
        if let Some(first) = seen.insert(entry.id.clone(), position.clone()) {
            return Err(Error::Input(format!(
                "manifest {shown}: id {:?} appears at {first} and again at {position}; ids must be unique",
                excerpt(&entry.id, 60)
            )));
        }
        entries.push(entry);
    }
    if entries.is_empty() {
        return Err(no_entries(path));
    }
    Ok(entries)
}

fn no_entries(path: &Path) -> Error {
    Error::Input(format!(
        "manifest {}: no entries; give at least one server",
        path.display()
    ))
}

/// The entries with their positions: a JSON array, a registry response, one object, or JSON Lines.
fn split_entries(text: &str, path: &Path) -> Result<Vec<(String, Value)>, EntryError> {
    let lines_format = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson")
    );
    if !lines_format {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => return Ok(numbered(items)),
            Ok(Value::Object(obj)) => {
                if let Some(Value::Array(items)) = obj.get("servers") {
                    return Ok(numbered(items.clone()));
                }
                return Ok(vec![("entry 1".into(), Value::Object(obj))]);
            }
            Ok(_) => {
                return Err(EntryError(
                    "expected an array of entries, an object or JSON Lines".into(),
                ));
            }
            Err(e) => {
                // Several lines that each hold one value are JSON Lines, whatever the extension.
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                if text.lines().filter(|l| !l.trim().is_empty()).count() < 2
                    || serde_json::from_str::<Value>(first).is_err()
                {
                    return Err(EntryError(format!("not valid JSON ({e})")));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str::<Value>(line)
            .map_err(|e| EntryError(format!("line {}: not valid JSON ({e})", i + 1)))?;
        out.push((format!("line {}", i + 1), value));
    }
    Ok(out)
}

fn numbered(items: Vec<Value>) -> Vec<(String, Value)> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| (format!("entry {}", i + 1), v))
        .collect()
}

fn parse_entry(value: Value, position: &str, dir: &Path) -> Result<Entry, EntryError> {
    let Value::Object(obj) = value else {
        return Err(EntryError("an entry must be a JSON object".into()));
    };
    if let Some(server) = obj.get("server") {
        // A registry API item ({"server": {...}, "_meta": ...}) or our wrapper with id/env/inputs.
        let Value::Object(server) = server else {
            return Err(EntryError("`server` must be a server.json object".into()));
        };
        let id = match obj.get("id") {
            Some(v) => Some(string_field(v, "id")?),
            None => None,
        };
        let supplied = Supplied {
            env: string_map(obj.get("env"), "env")?,
            inputs: string_map(obj.get("inputs"), "inputs")?,
            headers: remote::header_map(obj.get("headers"))?
                .into_iter()
                .filter_map(|(name, value)| Some((name, value?)))
                .collect(),
        };
        let launch_extras = (cwd(obj.get("cwd"), dir)?, setup(obj.get("setup"))?);
        return registry_entry(server, id, &supplied, launch_extras, position);
    }
    if obj.contains_key("command") {
        return command_entry(&obj, position, dir);
    }
    if obj.contains_key("url") {
        let id = valid_id(string_field(obj.get("id").unwrap_or(&Value::Null), "id")?)?;
        let plan = remote::manifest_plan(&obj)?;
        let position = position.to_string();
        return Ok(Entry { id, position, plan });
    }
    if obj.contains_key("packages") || obj.contains_key("remotes") || obj.contains_key("name") {
        return registry_entry(&obj, None, &Supplied::default(), (None, None), position);
    }
    Err(EntryError("needs `command` (an array: program and arguments), `url` (a remote server) or MCP registry server.json fields (`name`, `packages`)".into()))
}

fn command_entry(
    obj: &Map<String, Value>,
    position: &str,
    dir: &Path,
) -> Result<Entry, EntryError> {
    if let Some(key) = obj.keys().find(|k| !COMMAND_KEYS.contains(&k.as_str())) {
        return Err(EntryError(format!(
            "unknown key {:?}; a command entry has {}",
            excerpt(key, 40),
            COMMAND_KEYS.join(", ")
        )));
    }
    let id = valid_id(string_field(obj.get("id").unwrap_or(&Value::Null), "id")?)?;
    let command = command_argv(obj)?;
    let mut env = Vec::new();
    let mut missing = Vec::new();
    if let Some(v) = obj.get("env") {
        let Value::Object(map) = v else {
            return Err(EntryError("`env` must be an object of NAME: value".into()));
        };
        for (name, value) in map {
            valid_env_name(name)?;
            match value {
                // Values the manifest gives are never shown: `${NAME}` stands for them.
                Value::String(s) => env.push((name.clone(), Shown::secret(name, s.clone()))),
                // Declared but not given: the server needs it, the manifest does not have it.
                Value::Null => missing.push(name.clone()),
                _ => {
                    return Err(EntryError(format!(
                        "env {}: the value must be a string (or null when not given)",
                        excerpt(name, 40)
                    )))
                }
            }
        }
    }
    let plan = if missing.is_empty() {
        let mut launch = Launch::new(command.into_iter().map(Shown::text).collect(), env);
        launch.cwd = cwd(obj.get("cwd"), dir)?;
        launch.setup = setup(obj.get("setup"))?;
        EntryPlan::Launch(launch)
    } else {
        needs_configuration(missing)
    };
    Ok(Entry {
        id,
        position: position.to_string(),
        plan,
    })
}

fn registry_entry(
    server: &Map<String, Value>,
    id: Option<String>,
    supplied: &Supplied,
    (cwd, setup): (Option<PathBuf>, Option<Vec<String>>),
    position: &str,
) -> Result<Entry, EntryError> {
    let name = server.get("name").and_then(Value::as_str);
    let version = server.get("version").and_then(Value::as_str);
    let id =
        match (id, name, version) {
            (Some(id), _, _) => id,
            (None, Some(n), Some(v)) if !v.is_empty() => format!("{n}@{v}"),
            (None, Some(n), _) => n.to_string(),
            (None, None, _) => return Err(EntryError(
                "a server.json entry needs `name` (or wrap it as {\"id\": ..., \"server\": {...}})"
                    .into(),
            )),
        };
    let id = valid_id(id)?;
    let plan = match server_json::launch_plan(server, supplied) {
        EntryPlan::Launch(mut launch) => {
            launch.cwd = cwd;
            launch.setup = setup;
            EntryPlan::Launch(launch)
        }
        other => other,
    };
    Ok(Entry {
        id,
        position: position.to_string(),
        plan,
    })
}

pub fn needs_configuration(missing: Vec<String>) -> EntryPlan {
    let names: Vec<String> = missing.iter().map(|m| excerpt(m, 60)).collect();
    EntryPlan::NeedsConfiguration {
        reason: format!(
            "required values not given: {}; supply them in the manifest",
            names.join(", ")
        ),
        missing: names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    #[test]
    fn reads_json_lines_with_positions() {
        let (_d, path) = write(
            "m.jsonl",
            "{\"id\":\"a\",\"command\":[\"python3\",\"a.py\"],\"env\":{\"K\":\"v\"}}\n\n{\"id\":\"b\",\"command\":[\"node\",\"b.js\"]}\n",
        );
        let entries = load(&path).expect("manifest");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].position, "line 3");
        let EntryPlan::Launch(l) = &entries[0].plan else {
            panic!("launch")
        };
        assert_eq!(l.argv(), ["python3", "a.py"]);
        assert_eq!(l.env_values(), [("K".to_string(), "v".to_string())]);
    }

    #[test]
    fn a_string_command_takes_its_arguments_from_args() {
        let (_d, path) = write(
            "m.json",
            r#"[{"id":"a","command":"npx","args":["-y","pkg@1.0.0"]},{"id":"b","command":"node"}]"#,
        );
        let entries = load(&path).expect("manifest");
        let argv = |e: &Entry| match &e.plan {
            EntryPlan::Launch(l) => l.argv(),
            other => panic!("not a launch: {other:?}"),
        };
        assert_eq!(argv(&entries[0]), ["npx", "-y", "pkg@1.0.0"]);
        assert_eq!(argv(&entries[1]), ["node"]);
        let (_d, path) = write("m.json", r#"[{"id":"a","command":["npx"],"args":["x"]}]"#);
        assert!(load(&path)
            .expect_err("both")
            .message()
            .to_string()
            .contains("give `args` only with a string `command`"));
        let (_d, path) = write("m.json", r#"[{"id":"a","command":"npx","args":[1]}]"#);
        assert!(load(&path)
            .expect_err("args")
            .message()
            .to_string()
            .contains("`args` must hold only strings"));
    }

    #[test]
    fn reads_a_registry_api_response() {
        let (_d, path) = write(
            "m.json",
            r#"{"servers":[{"server":{"name":"io.github.x/y","version":"1.0.0","packages":[{"registryType":"npm","identifier":"y","version":"1.0.0","transport":{"type":"stdio"}}]},"_meta":{}}],"metadata":{}}"#,
        );
        let entries = load(&path).expect("manifest");
        assert_eq!(entries[0].id, "io.github.x/y@1.0.0");
        let EntryPlan::Launch(l) = &entries[0].plan else {
            panic!("launch")
        };
        assert_eq!(l.argv(), ["npx", "-y", "y@1.0.0"]);
    }

    #[test]
    fn an_empty_file_is_said_as_an_empty_array_is() {
        for text in ["", "  \n", "[]"] {
            let (_d, path) = write("m.json", text);
            let e = load(&path).expect_err("empty").message().to_string();
            assert!(
                e.ends_with("m.json: no entries; give at least one server"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_null_env_value_means_needs_configuration() {
        let (_d, path) = write(
            "m.json",
            r#"[{"id":"a","command":["x"],"env":{"API_TOKEN":null}}]"#,
        );
        let entries = load(&path).expect("manifest");
        assert_eq!(
            entries[0].plan,
            needs_configuration(vec!["API_TOKEN".into()])
        );
    }

    #[test]
    fn rejects_duplicates_typos_and_bad_json_with_the_place() {
        let (_d, path) = write(
            "m.json",
            r#"[{"id":"a","command":["x"]},{"id":"a","command":["y"]}]"#,
        );
        let e = load(&path).expect_err("duplicate").message().to_string();
        assert!(
            e.contains("\"a\" appears at entry 1 and again at entry 2"),
            "{e}"
        );
        let (_d, path) = write("m.json", r#"[{"id":"a","comand":["x"],"command":["x"]}]"#);
        let e = load(&path).expect_err("typo").message().to_string();
        assert!(e.contains("entry 1: unknown key \"comand\""), "{e}");
        let (_d, path) = write("m.jsonl", "{\"id\":\"a\",\"command\":[\"x\"]}\n{oops\n");
        let e = load(&path).expect_err("bad line").message().to_string();
        assert!(e.contains("line 2: not valid JSON"), "{e}");
        let (_d, path) = write("m.json", r#"[{"id":"a","command":[]}]"#);
        assert!(load(&path)
            .expect_err("empty")
            .message()
            .to_string()
            .contains("`command` is empty"));
        let (_d, path) = write("m.json", r#"[{"id":"a","command":["x"],"cwd":"nope"}]"#);
        assert!(load(&path)
            .expect_err("cwd")
            .message()
            .to_string()
            .contains("not a directory"));
    }
}
