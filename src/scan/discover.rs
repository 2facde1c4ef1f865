//! Which config files to scan: the paths given, the project's configs found by walking the
//! tree (hidden directories included), and the user's client configs when asked for.

use super::config_file::Scope;
use std::path::{Path, PathBuf};

/// Deepest directory level the walker descends to.
const MAX_DEPTH: usize = 24;
/// Most directory entries the walker looks at, so a huge tree cannot stall a scan.
const MAX_ENTRIES: usize = 200_000;
/// Directories that never hold client configs and can be enormous.
const SKIPPED_DIRS: &[&str] = &[".git", "node_modules"];

/// A file to scan and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    pub scope: Scope,
}

/// Whether a file in a tree is a client config by its name alone: every shape discovery
/// knows (the user-level ones too, so scanning a copied home directory finds them).
/// A `settings.json` (VS Code's) also needs an `mcp` key: see [`is_settings_with_mcp`].
pub fn is_project_config(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    matches!(
        name,
        ".mcp.json" | ".claude.json" | "claude_desktop_config.json" | "mcp_config.json"
    ) || (name == "mcp.json" && matches!(parent, ".vscode" | ".cursor" | "User"))
}

/// A `settings.json` is a config when it holds an `mcp` key, wherever it is: VS Code's user
/// and workspace settings, and copies of them (an exported profile, a backup of `User/`).
/// Every other settings file is left alone, and one that is not valid JSONC is not a config
/// either.
fn is_settings_with_mcp(path: &Path) -> bool {
    if path.file_name().and_then(|n| n.to_str()) != Some("settings.json") {
        return false;
    }
    let small =
        std::fs::metadata(path).is_ok_and(|m| m.len() <= super::config_file::MAX_CONFIG_BYTES);
    let Some(text) = small.then(|| std::fs::read_to_string(path).ok()).flatten() else {
        return false;
    };
    // Cheap test first: most settings files never mention it.
    text.contains("\"mcp\"")
        && super::jsonc::parse(text.trim_start_matches('\u{feff}'))
            .is_ok_and(|root| root.get("mcp").is_some())
}

/// The user-level config files of each client, for one operating system.
/// `var` reads the environment (HOME, APPDATA, XDG_CONFIG_HOME, USERPROFILE).
pub fn global_configs(os: &str, var: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let nonempty = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut out = Vec::new();
    match os {
        "windows" => {
            let home = nonempty("USERPROFILE").or_else(|| nonempty("HOME"));
            if let Some(appdata) = nonempty("APPDATA") {
                out.push(appdata.join("Claude").join("claude_desktop_config.json"));
                for code in ["Code", "Code - Insiders"] {
                    out.push(appdata.join(code).join("User").join("mcp.json"));
                    out.push(appdata.join(code).join("User").join("settings.json"));
                }
            }
            if let Some(home) = home {
                push_home_configs(&home, &mut out);
            }
        }
        "macos" => {
            if let Some(home) = nonempty("HOME") {
                let support = home.join("Library").join("Application Support");
                out.push(support.join("Claude").join("claude_desktop_config.json"));
                for code in ["Code", "Code - Insiders"] {
                    out.push(support.join(code).join("User").join("mcp.json"));
                    out.push(support.join(code).join("User").join("settings.json"));
                }
                push_home_configs(&home, &mut out);
            }
        }
        _ => {
            let home = nonempty("HOME");
            let config =
                nonempty("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
            if let Some(config) = config {
                out.push(config.join("Claude").join("claude_desktop_config.json"));
                for code in ["Code", "Code - Insiders"] {
                    out.push(config.join(code).join("User").join("mcp.json"));
                    out.push(config.join(code).join("User").join("settings.json"));
                }
            }
            if let Some(home) = home {
                push_home_configs(&home, &mut out);
            }
        }
    }
    out
}

/// Configs that live under the home directory on every system.
fn push_home_configs(home: &Path, out: &mut Vec<PathBuf>) {
    out.push(home.join(".claude.json"));
    out.push(home.join(".cursor").join("mcp.json"));
    out.push(
        home.join(".codeium")
            .join("windsurf")
            .join("mcp_config.json"),
    );
}

/// What the walker found, and what it had to leave out.
#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<PathBuf>,
    /// Human notes: limits reached, unreadable directories.
    pub notices: Vec<String>,
}

/// Finds project configs under `root`. Hidden directories are walked; symlinked
/// directories are not followed (they can loop).
pub fn walk(root: &Path) -> Walk {
    let mut walk = Walk::default();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                if depth == 0 {
                    walk.notices.push(format!(
                        "{}: cannot list the directory ({e})",
                        dir.display()
                    ));
                }
                continue;
            }
        };
        let mut children = Vec::new();
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                walk.notices.push(format!(
                    "stopped walking after {MAX_ENTRIES} directory entries; name the config files to scan"
                ));
                stack.clear();
                break;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                let name = entry.file_name();
                let skip = name.to_str().is_some_and(|n| SKIPPED_DIRS.contains(&n));
                if !skip && depth < MAX_DEPTH {
                    children.push((path, depth + 1));
                }
            } else if (kind.is_file() || kind.is_symlink())
                && (is_project_config(&path) || is_settings_with_mcp(&path))
                && path.is_file()
            {
                walk.files.push(path);
            }
        }
        // Reverse so the stack pops in name order; the final list is sorted anyway.
        children.sort();
        stack.extend(children.into_iter().rev());
    }
    walk.files.sort();
    walk
}

/// Shows a path relative to the working directory when it is inside it.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let s = shown.display().to_string();
    if s.is_empty() {
        ".".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn global_paths_per_os() {
        let linux = global_configs("linux", &env(&[("HOME", "/h")]));
        assert!(linux.contains(&PathBuf::from(
            "/h/.config/Claude/claude_desktop_config.json"
        )));
        assert!(linux.contains(&PathBuf::from("/h/.claude.json")));
        assert!(linux.contains(&PathBuf::from("/h/.cursor/mcp.json")));
        assert!(linux.contains(&PathBuf::from("/h/.codeium/windsurf/mcp_config.json")));
        assert!(linux.contains(&PathBuf::from("/h/.config/Code/User/mcp.json")));
        let xdg = global_configs("linux", &env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]));
        assert!(xdg.contains(&PathBuf::from("/x/Code/User/settings.json")));
        let mac = global_configs("macos", &env(&[("HOME", "/Users/a")]));
        for path in [
            "/Users/a/Library/Application Support/Claude/claude_desktop_config.json",
            "/Users/a/Library/Application Support/Code/User/mcp.json",
            "/Users/a/Library/Application Support/Code/User/settings.json",
            "/Users/a/.cursor/mcp.json",
            "/Users/a/.codeium/windsurf/mcp_config.json",
            "/Users/a/.claude.json",
        ] {
            assert!(mac.contains(&PathBuf::from(path)), "{path} in {mac:?}");
        }
        // XDG is not where macOS clients keep their configs.
        let mac_xdg = global_configs(
            "macos",
            &env(&[("HOME", "/Users/a"), ("XDG_CONFIG_HOME", "/x")]),
        );
        assert!(mac_xdg.iter().all(|p| !p.starts_with("/x")), "{mac_xdg:?}");
        let win = global_configs(
            "windows",
            &env(&[
                ("APPDATA", "C:/Users/a/AppData/Roaming"),
                ("USERPROFILE", "C:/Users/a"),
            ]),
        );
        assert!(win.contains(&PathBuf::from(
            "C:/Users/a/AppData/Roaming/Claude/claude_desktop_config.json"
        )));
        assert!(win.contains(&PathBuf::from("C:/Users/a/.claude.json")));
        assert!(global_configs("linux", &env(&[])).is_empty());
    }

    #[test]
    fn project_config_names() {
        assert!(is_project_config(Path::new("a/.mcp.json")));
        assert!(is_project_config(Path::new("a/.vscode/mcp.json")));
        assert!(is_project_config(Path::new(".cursor/mcp.json")));
        assert!(is_project_config(Path::new("h/.claude.json")));
        assert!(is_project_config(Path::new(
            "h/.codeium/windsurf/mcp_config.json"
        )));
        assert!(is_project_config(Path::new("h/.config/Code/User/mcp.json")));
        assert!(!is_project_config(Path::new("a/mcp.json")));
        assert!(!is_project_config(Path::new("a/.vscode/settings.json")));
        assert!(!is_settings_with_mcp(Path::new("a/.vscode/settings.json")));
    }
}
