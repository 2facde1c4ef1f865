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
            assert_eq!(o.flaky, o.outcomes.len() > 1, "{}: flaky", fixture.fixture);
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
