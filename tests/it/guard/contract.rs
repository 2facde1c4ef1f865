//! `guard --json` against the documented mcp-stdio-guard v1 contract
//! (tests/fixtures/contract/mcp-stdio-guard-v1.json, which says where it came from): on a
//! clean, a polluted, a crashing and a timing-out server, single run and --repeat, no
//! documented key is missing, every type is the documented one and every enum value is
//! documented (or one of mcpcheck's listed extensions).

use crate::support;
use serde_json::Value;
use std::collections::BTreeSet;
use support::guard::*;
use support::*;

fn contract() -> Value {
    let path = repo().join("tests/fixtures/contract/mcp-stdio-guard-v1.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("contract file")).expect("JSON")
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every value at `path` (`a.b[].c`), fanning out over arrays; `None` for a parent object
/// that lacks the last key.
fn resolve<'a>(doc: &'a Value, path: &str) -> Vec<Option<&'a Value>> {
    let mut current: Vec<Option<&Value>> = vec![Some(doc)];
    for segment in path.split('.') {
        let (key, arrays) = match segment.find("[]") {
            Some(i) => (&segment[..i], segment[i..].matches("[]").count()),
            None => (segment, 0),
        };
        let mut next = Vec::new();
        // Below a null (an absent spawnError, a package not detected) nothing is required.
        for v in current.into_iter().flatten().filter(|v| !v.is_null()) {
            let mut values = vec![if key.is_empty() { Some(v) } else { v.get(key) }];
            for _ in 0..arrays {
                values = values
                    .into_iter()
                    .flatten()
                    .flat_map(|a| a.as_array().into_iter().flatten().map(Some))
                    .collect();
            }
            next.extend(values);
        }
        current = next;
    }
    current
}

/// What of the contract `doc` lacks or contradicts, one line each.
fn diff(doc: &Value, mode: &str, contract: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, spec) in contract[mode].as_object().expect("paths") {
        let required = spec["required"] == true;
        let types: BTreeSet<&str> = spec["types"]
            .as_array()
            .expect("types")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // Paths that end in [] describe elements; their parent's own entry checks presence.
        for value in resolve(doc, path) {
            match value {
                None if required && !path.ends_with("[]") => {
                    problems.push(format!("missing: {path}"))
                }
                Some(v) if !types.contains(type_name(v)) => problems.push(format!(
                    "type: {path} is {} (documented: {types:?})",
                    type_name(v)
                )),
                _ => {}
            }
        }
    }
    let extensions = &contract["extensions"];
    for (path, allowed) in contract["enums"].as_object().expect("enums") {
        let allowed: BTreeSet<&str> = allowed
            .as_array()
            .into_iter()
            .chain(extensions[path].as_array())
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let runs_path = format!("runs[].{path}");
        for p in [path.as_str(), runs_path.as_str()] {
            for v in resolve(doc, p).into_iter().flatten() {
                match v.as_str() {
                    Some(s) if allowed.contains(s) => {}
                    _ => problems.push(format!("enum: {p} = {v} (documented: {allowed:?})")),
                }
            }
        }
    }
    for p in ["issues[]", "runs[].issues[]"] {
        for issue in resolve(doc, p).into_iter().flatten() {
            let code = issue["code"].as_str().unwrap_or("");
            let Some(documented) = contract["detailCodes"][code].as_array() else {
                continue;
            };
            let extra = extensions["detailCodes"][code].as_array();
            let detail = &issue["detailCode"];
            if !documented
                .iter()
                .chain(extra.into_iter().flatten())
                .any(|d| d == detail)
            {
                problems.push(format!("detailCode: {code} has {detail}"));
            }
        }
    }
    problems
}

fn check(name: &str, options: &[&str]) -> GuardResult {
    let contract = contract();
    let mut single = vec!["--request", "tools/list"];
    single.extend_from_slice(options);
    let r = guard_fixture(name, &single);
    assert_eq!(
        diff(&r.json, "single", &contract),
        Vec::<String>::new(),
        "{name}"
    );
    let mut repeat = single.clone();
    repeat.extend_from_slice(&["--repeat", "2"]);
    let rr = guard_fixture(name, &repeat);
    assert_eq!(
        diff(&rr.json, "repeat", &contract),
        Vec::<String>::new(),
        "{name} --repeat 2"
    );
    assert_eq!(rr.json["checks"]["repeat"]["runs"], 2, "{name}");
    r
}

#[test]
fn clean_server_meets_the_contract() {
    let r = check("clean", &["--list-probes"]);
    assert_eq!(r.json["summary"]["display"], "verified");
    assert_eq!(r.json["checks"]["capabilities"]["tools"]["status"], "pass");
    assert_eq!(r.json["operation"]["responded"], true);
    assert_eq!(r.json["process"]["outcome"], "guard-terminated");
}

#[test]
fn polluted_server_meets_the_contract() {
    // The source scan of a file that prints to stdout fills staticScan and staticFindings.
    let source = repo().join("tests/fixtures/source/python/print_writes_stdout.py");
    let r = check(
        "banner_before_initialize",
        &["--scan", source.to_str().expect("utf-8 path")],
    );
    assert_eq!(
        r.json["summary"]["display"],
        "stdio transport or MCP protocol failure"
    );
    assert_eq!(r.json["issueClasses"]["stdioTransport"]["status"], "fail");
    assert_eq!(r.json["staticScan"]["enabled"], true);
    let findings = r.json["staticFindings"].as_array().expect("staticFindings");
    assert!(!findings.is_empty(), "the file's print is a static finding");
    assert!(findings
        .iter()
        .all(|f| f["file"] == source.to_str().expect("utf-8 path")));
    assert_eq!(
        r.json["checks"]["staticScan"]["issueCodes"],
        serde_json::json!(["static-stdout-write"])
    );
}

#[test]
fn crashing_server_meets_the_contract() {
    let r = check("crash_after_initialized", &[]);
    assert_eq!(r.json["process"]["outcome"], "exited");
    assert_eq!(r.json["checks"]["operation"]["status"], "fail");
    assert_eq!(
        r.json["summary"]["display"],
        "runtime or install issue; inspect before presenting as protocol failure"
    );
}

#[test]
fn timing_out_server_meets_the_contract() {
    let r = check("never_answers_initialize", &["--timeout", "800"]);
    assert_eq!(r.json["process"]["outcome"], "timeout");
    assert_eq!(r.json["process"]["timeoutCode"], "initialize-timeout");
    assert_eq!(r.json["process"]["phase"], "initialize");
    assert_eq!(r.json["initialized"], false);
    assert_eq!(
        r.issue("initialize-timeout")["detailCode"],
        "startup-timeout"
    );
}

#[test]
fn the_diff_names_what_is_missing() {
    // The checker itself: a report without a documented key, with a wrong type and an
    // undocumented enum value is reported on all three counts.
    let contract = contract();
    let mut doc = guard_fixture("clean", &["--request", "tools/list"]).json;
    doc.as_object_mut().expect("object").remove("staticScan");
    doc["durationMs"] = Value::String("fast".into());
    doc["process"]["outcome"] = Value::String("crashed".into());
    let problems = diff(&doc, "single", &contract);
    assert!(
        problems.contains(&"missing: staticScan".to_string()),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with("type: durationMs")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("enum: process.outcome")),
        "{problems:?}"
    );
}

#[test]
fn the_published_schema_rejects_what_the_contract_forbids() {
    use support::schema::{violations, ReportKind};
    let mut doc = guard_fixture("clean", &["--request", "tools/list"]).json;
    assert_eq!(violations(ReportKind::Guard, &doc), Vec::<String>::new());
    doc["process"]["outcome"] = Value::String("crashed".into());
    doc["checks"]["stdout"]["status"] = Value::String("ok".into());
    doc.as_object_mut().expect("object").remove("issueClasses");
    let found = violations(ReportKind::Guard, &doc);
    for path in ["/process/outcome", "/checks/stdout/status"] {
        assert!(found.iter().any(|v| v.ends_with(path)), "{path}: {found:?}");
    }
    assert!(
        found.iter().any(|v| v.contains("issueClasses")),
        "{found:?}"
    );
}

#[test]
fn content_length_framed_initialize_fails_the_initialize_check() {
    // Issue 27 item 1: the answer to initialize came LSP-framed, so no session opened.
    let r = guard_fixture("content_length_framing", &[]);
    assert_eq!(r.json["initialized"], false);
    assert_eq!(
        r.json["checks"]["initialize"],
        serde_json::json!({"status": "fail", "issueCodes": ["stdout-content-length-framing"]})
    );
}

#[test]
fn a_server_that_never_spawned_skips_the_initialize_check() {
    // Issue 27 item 1: no initialize was ever sent, so there is nothing it could pass.
    let missing = repo().join("tests/fixtures/servers/no_such_server");
    let r = guard(&[], &[missing.to_str().expect("utf-8 path")]);
    assert_eq!(r.issues(), pairs(&[("spawn-failed", "error")]));
    assert_eq!(r.json["checks"]["initialize"]["status"], "skipped");
    assert_eq!(r.json["checks"]["process"]["status"], "fail");
}

#[test]
fn an_operation_never_sent_skips_the_operation_check() {
    // Issue 27 item 2: the session never opened, so the request was never sent.
    let r = guard_fixture("content_length_framing", &["--request", "tools/list"]);
    assert_eq!(r.json["operation"]["outcome"], "not-sent");
    assert_eq!(
        r.json["checks"]["operation"],
        serde_json::json!({"status": "skipped", "issueCodes": []})
    );
}

#[test]
fn an_operation_answered_with_a_string_id_fails_the_operation_check() {
    // Issue 27 item 2: "2" does not answer request 2; a strict client still waits.
    let r = guard_fixture("string_id", &["--request", "tools/list"]);
    assert_eq!(r.issues(), pairs(&[("response-id-type-mismatch", "error")]));
    assert_eq!(
        r.json["checks"]["operation"],
        serde_json::json!({"status": "fail", "issueCodes": ["response-id-type-mismatch"]})
    );
}

/// Issue 27 item 4: the runtime the command runs on, as the reference records it.
#[test]
fn the_fingerprint_records_the_server_runtime_and_its_version() {
    let r = guard_fixture("clean", &[]);
    let python = &r.json["fingerprint"]["runtimes"]["python"];
    assert_eq!(python["role"], "target", "{python:#}");
    assert_eq!(python["available"], true, "{python:#}");
    assert_eq!(python["status"], 0, "{python:#}");
    assert!(
        python["version"]
            .as_str()
            .expect("version")
            .starts_with("Python 3."),
        "{python:#}"
    );
    assert_eq!(python["command"], python_command());
}

/// A runtime whose `--version` fails is recorded as unavailable with its exit status, as
/// the reference's "runtime probes mark non-zero probes unavailable".
#[test]
fn a_runtime_whose_version_probe_fails_is_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("python");
    std::fs::write(&fake, "#!/bin/sh\nexit 7\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let r = guard(&["--timeout", "1000"], &[fake.to_str().expect("path")]);
    let python = &r.json["fingerprint"]["runtimes"]["python"];
    assert_eq!(python["available"], false, "{python:#}");
    assert_eq!(python["status"], 7, "{python:#}");
    assert_eq!(python["version"], "", "{python:#}");
}

/// A program that is no known runtime, and a remote server, record none.
#[test]
fn a_program_of_no_known_runtime_records_none() {
    let r = guard(&["--timeout", "1000"], &["/bin/true"]);
    assert_eq!(r.json["fingerprint"]["runtimes"], serde_json::json!({}));
}
