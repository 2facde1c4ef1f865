//! Configuration files that decide where a JVM server's output goes: logback and log4j2
//! files, and Spring Boot's `application` properties and YAML. Each is parsed as what it is
//! (XML, YAML, .properties) and reported as `static-stdout-logging-config`.

mod log4j2;
mod logback;
mod properties;
mod reach;
pub(super) mod spring;
mod text;
mod yaml;

use super::lang::Hit;
use crate::catalog::Code;
use text::Text;

/// Most XML nodes read from one file; files are already bounded by `--max-file-bytes`.
const XML_NODES_LIMIT: u32 = 200_000;

/// A configuration file the scan reads, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKind {
    /// `logback.xml`, `logback-spring.xml`, `logback-test.xml`.
    Logback,
    /// `log4j2.xml`, `log4j2-spring.xml`, `log4j2-test.xml`.
    Log4j2Xml,
    /// `log4j2.properties`, `log4j2-spring.properties`, `log4j2-test.properties`.
    Log4j2Properties,
    /// `application.properties`, `application-PROFILE.properties`.
    SpringProperties,
    /// `application.yml`/`.yaml`, `application-PROFILE.yml`/`.yaml`.
    SpringYaml,
}

impl ConfigKind {
    pub fn of_name(name: &str) -> Option<ConfigKind> {
        let (stem, ext) = name.rsplit_once('.')?;
        let logging_stem = |base: &str| {
            stem == base || [base, "-spring"].concat() == stem || [base, "-test"].concat() == stem
        };
        Some(match ext {
            "xml" if logging_stem("logback") => ConfigKind::Logback,
            "xml" if logging_stem("log4j2") => ConfigKind::Log4j2Xml,
            "properties" if logging_stem("log4j2") => ConfigKind::Log4j2Properties,
            "properties" if spring::is_application_stem(stem) => ConfigKind::SpringProperties,
            "yml" | "yaml" if spring::is_application_stem(stem) => ConfigKind::SpringYaml,
            _ => return None,
        })
    }

    /// The format, reported as the finding's language.
    pub fn format(self) -> &'static str {
        match self {
            ConfigKind::Logback | ConfigKind::Log4j2Xml => "xml",
            ConfigKind::Log4j2Properties | ConfigKind::SpringProperties => "properties",
            ConfigKind::SpringYaml => "yaml",
        }
    }

    /// A logging backend's own file, which replaces Spring Boot's console defaults.
    pub fn is_logging_config(self) -> bool {
        matches!(
            self,
            ConfigKind::Logback | ConfigKind::Log4j2Xml | ConfigKind::Log4j2Properties
        )
    }
}

/// A value as the file wrote it. Only YAML has typed scalars; .properties values are text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    Bool(bool),
    Null,
}

/// One comment, as rows (0-based) and its text, for suppressions.
#[derive(Debug, Clone)]
pub struct Comment {
    pub first_row: usize,
    pub last_row: usize,
    /// Nothing but blanks before it on its line: it covers the next line too.
    pub alone: bool,
    pub text: String,
}

/// What one configuration file holds for the scan.
#[derive(Debug, Default)]
pub struct ConfigScan {
    pub hits: Vec<Hit>,
    pub comments: Vec<Comment>,
    /// A Spring Boot file's settings, judged with the other files of its application.
    pub spring: Vec<spring::Setting>,
}

/// Reads one file; None if it is malformed (not well-formed XML, not valid YAML).
pub fn scan(kind: ConfigKind, src: &str) -> Option<ConfigScan> {
    let text = Text::new(src);
    let mut out = ConfigScan::default();
    match kind {
        ConfigKind::Logback | ConfigKind::Log4j2Xml => {
            let options = roxmltree::ParsingOptions {
                allow_dtd: true,
                nodes_limit: XML_NODES_LIMIT,
                ..roxmltree::ParsingOptions::default()
            };
            let doc = roxmltree::Document::parse_with_options(src, options).ok()?;
            if kind == ConfigKind::Logback {
                logback::scan(&doc, &text, &mut out.hits);
            } else {
                log4j2::scan_xml(&doc, &text, &mut out.hits);
            }
            out.comments = doc
                .descendants()
                .filter(|n| n.is_comment())
                .map(|n| comment(&text, n.range().start, n.range().end))
                .collect();
        }
        ConfigKind::Log4j2Properties => {
            let parsed = properties::parse(&text);
            log4j2::scan_properties(&parsed, &text, &mut out.hits);
            out.comments = comments(&text, &parsed.comments);
        }
        ConfigKind::SpringProperties => {
            let parsed = properties::parse(&text);
            out.spring = spring::from_properties(&parsed, &text);
            out.comments = comments(&text, &parsed.comments);
        }
        ConfigKind::SpringYaml => {
            let parsed = yaml::parse(&text)?;
            out.spring = spring::from_yaml(&parsed, &text);
            out.comments = comments(&text, &parsed.comments);
        }
    }
    Some(out)
}

fn comments(text: &Text<'_>, ranges: &[(usize, usize)]) -> Vec<Comment> {
    ranges.iter().map(|&(s, e)| comment(text, s, e)).collect()
}

fn comment(text: &Text<'_>, start: usize, end: usize) -> Comment {
    Comment {
        first_row: text.row(start),
        last_row: text.row(end.saturating_sub(1).max(start)),
        alone: crate::source::suppress::stands_alone(text.text.as_bytes(), start),
        text: text.text[start..end].to_string(),
    }
}

/// A finding in a configuration file.
fn hit(range: tree_sitter::Range, message: String, fix: impl Into<String>) -> Hit {
    Hit {
        code: Code::StaticStdoutLoggingConfig,
        range,
        message,
        fix: fix.into(),
        edit: None,
        import: None,
        prints: None,
    }
}

/// Where stdout output ends up, for messages.
const CHANNEL: &str = super::lang::JSON_RPC_CHANNEL;

/// Text from an untrusted file, bounded and escaped for a message.
fn shown(text: &str) -> String {
    crate::finding::excerpt(text, 60)
}

#[cfg(test)]
mod tests {
    use super::{scan, ConfigKind};

    const KINDS: [ConfigKind; 5] = [
        ConfigKind::Logback,
        ConfigKind::Log4j2Xml,
        ConfigKind::Log4j2Properties,
        ConfigKind::SpringProperties,
        ConfigKind::SpringYaml,
    ];

    /// Untrusted input: every cut of a real file, deep nesting and entity bombs end without a
    /// panic, as a result or as malformed.
    #[test]
    fn truncated_nested_and_hostile_files_never_panic() {
        let samples = [
            "<?xml version=\"1.0\"?>\n<configuration><appender name=\"C\" class=\"ch.qos.logback.core.ConsoleAppender\"><target>System.out</target></appender><root level=\"INFO\"><appender-ref ref=\"C\"/></root><!-- mcpcheck: ignore --></configuration>",
            "<Configuration><Appenders><Console name=\"é\" target=\"SYSTEM_OUT\"/></Appenders><Loggers><Root><AppenderRef ref=\"é\"/></Root></Loggers></Configuration>",
            "appender.c.type = Console\r\nappender.c.name = C\\\n  X\rrootLogger = INFO, C\n# mcpcheck: ignore\n\\u00",
            "spring:\n  ai.mcp.server.stdio: true # c\n  main: {banner-mode: 'off'}\n---\nlogging.pattern.console: \"x\\\"\"\n? [a]\n: b\n",
        ];
        for sample in samples {
            for kind in KINDS {
                for (cut, _) in sample.char_indices() {
                    let _ = scan(kind, &sample[..cut]);
                }
            }
        }
        let deep_yaml = "[".repeat(100_000);
        assert!(scan(ConfigKind::SpringYaml, &deep_yaml).is_none());
        let deep_xml = format!(
            "<configuration>{}<appender name=\"C\" class=\"ch.qos.logback.core.ConsoleAppender\"/>{}<root><appender-ref ref=\"C\"/></root></configuration>",
            "<if>".repeat(50_000),
            "</if>".repeat(50_000)
        );
        let _ = scan(ConfigKind::Logback, &deep_xml);
        assert!(scan(ConfigKind::Log4j2Xml, &"<a>".repeat(100_000)).is_none());
        let laughs = "<!DOCTYPE c [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\"><!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\"><!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\"><!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\">]><configuration>&g;</configuration>";
        assert!(scan(ConfigKind::Logback, laughs).is_none());
        let aliases = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
        assert!(scan(ConfigKind::SpringYaml, aliases).is_some());
    }

    #[test]
    fn config_files_are_recognised_by_name() {
        for (name, kind) in [
            ("logback.xml", ConfigKind::Logback),
            ("logback-spring.xml", ConfigKind::Logback),
            ("logback-test.xml", ConfigKind::Logback),
            ("log4j2.xml", ConfigKind::Log4j2Xml),
            ("log4j2-spring.xml", ConfigKind::Log4j2Xml),
            ("log4j2.properties", ConfigKind::Log4j2Properties),
            ("application.properties", ConfigKind::SpringProperties),
            ("application-stdio.properties", ConfigKind::SpringProperties),
            ("application.yml", ConfigKind::SpringYaml),
            ("application-dev.yaml", ConfigKind::SpringYaml),
        ] {
            assert_eq!(ConfigKind::of_name(name), Some(kind), "{name}");
        }
        for name in [
            "logback.groovy",
            "my-logback.xml",
            "log4j.properties",
            "applications.yml",
            "application-.yml",
            "application.json",
            "pom.xml",
        ] {
            assert_eq!(ConfigKind::of_name(name), None, "{name}");
        }
    }
}
