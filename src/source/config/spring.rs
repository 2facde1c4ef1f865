//! Spring Boot (Spring AI's MCP servers): with `spring.ai.mcp.server.stdio=true` the app is a
//! stdio server, yet Spring Boot prints its banner and logs to the console, on stdout, unless
//! `spring.main.banner-mode=off` and console logging is off (`logging.pattern.console=` empty,
//! or `logging.threshold.console=OFF`). A logback or log4j2 file of its own (or
//! `logging.config`) replaces Spring's console logging; that file is checked on its own.
//!
//! Settings are read from every `application[-PROFILE].properties|yml|yaml` of one
//! application (a resources directory and its `config/`), merged with Spring Boot's order:
//! profile-specific over plain, `config/` over the directory, .properties over YAML, later
//! documents over earlier ones. The app is judged with no profile (or the profiles that
//! `spring.profiles.active` names) and with each profile the files mention.

use super::properties::Properties;
use super::text::Text;
use super::yaml::Yaml;
use super::{shown, Value, CHANNEL};
use crate::catalog::Code;
use crate::finding::{Finding, Location, Severity};
use crate::source::suppress::Suppressions;
use std::collections::{BTreeSet, HashMap, HashSet};

const STDIO: &str = "spring.ai.mcp.server.stdio";
const BANNER_MODE: &str = "spring.main.bannermode";
const CONSOLE_PATTERN: &str = "logging.pattern.console";
const CONSOLE_THRESHOLD: &str = "logging.threshold.console";
const LOGGING_CONFIG: &str = "logging.config";
const ACTIVE_PROFILES: &str = "spring.profiles.active";
const ON_PROFILE: &str = "spring.config.activate.onprofile";
const LEGACY_ON_PROFILE: &str = "spring.profiles";

/// `application` or `application-PROFILE`.
pub fn is_application_stem(stem: &str) -> bool {
    stem == "application"
        || stem
            .strip_prefix("application-")
            .is_some_and(|p| !p.is_empty())
}

/// One setting of a file, before the file's place is known.
#[derive(Debug, Clone)]
pub struct Setting {
    /// Relaxed-binding form: lower case, without `-` and `_` (`bannerMode` = `banner-mode`).
    pub key: String,
    pub value: Value,
    pub document: usize,
    /// The profiles its document is for (empty: always).
    pub profiles: Vec<String>,
    pub range: tree_sitter::Range,
}

/// A setting with its place in the scan's output.
#[derive(Debug, Clone)]
pub struct Placed {
    pub setting: Setting,
    pub location: Location,
    pub evidence: String,
}

/// One Spring Boot file, as the walker found it.
#[derive(Debug)]
pub struct SpringFile {
    /// As reported (relative to the scan root, forward slashes).
    pub file: String,
    pub format: &'static str,
    pub settings: Vec<Placed>,
    pub suppressions: Suppressions,
}

fn relaxed(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// A key or one of its list items (`key[0]`).
fn is_key_or_item(key: &str, wanted: &str) -> bool {
    key.strip_prefix(wanted)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('['))
}

/// Fills in each setting's document profiles from `spring.config.activate.on-profile`.
fn with_profiles(mut settings: Vec<Setting>) -> Vec<Setting> {
    let mut by_document: HashMap<usize, Vec<String>> = HashMap::new();
    for s in &settings {
        if is_key_or_item(&s.key, ON_PROFILE) || is_key_or_item(&s.key, LEGACY_ON_PROFILE) {
            if let Value::Text(t) = &s.value {
                by_document.entry(s.document).or_default().extend(names(t));
            }
        }
    }
    for s in &mut settings {
        if let Some(p) = by_document.get(&s.document) {
            s.profiles = p.clone();
        }
    }
    settings
}

fn names(list: &str) -> impl Iterator<Item = String> + '_ {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
}

pub fn from_properties(parsed: &Properties, text: &Text<'_>) -> Vec<Setting> {
    with_profiles(
        parsed
            .entries
            .iter()
            .map(|e| Setting {
                key: relaxed(e.key.trim()),
                value: Value::Text(e.value.trim().to_string()),
                document: e.document,
                profiles: Vec::new(),
                range: text.range(e.start, e.end),
            })
            .collect(),
    )
}

pub fn from_yaml(parsed: &Yaml, text: &Text<'_>) -> Vec<Setting> {
    with_profiles(
        parsed
            .entries
            .iter()
            .map(|e| Setting {
                key: relaxed(e.key.trim()),
                value: e.value.clone(),
                document: e.document,
                profiles: Vec::new(),
                range: text.range(e.start, e.end),
            })
            .collect(),
    )
}

/// Where a file stands among its application's files.
struct Role<'f> {
    file: &'f SpringFile,
    /// `application-PROFILE`: the profile.
    profile: Option<String>,
    in_config_dir: bool,
}

/// The directory an application's files are loaded from (a `config/` below it counts as it).
fn application_dir(file: &str) -> (&str, bool) {
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    match dir.rsplit_once('/') {
        Some((parent, "config")) => (parent, true),
        None if dir == "config" => ("", true),
        _ => (dir, false),
    }
}

fn file_profile(file: &str) -> Option<String> {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    stem.strip_prefix("application-").map(str::to_string)
}

/// Judges every application; `logging_configs` are the paths of logback/log4j2 files.
/// Returns the findings and how many were suppressed.
pub fn evaluate(
    files: &[SpringFile],
    logging_configs: &[String],
    severity: Severity,
) -> (Vec<Finding>, usize) {
    let own_logging: HashSet<&str> = logging_configs
        .iter()
        .map(|f| f.rsplit_once('/').map_or("", |(d, _)| d))
        .collect();
    let mut apps: HashMap<&str, Vec<Role<'_>>> = HashMap::new();
    for file in files {
        let (dir, in_config_dir) = application_dir(&file.file);
        apps.entry(dir).or_default().push(Role {
            file,
            profile: file_profile(&file.file),
            in_config_dir,
        });
    }
    let mut findings = Vec::new();
    let mut suppressed = 0;
    let mut dirs: Vec<&&str> = apps.keys().collect();
    dirs.sort();
    for dir in dirs {
        let app = App {
            roles: &apps[*dir],
            own_logging: own_logging.contains(*dir),
        };
        let mut reported: HashSet<(String, Option<u64>, Option<u64>)> = HashSet::new();
        for scenario in app.scenarios() {
            let Some((anchor, finding)) = app.judge(&scenario, severity) else {
                continue;
            };
            let key = (
                anchor.file.file.clone(),
                finding.location.line,
                finding.location.column,
            );
            if !reported.insert(key) {
                continue;
            }
            let row = finding.location.line.unwrap_or(1).saturating_sub(1) as usize;
            if anchor
                .file
                .suppressions
                .covers(Code::StaticStdoutLoggingConfig.as_str(), row)
            {
                suppressed += 1;
            } else {
                findings.push(finding);
            }
        }
    }
    (findings, suppressed)
}

struct App<'a> {
    roles: &'a [Role<'a>],
    own_logging: bool,
}

/// A setting in effect, with the file it comes from.
struct InEffect<'a> {
    file: &'a Role<'a>,
    placed: &'a Placed,
}

impl<'a> App<'a> {
    /// The profile sets to judge: first the default (profiles the files activate), then each
    /// profile mentioned, alone.
    fn scenarios(&self) -> Vec<BTreeSet<String>> {
        let mut mentioned = BTreeSet::new();
        for role in self.roles {
            mentioned.extend(role.profile.clone());
            for placed in &role.file.settings {
                mentioned.extend(placed.setting.profiles.iter().cloned());
            }
        }
        let mut default = BTreeSet::new();
        let empty = BTreeSet::new();
        for placed in self.all_with_key(ACTIVE_PROFILES, &empty) {
            if let Value::Text(t) = &placed.placed.setting.value {
                default.extend(names(t));
            }
        }
        let mut out = vec![default];
        out.extend(mentioned.into_iter().map(|p| BTreeSet::from([p])));
        out
    }

    fn applies(role: &Role<'_>, setting: &Setting, active: &BTreeSet<String>) -> bool {
        let file_ok = role.profile.as_ref().is_none_or(|p| active.contains(p));
        let doc_ok =
            setting.profiles.is_empty() || setting.profiles.iter().any(|p| active.contains(p));
        file_ok && doc_ok
    }

    /// Settings of `key` (or its list items) that apply, lowest precedence first.
    fn all_with_key(&self, key: &str, active: &BTreeSet<String>) -> Vec<InEffect<'a>> {
        let mut found: Vec<(usize, InEffect<'a>)> = Vec::new();
        for role in self.roles {
            for (order, placed) in role.file.settings.iter().enumerate() {
                let s = &placed.setting;
                if is_key_or_item(&s.key, key) && Self::applies(role, s, active) {
                    found.push((order, InEffect { file: role, placed }));
                }
            }
        }
        found.sort_by_key(|(order, e)| {
            (
                e.file.profile.is_some() || !e.placed.setting.profiles.is_empty(),
                e.file.in_config_dir,
                e.file.file.format == "properties",
                e.placed.setting.document,
                *order,
            )
        });
        found.into_iter().map(|(_, e)| e).collect()
    }

    fn effective(&self, key: &str, active: &BTreeSet<String>) -> Option<InEffect<'a>> {
        self.all_with_key(key, active)
            .into_iter()
            .rfind(|e| e.placed.setting.key == key)
    }

    fn judge(
        &self,
        active: &BTreeSet<String>,
        severity: Severity,
    ) -> Option<(&'a Role<'a>, Finding)> {
        let stdio = self.effective(STDIO, active)?;
        if !is_true(&stdio.placed.setting.value) {
            return None;
        }
        let banner = self.effective(BANNER_MODE, active);
        let banner_mode = banner.as_ref().map(|b| text_of(&b.placed.setting.value));
        let banner_off = banner
            .as_ref()
            .is_some_and(|b| is_off(&b.placed.setting.value));
        let logging_config = self
            .effective(LOGGING_CONFIG, active)
            .is_some_and(|c| !text_of(&c.placed.setting.value).trim().is_empty());
        let own_logging = self.own_logging || logging_config;
        let pattern = self.effective(CONSOLE_PATTERN, active);
        let pattern_empty = pattern
            .as_ref()
            .is_some_and(|p| text_of(&p.placed.setting.value).trim().is_empty());
        let threshold_off = self.effective(CONSOLE_THRESHOLD, active).is_some_and(
            |t| matches!(&t.placed.setting.value, Value::Text(v) if v.eq_ignore_ascii_case("off")),
        );
        let console_off = own_logging || pattern_empty || threshold_off;
        // Banner mode `log` sends the banner through logging, so it follows the console.
        let banner_ok = banner_off
            || (console_off
                && banner_mode
                    .as_deref()
                    .is_some_and(|m| m.eq_ignore_ascii_case("log")));
        let mut problems = Vec::new();
        if !banner_ok {
            problems.push(match &banner {
                Some(b) => format!(
                    "its start-up banner is on (spring.main.banner-mode is `{}` at {})",
                    shown(&text_of(&b.placed.setting.value)),
                    place(b)
                ),
                None => "its start-up banner is on (spring.main.banner-mode is not set to off)"
                    .to_string(),
            });
        }
        if !console_off {
            problems.push(match &pattern {
                Some(p) => format!(
                    "it logs to the console (logging.pattern.console is `{}` at {})",
                    shown(&text_of(&p.placed.setting.value)),
                    place(p)
                ),
                None => "it logs to the console (logging.pattern.console is not set to empty)"
                    .to_string(),
            });
        }
        if problems.is_empty() {
            return None;
        }
        let profiles = if active.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = active.iter().map(|p| format!("`{}`", shown(p))).collect();
            format!(" with profile {} active", list.join(", "))
        };
        let message = format!(
            "spring.ai.mcp.server.stdio=true makes this Spring Boot application an MCP stdio server, but{profiles} {}: Spring Boot writes {} to stdout, {CHANNEL}.",
            problems.join(" and "),
            if problems.len() == 1 { "it" } else { "both" }
        );
        let fix = match (!banner_ok, !console_off) {
            (true, true) => "Set spring.main.banner-mode=off and logging.pattern.console= (empty) next to spring.ai.mcp.server.stdio (YAML: banner-mode: \"off\", console: \"\"), or log through a logback-spring.xml whose ConsoleAppender has <target>System.err</target>.",
            (true, false) => "Set spring.main.banner-mode=off next to spring.ai.mcp.server.stdio (YAML: banner-mode: \"off\").",
            _ => "Set logging.pattern.console= (empty) next to spring.ai.mcp.server.stdio (YAML: console: \"\"), or log through a logback-spring.xml whose ConsoleAppender has <target>System.err</target>.",
        };
        let placed = stdio.placed;
        let mut finding = Finding::new(Code::StaticStdoutLoggingConfig, message)
            .severity(severity)
            .at(placed.location.clone())
            .evidence(&placed.evidence)
            .fix(fix);
        finding.language = Some(stdio.file.file.format);
        Some((stdio.file, finding))
    }
}

fn place(e: &InEffect<'_>) -> String {
    let name = e.file.file.file.rsplit('/').next().unwrap_or("");
    format!("{}:{}", shown(name), e.placed.location.line.unwrap_or(0))
}

fn text_of(value: &Value) -> String {
    match value {
        Value::Text(t) => t.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
    }
}

fn is_true(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Text(t) => t.eq_ignore_ascii_case("true"),
        Value::Null => false,
    }
}

/// Spring Boot reads `off`, and YAML's false (a plain `off` is one), as Banner.Mode.OFF.
fn is_off(value: &Value) -> bool {
    match value {
        Value::Bool(b) => !*b,
        Value::Text(t) => ["off", "false", "no"]
            .iter()
            .any(|v| t.eq_ignore_ascii_case(v)),
        Value::Null => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_bind_relaxed_and_files_find_their_application() {
        assert_eq!(relaxed("spring.main.bannerMode"), BANNER_MODE);
        assert_eq!(relaxed("Spring.Main.Banner_Mode"), BANNER_MODE);
        assert_eq!(
            application_dir("m/src/main/resources/config/application.yml"),
            ("m/src/main/resources", true)
        );
        assert_eq!(application_dir("application.yml"), ("", false));
        assert_eq!(application_dir("config/application.yml"), ("", true));
        assert_eq!(
            file_profile("a/application-stdio.yaml").as_deref(),
            Some("stdio")
        );
        assert_eq!(file_profile("a/application.yaml"), None);
        assert!(is_application_stem("application-x") && !is_application_stem("application-"));
    }
}
