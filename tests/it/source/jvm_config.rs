//! Source scan, JVM logging configuration: logback and log4j2 console appenders on stdout,
//! and Spring Boot stdio servers that leave the banner or console logging on.

use crate::support;
use std::path::Path;
use support::source::*;

/// Scans a fixture project of `tests/fixtures/source/jvm-config/` whole.
fn scan_project(project: &str, args: &[&str]) -> Scan {
    let dir = source_fixtures().join("jvm-config").join(project);
    let mut all = args.to_vec();
    all.push(".");
    scan_in(&dir, &all)
}

/// Asserts a project's findings exactly: (code, severity, file, line, column), in order.
fn expect_project(project: &str, expected: &[(&str, &str, &str, u64, u64)]) -> Scan {
    let scan = scan_project(project, &[]);
    assert_eq!(scan.exit, 0, "warnings only: {}", scan.stderr);
    let expected: Vec<Found> = expected
        .iter()
        .map(|(c, s, f, l, col)| (c.to_string(), s.to_string(), f.to_string(), *l, *col))
        .collect();
    assert_eq!(scan.found(), expected, "findings of {project}");
    scan
}

fn message(scan: &Scan, line: u64) -> String {
    scan.at(line)["message"]
        .as_str()
        .expect("message")
        .to_string()
}

const LOGBACK: &str = "src/main/resources/logback.xml";

#[test]
fn logback_console_appenders_on_stdout_used_by_an_active_logger_are_found() {
    let scan = expect_project(
        "logback-stdout",
        &[
            ("static-stdout-logging-config", "warning", LOGBACK, 6, 3),
            ("static-stdout-logging-config", "warning", LOGBACK, 11, 5),
            ("static-stdout-logging-config", "warning", LOGBACK, 18, 3),
        ],
    );
    // The default target: the appender's start tag, no edit.
    expect_end(&scan, 6, (6, 72));
    no_replacement(&scan, 6);
    assert!(message(&scan, 6).contains("`CONSOLE` writes to System.out, its default"));
    assert!(message(&scan, 6).contains("<root> (line 31) logs through it"));
    assert_eq!(
        scan.at(6)["fix"],
        "Set the appender's target to stderr: <target>System.err</target>. Clients keep stderr as the server's log."
    );
    assert_eq!(scan.at(6)["language"], "xml");
    // An explicit System.out, reached through an AsyncAppender inside <springProfile>.
    expect_replacement(&scan, 11, "System.err", (11, 13), (11, 23));
    assert!(message(&scan, 11)
        .contains("<logger name=\"com.example.tools\"> (line 24) logs through it via `ASYNC`"));
    // `class="ConsoleAppender"` after <import class="ch.qos.logback.core.ConsoleAppender"/>.
    assert!(message(&scan, 18).contains("`SHORT`"));
    // `DEBUG` is suppressed by the XML comment above it.
    assert_eq!(scan.stat("suppressed"), 1);
    assert_eq!(scan.stat("filesScanned"), 1);
    assert_eq!(scan.stat("languages.xml"), 1);
}

#[test]
fn logback_stderr_unused_turned_off_and_variable_targets_are_not_reported() {
    let scan = expect_project("logback-stderr", &[]);
    assert_eq!(scan.stat("filesParsed"), 1, "logback-spring.xml was read");
}

#[test]
fn log4j2_console_appenders_on_stdout_are_found_in_xml_and_properties() {
    const XML: &str = "server/src/main/resources/log4j2.xml";
    const PROPERTIES: &str = "cli/src/main/resources/log4j2.properties";
    let scan = expect_project(
        "log4j2-stdout",
        &[
            ("static-stdout-logging-config", "warning", PROPERTIES, 4, 1),
            ("static-stdout-logging-config", "warning", PROPERTIES, 11, 1),
            ("static-stdout-logging-config", "warning", XML, 4, 5),
            ("static-stdout-logging-config", "warning", XML, 7, 30),
            ("static-stdout-logging-config", "warning", XML, 11, 5),
        ],
    );
    let by_file = |file: &str, line: u64| {
        scan.issues()
            .iter()
            .find(|i| i["location"]["file"] == file && i["location"]["line"] == line)
            .unwrap_or_else(|| panic!("no finding at {file}:{line}"))
            .clone()
    };
    let default_xml = by_file(XML, 4);
    assert_eq!(default_xml["evidence"], "<Console name=\"Console\">");
    assert!(default_xml["message"].as_str().expect("message").contains(
        "`Console` writes to SYSTEM_OUT, its default (it has no target), and <Root> (line 18)"
    ));
    let explicit_xml = by_file(XML, 7);
    assert_eq!(explicit_xml["replacement"]["text"], "SYSTEM_ERR");
    assert_eq!(
        (
            &explicit_xml["replacement"]["startColumn"],
            &explicit_xml["replacement"]["endColumn"]
        ),
        (&serde_json::json!(38), &serde_json::json!(48))
    );
    assert!(explicit_xml["message"]
        .as_str()
        .expect("message")
        .contains("via `Async`"));
    // The `rootLogger = INFO, STDOUT` shorthand, continued over two lines.
    let shorthand = by_file(PROPERTIES, 4);
    assert!(shorthand["message"]
        .as_str()
        .expect("message")
        .contains("rootLogger (line 16) logs through it"));
    assert_eq!(shorthand["language"], "properties");
    let explicit_properties = by_file(PROPERTIES, 11);
    assert_eq!(explicit_properties["replacement"]["startColumn"], 23);
    assert_eq!(explicit_properties["replacement"]["endColumn"], 33);
}

#[test]
fn log4j2_stderr_unused_and_turned_off_console_appenders_are_not_reported() {
    let scan = expect_project("log4j2-stderr", &[]);
    assert_eq!(scan.stat("filesParsed"), 2);
}

#[test]
fn spring_stdio_servers_with_the_banner_or_console_logging_on_are_found() {
    let scan = expect_project(
        "spring-stdio-loud",
        &[
            (
                "static-stdout-logging-config",
                "warning",
                "files/src/main/resources/application.yml",
                8,
                9,
            ),
            (
                "static-stdout-logging-config",
                "warning",
                "notes/src/main/resources/application-stdio.yaml",
                2,
                3,
            ),
            (
                "static-stdout-logging-config",
                "warning",
                "weather/src/main/resources/application.properties",
                4,
                1,
            ),
        ],
    );
    let weather = scan.at(4);
    assert_eq!(weather["evidence"], "spring.ai.mcp.server.stdio=true");
    assert!(weather["message"].as_str().expect("message").contains(
        "its start-up banner is on (spring.main.banner-mode is not set to off) and it logs to the console (logging.pattern.console is not set to empty)"
    ));
    assert!(weather["fix"]
        .as_str()
        .expect("fix")
        .starts_with("Set spring.main.banner-mode=off and logging.pattern.console= (empty)"));
    let files = scan.at(8);
    assert_eq!(files["evidence"], "stdio: true");
    assert_eq!(files["language"], "yaml");
    assert!(files["message"].as_str().expect("message").contains(
        "it logs to the console (logging.pattern.console is `%d{HH:mm:ss} %-5level %logger - %msg%n` at application.yml:11)"
    ));
    assert!(!files["message"]
        .as_str()
        .expect("message")
        .contains("banner"));
    // The stdio profile's file turns the transport on; the banner mode comes from the plain file.
    let notes = scan.at(2);
    assert!(notes["message"].as_str().expect("message").contains(
        "but with profile `stdio` active its start-up banner is on (spring.main.banner-mode is `console` at application.properties:3)"
    ));
}

#[test]
fn spring_stdio_servers_quiet_on_stdout_are_not_reported() {
    // Banner off and an empty console pattern; config/ overriding; banner-mode log with a
    // logback-spring.xml on stderr; an HTTP server; a profile activated by default.
    let scan = expect_project("spring-stdio-quiet", &[]);
    assert_eq!(scan.stat("filesScanned"), 7);
    assert_eq!(scan.stat("languages.yaml"), 3);
}

#[test]
fn spring_findings_are_suppressed_by_properties_and_yaml_comments() {
    let scan = expect_project("spring-stdio-suppressed", &[]);
    assert_eq!(scan.stat("suppressed"), 2);
}

#[test]
fn malformed_configs_are_skipped_and_counted_without_hiding_other_findings() {
    let scan = expect_project(
        "malformed",
        &[(
            "static-stdout-logging-config",
            "warning",
            "src/main/resources/application.properties",
            2,
            1,
        )],
    );
    assert_eq!(scan.stat("skippedFiles.malformed"), 2);
    assert_eq!(scan.stat("filesScanned"), 1);
    // The (malformed) logback.xml still replaces Spring Boot's console logging.
    assert!(!message(&scan, 2).contains("console"));
}

#[test]
fn fail_on_static_makes_config_findings_errors() {
    let scan = scan_project("spring-stdio-loud", &["--fail-on-static"]);
    assert_eq!(scan.exit, 1);
    assert!(scan.issues().iter().all(|i| i["severity"] == "error"));
    assert_eq!(scan.issues().len(), 3);
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn configs_in_build_output_and_tests_follow_the_walking_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let logback = std::fs::read_to_string(
        source_fixtures()
            .join("jvm-config/logback-stdout")
            .join(LOGBACK),
    )
    .expect("fixture");
    write(dir.path(), "target/classes/logback.xml", &logback);
    write(dir.path(), "build/resources/main/logback.xml", &logback);
    write(dir.path(), "src/test/resources/logback-test.xml", &logback);
    write(
        dir.path(),
        "target/classes/application.properties",
        "spring.ai.mcp.server.stdio=true\n",
    );
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.found(), vec![], "{:#}", scan.json["issues"]);
    assert_eq!(scan.stat("skippedDirs.dependency"), 2);
    assert_eq!(scan.stat("skippedDirs.test"), 1);
    let all = scan_in(
        dir.path(),
        &["--no-default-excludes", "--include-tests", "."],
    );
    assert_eq!(all.files().len(), 4, "{:#}", all.json["issues"]);
    // Untrusted input is bounded: a config over --max-file-bytes is skipped and counted.
    let limited = scan_in(
        dir.path(),
        &["--no-default-excludes", "--max-file-bytes", "100", "."],
    );
    assert_eq!(
        limited.files(),
        ["target/classes/application.properties"],
        "only the small file is read"
    );
    assert_eq!(limited.stat("skippedFiles.tooLarge"), 2);
}

#[test]
fn a_config_file_named_on_the_command_line_is_scanned() {
    let dir = source_fixtures().join("jvm-config/logback-stdout");
    let scan = scan_in(&dir, &[LOGBACK]);
    assert_eq!(scan.issues().len(), 3);
    assert_eq!(scan.issues()[0]["location"]["file"], LOGBACK);
}
