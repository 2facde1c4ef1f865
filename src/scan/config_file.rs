//! One MCP client config file: its servers (stdio and remote), with every value's logical
//! path and byte span. Entries the scanner does not understand are kept with their problems.

use super::jsonc::{self, pointer_token, LineIndex, Span, Spanned};
use super::server_entry::read_entry;
pub use super::server_entry::{
    EntryProblem, Flag, Leaf, NamedStr, ProblemKind, ServerEntry, Str, Transport,
};
use crate::finding::Location;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Files larger than this are not configs worth parsing (and would cost unbounded time).
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The client a file belongs to, guessed from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    VsCode,
    Windsurf,
    Unknown,
}

impl Client {
    pub fn as_str(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Unknown => "unknown",
        }
    }

    pub fn of(path: &Path) -> Client {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let parent = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("");
        match (parent, name) {
            (_, ".mcp.json" | ".claude.json") => Client::ClaudeCode,
            (_, "claude_desktop_config.json") => Client::ClaudeDesktop,
            (".cursor", "mcp.json") => Client::Cursor,
            (".vscode" | "User", "mcp.json" | "settings.json") => Client::VsCode,
            (_, "mcp_config.json") => Client::Windsurf,
            _ => Client::Unknown,
        }
    }
}

/// How the file was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Found in the project tree.
    Project,
    /// A user-level config (read by scan and inventory without paths, or with `--global`).
    Global,
    /// Named on the command line.
    Explicit,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Global => "global",
            Scope::Explicit => "explicit",
        }
    }
}

/// A parsed config file.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The path as shown in reports (relative to the working directory when inside it).
    pub display: String,
    pub path: PathBuf,
    pub client: Client,
    pub scope: Scope,
    pub text: String,
    pub lines: LineIndex,
    pub servers: Vec<ServerEntry>,
    /// Problems with the file's shape, outside any one entry.
    pub problems: Vec<EntryProblem>,
    /// String values outside every server entry (VS Code `inputs`, other settings).
    pub other_leaves: Vec<Leaf>,
}

impl ConfigFile {
    /// The location of a value: file, 1-based line and column of its start and end, logical path.
    pub fn location(&self, pointer: &str, span: Span) -> Location {
        let (line, column) = self.lines.position(&self.text, span.start);
        let (end_line, end_column) = self.lines.position(&self.text, span.end);
        Location {
            file: Some(self.display.clone()),
            line: Some(line),
            column: Some(column),
            end_line: Some(end_line),
            end_column: Some(end_column),
            logical: Some(pointer.to_string()),
            ..Location::default()
        }
    }

    pub fn at(&self, s: &Str) -> Location {
        self.location(&s.pointer, s.span)
    }
}

/// Why a file could not be read as a config: an input error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// Reads and parses one config file.
pub fn load(path: &Path, display: &str, scope: Scope) -> Result<ConfigFile, ConfigError> {
    let size = std::fs::metadata(path)
        .map_err(|e| ConfigError(format!("{display}: cannot read ({e})")))?
        .len();
    if size > MAX_CONFIG_BYTES {
        return Err(ConfigError(format!(
            "{display}: {size} bytes is larger than the {MAX_CONFIG_BYTES}-byte limit for a config file; scan a smaller file"
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| ConfigError(format!("{display}: cannot read ({e})")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        ConfigError(format!(
            "{display}: not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse(path, display, scope, text)
}

/// Parses config text (the path only decides the client and the project directory).
pub fn parse(
    path: &Path,
    display: &str,
    scope: Scope,
    text: String,
) -> Result<ConfigFile, ConfigError> {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    };
    let root = jsonc::parse(&text).map_err(|e| {
        ConfigError(format!(
            "{display}:{}:{}: not valid JSON with comments: {}; fix the syntax there",
            e.line, e.column, e.message
        ))
    })?;
    let mut file = ConfigFile {
        display: display.to_string(),
        path: path.to_path_buf(),
        client: Client::of(path),
        scope,
        lines: LineIndex::new(&text),
        text: String::new(),
        servers: Vec::new(),
        problems: Vec::new(),
        other_leaves: Vec::new(),
    };
    let default_dir = project_dir(path, scope);
    // Where the structure itself is wrong no client can load the file: an input error at
    // the value, not a finding. Objects of an unknown shape stay findings (unknown-server-entry).
    let schema_error = |at: &Spanned, what: &str, expected: &str| {
        let (line, column) = file.lines.position(&text, at.span.start);
        ConfigError(format!(
            "{display}:{line}:{column}: {what} is {}, expected {expected}; fix the config there",
            at.kind()
        ))
    };
    if root.members().is_none() {
        return Err(schema_error(
            &root,
            "the file",
            "an object with mcpServers or servers",
        ));
    }
    // Only VS Code keeps servers under "mcp" in a settings.json, wherever the file was copied.
    if file.client == Client::Unknown
        && path.file_name().and_then(|n| n.to_str()) == Some("settings.json")
        && root.get("mcp").is_some()
    {
        file.client = Client::VsCode;
    }
    let mut sections: Vec<(String, &Spanned, Option<PathBuf>)> = Vec::new();
    for key in ["mcpServers", "servers"] {
        if let Some(v) = root.get(key) {
            sections.push((format!("/{key}"), v, default_dir.clone()));
        }
    }
    // VS Code user settings nest them under "mcp".
    if let Some(v) = root.get("mcp").and_then(|m| m.get("servers")) {
        sections.push(("/mcp/servers".into(), v, default_dir.clone()));
    }
    // Claude Code's ~/.claude.json keeps per-project servers under projects/<path>.
    if let Some(projects) = root.get("projects").and_then(Spanned::members) {
        for p in projects {
            if let Some(v) = p.value.get("mcpServers") {
                let pointer = format!("/projects/{}/mcpServers", pointer_token(&p.key));
                sections.push((pointer, v, Some(PathBuf::from(&p.key))));
            }
        }
    }
    for (pointer, section, dir) in sections {
        let Some(members) = section.members() else {
            return Err(schema_error(
                section,
                &pointer,
                "an object of servers by name ({\"name\": {\"command\": …}})",
            ));
        };
        for m in members {
            let entry_pointer = format!("{pointer}/{}", pointer_token(&m.key));
            if m.value.members().is_none() {
                return Err(schema_error(
                    &m.value,
                    &format!("server {entry_pointer}"),
                    "an object with a command (stdio) or a url (remote)",
                ));
            }
            file.servers
                .push(read_entry(&m.key, entry_pointer, &m.value, dir.as_deref()));
        }
    }
    let mut all = Vec::new();
    super::server_entry::string_leaves(&root, "", None, &mut all, 0);
    // A leaf is inside an entry when one of its pointer's prefixes (ending before a `/`) is
    // the entry's pointer: as many lookups as the leaf is deep, whatever the number of servers.
    let entries: HashSet<&str> = file.servers.iter().map(|e| e.pointer.as_str()).collect();
    let inside = |pointer: &str| {
        pointer
            .match_indices('/')
            .any(|(i, _)| i > 0 && entries.contains(&pointer[..i]))
    };
    let other_leaves = all
        .into_iter()
        .filter(|l| !inside(&l.value.pointer))
        .collect();
    file.other_leaves = other_leaves;
    file.text = text;
    Ok(file)
}

/// The directory a client runs a project's servers in.
fn project_dir(path: &Path, scope: Scope) -> Option<PathBuf> {
    let dir = path.parent()?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if scope != Scope::Global && matches!(name, ".vscode" | ".cursor") {
        return dir.parent().map(Path::to_path_buf);
    }
    Some(dir.to_path_buf())
}
