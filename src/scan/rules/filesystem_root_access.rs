//! `filesystem-root-access`: the server is handed `/`, a drive root or the whole home
//! directory, as an argument, a docker mount or a directory setting.

use super::{describe_place, option_value, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{Finding, Risk};
use crate::scan::config_file::{ServerEntry, Str};

pub struct FilesystemRootAccess;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    Root,
    Home,
}

/// Options whose `/` is a URL prefix, not a directory.
const NOT_A_DIRECTORY: &[&str] = &[
    "prefix",
    "route",
    "endpoint",
    "url",
    "uri",
    "base-path",
    "mount-path",
    "path-prefix",
    "base-url",
];

impl ConfigRule for FilesystemRootAccess {
    fn code(&self) -> Code {
        Code::FilesystemRootAccess
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let mut report = |at: &Str, reach: Reach, shown: &str| {
            let what = match reach {
                Reach::Root => "the whole filesystem",
                Reach::Home => {
                    "the whole home directory (SSH keys, cloud credentials, browser data)"
                }
            };
            let mut f = cx
                .finding(
                    Code::FilesystemRootAccess,
                    at,
                    format!(
                        "Server {:?} is given {what} through {}.",
                        crate::finding::excerpt(&server.name, 60),
                        describe_place(server, at)
                    ),
                )
                .evidence(shown)
                .fix("Grant only the directories the server needs, such as the project directory.");
            if reach == Reach::Home {
                f = f.risk(Risk::Medium);
            }
            out.push(f);
        };
        let mut previous: Option<&str> = None;
        for arg in &server.args {
            let (name, inline) = option_value(&arg.value);
            let prev_is_url_option = previous.is_some_and(|p| {
                let p = p.trim_start_matches('-').to_ascii_lowercase();
                NOT_A_DIRECTORY.iter().any(|w| p.contains(w))
            });
            previous = Some(&arg.value);
            let candidate = match inline {
                Some(v)
                    if !NOT_A_DIRECTORY
                        .iter()
                        .any(|w| name.to_ascii_lowercase().contains(w)) =>
                {
                    v
                }
                Some(_) => continue,
                None if prev_is_url_option => continue,
                None => name,
            };
            // docker -v SRC:DST and --mount type=bind,source=SRC,…
            let source = mount_source(candidate).unwrap_or(candidate);
            if let Some(reach) = reach(source) {
                report(arg, reach, &crate::finding::excerpt(&arg.value, 80));
            }
        }
        for env in &server.env {
            let words = env.name.to_ascii_uppercase();
            let dir_setting = [
                "DIR",
                "ROOT",
                "FOLDER",
                "WORKSPACE",
                "ALLOWED",
                "PATHS",
                "MOUNT",
            ]
            .iter()
            .any(|w| words.contains(w));
            if !dir_setting {
                continue;
            }
            for part in env.value.value.split([',', ';']) {
                if let Some(r) = reach(part.trim()) {
                    report(
                        &env.value,
                        r,
                        &format!(
                            "{}={}",
                            crate::finding::excerpt(&env.name, 60),
                            crate::finding::excerpt(part.trim(), 40)
                        ),
                    );
                    break;
                }
            }
        }
    }
}

/// The source of a docker volume or mount specification.
fn mount_source(spec: &str) -> Option<&str> {
    if spec.contains("source=") || spec.contains("src=") {
        return spec.split(',').find_map(|kv| {
            kv.strip_prefix("source=")
                .or_else(|| kv.strip_prefix("src="))
        });
    }
    // SRC:DST[:opts], but not a Windows drive (C:\…) on its own.
    let (src, rest) = spec.split_once(':')?;
    let drive = src.len() == 1 && src.as_bytes()[0].is_ascii_alphabetic();
    if rest.is_empty() || (drive && rest.starts_with(['\\', '/']) && !rest.contains(':')) {
        return None;
    }
    Some(src)
}

/// How much of the filesystem a path value opens.
fn reach(path: &str) -> Option<Reach> {
    let p = path.trim();
    let trimmed = p.trim_end_matches(['/', '\\']);
    if p.starts_with('/') && trimmed.is_empty() || p == "/*" {
        return Some(Reach::Root);
    }
    let b = trimmed.as_bytes();
    if b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some(Reach::Root);
    }
    if matches!(
        trimmed,
        "~" | "$HOME"
            | "${HOME}"
            | "%USERPROFILE%"
            | "%HOMEPATH%"
            | "${env:HOME}"
            | "${env:USERPROFILE}"
            | "${userHome}"
            | "/home"
            | "/Users"
            | "/root"
    ) {
        return Some(Reach::Home);
    }
    // /home/NAME, /Users/NAME, C:\Users\NAME: one component under the homes directory.
    let normal = trimmed.replace('\\', "/");
    let parts: Vec<&str> = normal.split('/').collect();
    let under_homes = match parts.as_slice() {
        ["", "home" | "Users", name] => !name.is_empty(),
        [drive, "Users", name] => drive.len() == 2 && drive.ends_with(':') && !name.is_empty(),
        _ => false,
    };
    under_homes.then_some(Reach::Home)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_of_paths() {
        for p in ["/", "//", "C:\\", "C:/", "D:"] {
            assert_eq!(reach(p), Some(Reach::Root), "{p}");
        }
        for p in [
            "~",
            "~/",
            "$HOME",
            "${HOME}",
            "%USERPROFILE%",
            "/home/ada",
            "/Users/ada/",
            "C:\\Users\\ada",
            "/root",
        ] {
            assert_eq!(reach(p), Some(Reach::Home), "{p}");
        }
        for p in [
            "/home/ada/projects",
            "~/code",
            ".",
            "/srv/data",
            "${workspaceFolder}",
            "C:\\Users\\ada\\src",
        ] {
            assert_eq!(reach(p), None, "{p}");
        }
        assert_eq!(mount_source("/:/host:ro"), Some("/"));
        assert_eq!(mount_source("type=bind,source=/,target=/x"), Some("/"));
        assert_eq!(mount_source("C:\\"), None);
        assert_eq!(mount_source("/:/host"), Some("/"));
    }
}
