use super::*;
use std::collections::HashSet;

#[test]
fn codes_are_unique_kebab_case_and_indexed_in_order() {
    let mut seen = HashSet::new();
    for (i, code) in ALL.iter().enumerate() {
        assert_eq!(*code as usize, i);
        let name = code.as_str();
        assert!(seen.insert(name), "duplicate code {name}");
        assert!(name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
        assert_eq!(Code::from_name(name), Some(*code));
        assert!(!code.meta().help.is_empty() && !code.meta().title.is_empty());
    }
}

#[test]
fn a_fix_never_argues_its_rules_risk() {
    // The help is the finding's fix: why a rule has its risk belongs in its rationale,
    // which docs/rules and `explain` show and a finding does not.
    for code in ALL {
        let help = code.meta().help;
        for risk in ["low", "medium", "high", "critical"] {
            assert!(
                !help.contains(&format!(", not {risk}:")),
                "{}: its help argues its risk; move that to rationale",
                code.as_str()
            );
        }
    }
    let meta = Code::UnauthenticatedRemoteEndpoint.meta();
    assert!(meta
        .rationale
        .is_some_and(|r| r.starts_with("Low, not medium: ")));
}

#[test]
fn a_risk_and_its_declared_severity_never_disagree() {
    // The table must not say one thing while findings, `explain` and docs say another.
    for code in ALL {
        let meta = code.meta();
        if let Some(risk) = meta.risk {
            assert_eq!(
                meta.declared_severity,
                risk.severity(),
                "{}: declared {} but its risk {} means {}",
                meta.code,
                meta.declared_severity.as_str(),
                risk.as_str(),
                risk.severity().as_str()
            );
        }
        assert_eq!(code.severity(), meta.default_severity());
    }
}

#[test]
fn the_client_impact_data_names_known_codes_and_clients() {
    let data = clients::data();
    assert!(data.clients.len() >= 3, "at least three clients");
    let languages: HashSet<&str> = data.clients.iter().map(|c| c.language.as_str()).collect();
    assert!(languages.len() >= 2, "clients in at least two languages");
    for fixture in &data.fixtures {
        for code in &fixture.codes {
            assert!(
                Code::from_name(code).is_some(),
                "{}: unknown code {code}",
                fixture.fixture
            );
        }
        for o in &fixture.observations {
            assert!(
                clients::client(&o.client).is_some(),
                "{}: unknown client {}",
                fixture.fixture,
                o.client
            );
            assert_eq!(
                o.flaky,
                o.outcomes.len() > 1 || o.steps.len() > 1,
                "{}: flaky",
                fixture.fixture
            );
        }
    }
    // The control: a correct server hurts no client, or the drivers are broken.
    let control = data
        .fixtures
        .iter()
        .find(|f| f.fixture == "clean.py")
        .expect("the clean fixture is the run's control");
    assert!(control.codes.is_empty());
    for (client, o) in control.ran() {
        assert_eq!(
            o.outcome,
            clients::Outcome::Ok,
            "{} on the clean fixture",
            client.id
        );
    }
}

/// A fixture of the committed data, by name.
fn fixture(name: &str) -> &'static clients::Fixture {
    clients::data()
        .fixtures
        .iter()
        .find(|f| f.fixture == name)
        .unwrap_or_else(|| panic!("{name} is in data/client-impact.json"))
}

#[test]
fn a_fault_is_read_against_its_control_and_not_at_the_made_up_tool_call() {
    use clients::Impact;
    // Every client broke at connect: the fault's own doing.
    assert_eq!(fixture("missing_server_info.py").impact(), Impact::AllHurt);
    // Every client hangs at tools/list here, as on the scenarios' clean server (which answers
    // initialize only): the banner is not what hung them.
    let control = fixture("reference/cases.mjs:clean");
    assert!(control.codes.is_empty());
    assert!(control
        .ran()
        .iter()
        .all(|(_, o)| o.outcome == clients::Outcome::Hang));
    assert_eq!(
        fixture("reference/cases.mjs:stdout-banner").impact(),
        Impact::NotReached
    );
    // The listed tools are not implemented: every client's call fails, as on a code-free
    // fixture whose tools are not implemented either.
    for name in [
        "tools_list_2mb_line.py",
        "mutating_tools_without_logging.py",
    ] {
        assert!(fixture(name)
            .ran()
            .iter()
            .all(|(_, o)| o.outcome == clients::Outcome::Error
                && o.step.as_deref() == Some("tools/call")));
    }
    assert_eq!(
        fixture("tools_list_2mb_line.py").impact(),
        Impact::NotReached
    );
    // A lost session at tools/call still counts.
    assert_eq!(
        fixture("ends_session_after_answering.py").impact(),
        Impact::AllHurt
    );
    // A log line is reported and dropped; a reply written across lines is lost, and every
    // client waits for it: the same code, two outcomes, so the rule's argument decides.
    assert_eq!(
        fixture("log_after_initialize.py").impact(),
        Impact::NoneHurt
    );
    assert_eq!(fixture("pretty_printed_json.py").impact(), Impact::AllHurt);
    assert_eq!(clients::impact("stdout-non-json"), Impact::Mixed);
    assert!(clients::witnesses("stdout-non-json")
        .iter()
        .any(|f| f.fixture == "pretty_printed_json.py"));
    // A finding's one line names both sides.
    let line = clients::line("stdout-non-json").expect("observed");
    assert!(
        line.starts_with("observed on banner_before_initialize.py")
            && line.ends_with("; on pretty_printed_json.py: every client's session broke"),
        "{line}"
    );
}

#[test]
fn severities_follow_what_clients_did() {
    // Every client's session broke on each fixture that shows the code alone: an error. No
    // client's broke and one reported it: not an error (issue 32 item 3).
    let mut decided = 0;
    let mut wrong = Vec::new();
    for code in clients::guard_codes() {
        let Some(error) = clients::requires_error(code.as_str()) else {
            continue;
        };
        decided += 1;
        if (code.severity() == crate::finding::Severity::Error) != error {
            wrong.push(format!(
                "{code} is {} but {}",
                code.severity().as_str(),
                clients::decision(code.as_str()).unwrap_or_default()
            ));
        }
        assert!(clients::decision(code.as_str())
            .expect("a decided code says why")
            .starts_with("The observations decided it"));
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(decided >= 20, "only {decided} severities decided");
}

#[test]
fn every_error_severity_guard_code_was_seen_by_a_client() {
    // Issue 32 item 2: each error the guard can report has at least one fixture on which real
    // clients ran (under the guard options that show the fault, where it needs them).
    let unobserved: Vec<&str> = clients::guard_codes()
        .filter(|c| c.severity() == crate::finding::Severity::Error)
        .map(|c| c.as_str())
        .filter(|c| clients::fixtures(c).iter().all(|f| f.ran().is_empty()))
        .collect();
    assert!(
        unobserved.is_empty(),
        "no client observed on {unobserved:?}"
    );
}

#[test]
fn a_lost_answer_beside_a_fault_that_cannot_lose_one_is_not_that_fault_s_doing() {
    // never_answers_ignores_sigterm.py: every client hangs at connect because initialize is
    // never answered (initialize-timeout), not because the server ignores SIGTERM afterwards.
    let f = fixture("never_answers_ignores_sigterm.py");
    assert_eq!(f.codes, ["initialize-timeout", "shutdown-slow"]);
    assert_eq!(f.impact(), clients::Impact::AllHurt);
    assert!(!clients::witnesses("shutdown-slow")
        .iter()
        .any(|w| w.fixture == f.fixture));
    assert_ne!(clients::requires_error("shutdown-slow"), Some(true));
    // A fault in what the server wrote still speaks through the timeout it causes.
    assert!(clients::witnesses("stdout-non-json")
        .iter()
        .any(|w| w.fixture == "pretty_printed_json.py"));
}

#[test]
fn every_guard_code_was_seen_by_three_clients_in_two_languages() {
    // Issue 32's done-when: docs/clients.md covers every code the guard reports, each with
    // observed outcomes of at least three clients in two languages on a fixture producing it.
    let mut short = Vec::new();
    for code in clients::guard_codes() {
        let ran = clients::fixtures(code.as_str())
            .iter()
            .map(|f| f.ran())
            .max_by_key(|r| r.len())
            .unwrap_or_default();
        let languages: std::collections::BTreeSet<&str> =
            ran.iter().map(|(c, _)| c.language.as_str()).collect();
        if ran.len() < 3 || languages.len() < 2 {
            short.push(format!("{code} ({} clients)", ran.len()));
        }
    }
    assert!(short.is_empty(), "too few clients observed on {short:?}");
}

#[test]
fn a_fault_shown_only_under_guard_options_decides_nothing() {
    let f = fixture("downgrades_supported_version.py");
    assert_eq!(f.guard_args, ["--protocol-matrix"]);
    assert!(f.codes.iter().any(|c| c == "protocol-version-mismatch"));
    assert!(!f.ran().is_empty());
    assert!(clients::witnesses("protocol-version-mismatch").is_empty());
    assert_eq!(clients::decision("protocol-version-mismatch"), None);
    assert!(clients::line("protocol-version-mismatch")
        .expect("observed")
        .starts_with("observed on downgrades_supported_version.py (guard --protocol-matrix)"));
}
