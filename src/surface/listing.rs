//! Saved listings: `{server, tools, prompts, resources, resourceTemplates, capabilities,
//! instructions, serverInfo}` (or an array of them), as a registry or `mcpcheck surface
//! FILE` reads them. The last three are the server's `initialize` result, when known.

use super::ServerSurface;
use crate::error::Error;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Largest listing file read.
pub const MAX_LISTING_BYTES: u64 = 16 * 1024 * 1024;

/// One server of a listing, with the part of its `initialize` result the listing has.
#[derive(Debug, Clone)]
pub struct ListedServer {
    pub surface: ServerSurface,
    /// `{capabilities, instructions, serverInfo}`, or `None` when the listing has none.
    pub initialize: Option<Value>,
}

/// Reads a listing file (`-` for stdin), bounded to [`MAX_LISTING_BYTES`].
pub fn read(path: &Path) -> Result<Vec<ListedServer>, Error> {
    let shown = path.display();
    let mut bytes = Vec::new();
    let read = if path == Path::new("-") {
        std::io::stdin()
            .take(MAX_LISTING_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_LISTING_BYTES + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| {
        Error::Input(format!(
            "{shown}: cannot read ({e}); give a readable listing file"
        ))
    })?;
    if bytes.len() as u64 > MAX_LISTING_BYTES {
        return Err(Error::Input(format!(
            "{shown}: larger than {} MiB; split the listing into one file per server",
            MAX_LISTING_BYTES / (1024 * 1024)
        )));
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        Error::Input(format!(
            "{shown}: not valid JSON ({e}); a listing is {{\"server\", \"tools\", \"prompts\", \"resources\", \"resourceTemplates\"}} or an array of them"
        ))
    })?;
    let fallback = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty() && s != "-")
        .unwrap_or_else(|| "server".into());
    parse(&value, &fallback).map_err(|e| Error::Input(format!("{shown}: {e}")))
}

/// A listing value: one server object or an array of them.
pub fn parse(value: &Value, fallback_name: &str) -> Result<Vec<ListedServer>, Error> {
    match value {
        Value::Array(servers) => servers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                server(s, &format!("{fallback_name}-{}", i + 1))
                    .map_err(|e| Error::Input(format!("server #{}: {e}", i + 1)))
            })
            .collect(),
        Value::Object(_) => Ok(vec![server(value, fallback_name)?]),
        _ => Err(Error::Input(
            "a listing must be a JSON object (one server) or an array of objects".into(),
        )),
    }
}

fn server(value: &Value, fallback_name: &str) -> Result<ListedServer, Error> {
    let Some(obj) = value.as_object() else {
        return Err(Error::Input("must be a JSON object".into()));
    };
    let name = match obj.get("server") {
        None | Some(Value::Null) => fallback_name.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(Error::Input(
                "\"server\" must be a string (the server's name)".into(),
            ))
        }
    };
    let list = |key: &str| match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(_) => Err(Error::Input(format!(
            "\"{key}\" must be an array of items, as in the result of its list method"
        ))),
    };
    let mut initialize = serde_json::Map::new();
    for (key, what) in [
        ("capabilities", "an object"),
        ("serverInfo", "an object"),
        ("instructions", "a string"),
    ] {
        match obj.get(key) {
            None | Some(Value::Null) => {}
            Some(v @ Value::Object(_)) if key != "instructions" => {
                initialize.insert(key.into(), v.clone());
            }
            Some(v @ Value::String(_)) if key == "instructions" => {
                initialize.insert(key.into(), v.clone());
            }
            Some(_) => {
                return Err(Error::Input(format!(
                    "\"{key}\" must be {what}, as in the initialize result"
                )))
            }
        }
    }
    Ok(ListedServer {
        surface: ServerSurface {
            server: name,
            tools: list("tools")?,
            prompts: list("prompts")?,
            resources: list("resources")?,
            resource_templates: list("resourceTemplates")?,
        },
        initialize: (!initialize.is_empty()).then_some(Value::Object(initialize)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_one_server_or_many() {
        let one = parse(
            &json!({"server": "a", "tools": [{"name": "t"}], "capabilities": {"tools": {}}}),
            "f",
        )
        .expect("valid");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].surface.server, "a");
        assert_eq!(one[0].surface.tools.len(), 1);
        assert_eq!(
            one[0].initialize,
            Some(json!({"capabilities": {"tools": {}}}))
        );
        let many = parse(&json!([{"tools": []}, {"server": "b"}]), "f").expect("valid");
        assert_eq!(many[0].surface.server, "f-1");
        assert_eq!(many[1].surface.server, "b");
    }

    #[test]
    fn says_what_is_wrong() {
        assert_eq!(
            parse(&json!({"tools": {}}), "f")
                .err()
                .as_ref()
                .map(Error::message),
            Some("\"tools\" must be an array of items, as in the result of its list method")
        );
        assert!(parse(&json!([1]), "f")
            .expect_err("not an object")
            .message()
            .starts_with("server #1:"));
        assert!(parse(&json!("x"), "f").is_err());
        assert_eq!(
            parse(&json!({"instructions": 3}), "f")
                .err()
                .as_ref()
                .map(Error::message),
            Some("\"instructions\" must be a string, as in the initialize result")
        );
    }
}
