//! One server entry of a config: stdio (command, args, env) or remote (url, headers), every
//! value with its logical path and span, and what could not be understood.

use super::jsonc::{pointer_token, Node, Span, Spanned};
use std::path::{Path, PathBuf};

/// A string value with where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Str {
    pub value: String,
    pub pointer: String,
    pub span: Span,
}

/// A named string: an environment variable or a header.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedStr {
    pub name: String,
    pub value: Str,
}

/// Every string value under an entry, with the member key that holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    pub key: Option<String>,
    pub value: Str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
    Sse,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

/// A boolean value under an entry, with the member key that holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    pub key: Option<String>,
    pub value: bool,
    pub pointer: String,
    pub span: Span,
}

/// Whether a client could load an entry with this problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// No client loads it: a known field of the wrong type, no command and no url.
    Invalid,
    /// A shape the scanner does not know, which some client might load.
    Unknown,
}

/// Something about an entry the scanner could not make sense of.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryProblem {
    pub kind: ProblemKind,
    pub pointer: String,
    pub span: Span,
    pub message: String,
}

/// One server entry of a config.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    pub name: String,
    pub pointer: String,
    pub span: Span,
    /// `None` when the entry was not understood (see `problems`).
    pub transport: Option<Transport>,
    pub command: Option<Str>,
    pub args: Vec<Str>,
    pub env: Vec<NamedStr>,
    pub headers: Vec<NamedStr>,
    pub url: Option<Str>,
    pub cwd: Option<Str>,
    pub disabled: bool,
    /// The entry configures OAuth or another auth block.
    pub has_auth_block: bool,
    pub leaves: Vec<Leaf>,
    /// Every boolean value under the entry (`"rejectUnauthorized": false`).
    pub flags: Vec<Flag>,
    pub problems: Vec<EntryProblem>,
    /// Where a client would start it (the project root, or the given cwd).
    pub project_dir: Option<PathBuf>,
}

impl ServerEntry {
    pub fn is_remote(&self) -> bool {
        matches!(self.transport, Some(Transport::Http | Transport::Sse))
    }
}

pub(super) fn read_entry(
    name: &str,
    pointer: String,
    value: &Spanned,
    dir: Option<&Path>,
) -> ServerEntry {
    let mut e = ServerEntry {
        name: name.to_string(),
        pointer: pointer.clone(),
        span: value.span,
        transport: None,
        command: None,
        args: Vec::new(),
        env: Vec::new(),
        headers: Vec::new(),
        url: None,
        cwd: None,
        disabled: false,
        has_auth_block: false,
        leaves: Vec::new(),
        flags: Vec::new(),
        problems: Vec::new(),
        project_dir: dir.map(Path::to_path_buf),
    };
    collect_leaves(value, &pointer, None, &mut e, 0);
    if value.members().is_none() {
        e.problems.push(EntryProblem {
            kind: ProblemKind::Invalid,
            pointer,
            span: value.span,
            message: format!("the entry is {}, not an object", value.kind()),
        });
        return e;
    }
    let mut problem = |e: &mut ServerEntry, key: &str, v: &Spanned, what: &str| {
        e.problems.push(EntryProblem {
            kind: ProblemKind::Invalid,
            pointer: format!("{pointer}/{}", pointer_token(key)),
            span: v.span,
            message: format!("{key} is {}, expected {what}", v.kind()),
        })
    };
    let string = |e: &mut ServerEntry,
                  key: &str,
                  problem: &mut dyn FnMut(&mut ServerEntry, &str, &Spanned, &str)|
     -> Option<Str> {
        let v = value.get(key)?;
        match v.as_str() {
            Some(s) => Some(Str {
                value: s.to_string(),
                pointer: format!("{}/{}", e.pointer, pointer_token(key)),
                span: v.span,
            }),
            None => {
                problem(e, key, v, "a string");
                None
            }
        }
    };
    e.command = string(&mut e, "command", &mut problem);
    e.url =
        string(&mut e, "url", &mut problem).or_else(|| string(&mut e, "serverUrl", &mut problem));
    e.cwd = string(&mut e, "cwd", &mut problem);
    let declared = string(&mut e, "type", &mut problem)
        .or_else(|| string(&mut e, "transport", &mut problem))
        .or_else(|| string(&mut e, "transportType", &mut problem));
    if let Some(args) = value.get("args") {
        match &args.node {
            Node::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let p = format!("{pointer}/args/{i}");
                    match item.as_str() {
                        Some(s) => e.args.push(Str {
                            value: s.to_string(),
                            pointer: p,
                            span: item.span,
                        }),
                        None => e.problems.push(EntryProblem {
                            kind: ProblemKind::Invalid,
                            pointer: p,
                            span: item.span,
                            message: format!("args[{i}] is {}, expected a string", item.kind()),
                        }),
                    }
                }
            }
            _ => problem(&mut e, "args", args, "an array of strings"),
        }
    }
    for (key, into_headers) in [("env", false), ("headers", true), ("requestInit", true)] {
        let Some(v) = value.get(key) else { continue };
        // requestInit is the fetch() options object some clients accept: its headers count.
        let v = if key == "requestInit" {
            match v.get("headers") {
                Some(h) => h,
                None => continue,
            }
        } else {
            v
        };
        let base = if key == "requestInit" {
            format!("{pointer}/requestInit/headers")
        } else {
            format!("{pointer}/{key}")
        };
        let Some(members) = v.members() else {
            problem(&mut e, key, v, "an object of strings");
            continue;
        };
        for m in members {
            let p = format!("{base}/{}", pointer_token(&m.key));
            let Some(s) = scalar_text(&m.value) else {
                e.problems.push(EntryProblem {
                    kind: ProblemKind::Invalid,
                    pointer: p,
                    span: m.value.span,
                    message: format!("{key}.{} is {}, expected a string", m.key, m.value.kind()),
                });
                continue;
            };
            let named = NamedStr {
                name: m.key.clone(),
                value: Str {
                    value: s,
                    pointer: p,
                    span: m.value.span,
                },
            };
            if into_headers {
                e.headers.push(named);
            } else {
                e.env.push(named);
            }
        }
    }
    e.disabled = matches!(
        value.get("disabled").map(|v| &v.node),
        Some(Node::Bool(true))
    ) || matches!(
        value.get("enabled").map(|v| &v.node),
        Some(Node::Bool(false))
    );
    e.has_auth_block = ["oauth", "auth", "authentication", "authorization_token"]
        .iter()
        .any(|k| {
            value
                .get(k)
                .is_some_and(|v| !matches!(v.node, Node::Null | Node::Bool(false)))
        });
    if let Some(dir) = e.cwd.as_ref().map(|c| PathBuf::from(&c.value)) {
        e.project_dir = Some(match &e.project_dir {
            Some(base) if dir.is_relative() => base.join(dir),
            _ => dir,
        });
    }
    e.transport = transport(&mut e, declared.as_ref());
    e
}

/// Decides the transport, or records why the entry is not understood.
fn transport(e: &mut ServerEntry, declared: Option<&Str>) -> Option<Transport> {
    let remote = match declared.map(|t| t.value.to_ascii_lowercase()) {
        None => None,
        Some(t) if t == "stdio" => Some(false),
        Some(t)
            if matches!(
                t.as_str(),
                "http" | "streamable-http" | "streamablehttp" | "streamable_http"
            ) =>
        {
            Some(true)
        }
        Some(t) if t == "sse" => Some(true),
        Some(_) => {
            let t = declared?;
            e.problems.push(EntryProblem {
                kind: ProblemKind::Unknown,
                pointer: t.pointer.clone(),
                span: t.span,
                message: format!(
                    "unknown transport type {:?}; expected stdio, http, sse or streamable-http",
                    crate::finding::excerpt(&t.value, 40)
                ),
            });
            return None;
        }
    };
    let sse = declared.is_some_and(|t| t.value.eq_ignore_ascii_case("sse"));
    // A command or url of the wrong type is reported at its value already: one finding a fault.
    let mistyped = e.problems.iter().any(|p| {
        ["command", "url", "serverUrl"]
            .iter()
            .any(|k| p.pointer == format!("{}/{k}", e.pointer))
    });
    let missing = |e: &mut ServerEntry, what: &str| {
        if mistyped {
            return None;
        }
        e.problems.push(EntryProblem {
            kind: ProblemKind::Invalid,
            pointer: e.pointer.clone(),
            span: e.span,
            message: what.to_string(),
        });
        None
    };
    match (remote, &e.command, &e.url) {
        (Some(false), Some(c), _) | (None, Some(c), _) if !c.value.trim().is_empty() => {
            Some(Transport::Stdio)
        }
        (Some(false) | None, Some(_), _) => missing(e, "the command is empty"),
        (Some(false), None, _) => missing(e, "a stdio entry needs a command"),
        (Some(true) | None, _, Some(_)) => Some(if sse { Transport::Sse } else { Transport::Http }),
        (Some(true), _, None) => missing(e, "a remote entry needs a url"),
        (None, None, None) => missing(
            e,
            "the entry has neither a command (stdio) nor a url (remote server)",
        ),
    }
}

/// A string, or a number or boolean written where a string belongs (clients coerce those).
fn scalar_text(v: &Spanned) -> Option<String> {
    match &v.node {
        Node::String(s) => Some(s.clone()),
        Node::Number(n) => Some(n.clone()),
        Node::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Every string value under `v`, with the member key that holds it.
pub(super) fn string_leaves(
    v: &Spanned,
    pointer: &str,
    key: Option<&str>,
    out: &mut Vec<Leaf>,
    depth: usize,
) {
    if depth > MAX_LEAF_DEPTH {
        return;
    }
    match &v.node {
        Node::String(s) => out.push(Leaf {
            key: key.map(str::to_string),
            value: Str {
                value: s.clone(),
                pointer: pointer.to_string(),
                span: v.span,
            },
        }),
        Node::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                string_leaves(item, &format!("{pointer}/{i}"), key, out, depth + 1);
            }
        }
        Node::Object(members) => {
            for m in members {
                let p = format!("{pointer}/{}", pointer_token(&m.key));
                string_leaves(&m.value, &p, Some(&m.key), out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Deep enough for any real entry; bounds the work on hostile input.
const MAX_LEAF_DEPTH: usize = 32;

fn collect_leaves(
    v: &Spanned,
    pointer: &str,
    key: Option<&str>,
    e: &mut ServerEntry,
    depth: usize,
) {
    if depth > MAX_LEAF_DEPTH {
        return;
    }
    match &v.node {
        Node::String(s) => e.leaves.push(Leaf {
            key: key.map(str::to_string),
            value: Str {
                value: s.clone(),
                pointer: pointer.to_string(),
                span: v.span,
            },
        }),
        Node::Bool(b) => e.flags.push(Flag {
            key: key.map(str::to_string),
            value: *b,
            pointer: pointer.to_string(),
            span: v.span,
        }),
        Node::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_leaves(item, &format!("{pointer}/{i}"), key, e, depth + 1);
            }
        }
        Node::Object(members) => {
            for m in members {
                let p = format!("{pointer}/{}", pointer_token(&m.key));
                collect_leaves(&m.value, &p, Some(&m.key), e, depth + 1);
            }
        }
        _ => {}
    }
}
