//! The fields of a manifest entry, each checked as it is read: ids, argv, variables, paths.

use super::manifest::{EntryError, MAX_ID_CHARS};
use crate::finding::excerpt;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) fn string_field(v: &Value, what: &str) -> Result<String, EntryError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Err(EntryError(format!("`{what}` is missing; give a string"))),
        _ => Err(EntryError(format!("`{what}` must be a string"))),
    }
}

pub(super) fn valid_id(id: String) -> Result<String, EntryError> {
    if id.trim().is_empty() {
        return Err(EntryError(
            "`id` is empty; give each entry a unique name".into(),
        ));
    }
    if id.chars().count() > MAX_ID_CHARS {
        return Err(EntryError(format!(
            "`id` is longer than {MAX_ID_CHARS} characters"
        )));
    }
    if id.chars().any(char::is_control) {
        return Err(EntryError(format!(
            "`id` {:?} holds control characters",
            excerpt(&id, 60)
        )));
    }
    Ok(id)
}

pub(super) fn valid_env_name(name: &str) -> Result<(), EntryError> {
    if name.is_empty() || name.contains('=') || name.contains('\0') {
        return Err(EntryError(format!(
            "env name {:?} is not valid: non-empty, without '=' or NUL",
            excerpt(name, 40)
        )));
    }
    Ok(())
}

pub(super) fn argv(v: Option<&Value>, what: &str) -> Result<Option<Vec<String>>, EntryError> {
    let Some(v) = v else { return Ok(None) };
    let items = v.as_array().ok_or_else(|| {
        format!("`{what}` must be an array of strings, such as [\"python3\", \"server.py\"]")
    })?;
    let argv = items
        .iter()
        .map(|i| i.as_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()
        .ok_or_else(|| format!("`{what}` must hold only strings"))?;
    match argv.first() {
        None => Err(format!("`{what}` is empty").into()),
        Some(p) if p.is_empty() => {
            Err(format!("`{what}` starts with an empty program name").into())
        }
        Some(_) => Ok(Some(argv)),
    }
}

/// `"command": ["node", "s.js"]`, or as in client configs `"command": "node", "args": ["s.js"]`.
pub(super) fn command_argv(obj: &Map<String, Value>) -> Result<Vec<String>, EntryError> {
    let args = match obj.get("args") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .ok_or(EntryError("`args` must hold only strings".into()))?,
        Some(_) => return Err(EntryError("`args` must be an array of strings".into())),
    };
    match obj.get("command") {
        Some(Value::String(program)) if !program.is_empty() => {
            Ok(std::iter::once(program.clone()).chain(args).collect())
        }
        Some(Value::Array(_)) if obj.contains_key("args") => Err(EntryError(
            "give `args` only with a string `command`; with an array, put the arguments in it"
                .into(),
        )),
        other => argv(other, "command")?.ok_or_else(|| {
            EntryError("`command` must be a non-empty array of strings".to_string())
        }),
    }
}

pub(super) fn setup(v: Option<&Value>) -> Result<Option<Vec<String>>, EntryError> {
    argv(v, "setup")
}

pub(super) fn cwd(v: Option<&Value>, dir: &Path) -> Result<Option<PathBuf>, EntryError> {
    let Some(v) = v else { return Ok(None) };
    let raw = v
        .as_str()
        .ok_or(EntryError("`cwd` must be a string".into()))?;
    let path = PathBuf::from(raw);
    let path = if path.is_relative() {
        dir.join(path)
    } else {
        path
    };
    if !path.is_dir() {
        return Err(EntryError(format!(
            "cwd {}: not a directory (relative paths are from the manifest's directory)",
            excerpt(&path.display().to_string(), 120)
        )));
    }
    Ok(Some(path))
}

pub(super) fn string_map(
    v: Option<&Value>,
    what: &str,
) -> Result<BTreeMap<String, String>, EntryError> {
    let Some(v) = v else {
        return Ok(BTreeMap::new());
    };
    let obj = v
        .as_object()
        .ok_or_else(|| EntryError(format!("`{what}` must be an object of NAME: \"value\"")))?;
    let mut out = BTreeMap::new();
    for (k, val) in obj {
        if what == "env" {
            valid_env_name(k)?;
        }
        let s = val.as_str().ok_or_else(|| {
            EntryError(format!(
                "{what} {}: the value must be a string",
                excerpt(k, 40)
            ))
        })?;
        out.insert(k.clone(), s.to_string());
    }
    Ok(out)
}
