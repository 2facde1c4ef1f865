//! What real MCP clients did when a fixture server committed each fault: the observations
//! of `scripts/client-impact`, kept in `data/client-impact.json` and compiled in. The docs
//! (`docs/clients.md`, `docs/rules/`), `explain` and every finding's help quote them, and
//! the catalog's severities follow them (a test in `tests.rs` holds them to it).

use super::{Code, ALL};
use crate::finding::IssueClass;
use serde::Deserialize;
use std::sync::OnceLock;

/// The run's data file, as `scripts/client-impact` wrote it.
pub const DATA: &str = include_str!("../../data/client-impact.json");

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Data {
    /// The day of the run (YYYY-MM-DD).
    pub generated: String,
    /// How long a client had for the whole session before it was called hung.
    pub bound_ms: u64,
    /// How many times each pair was run; a pair whose outcomes differed is flaky.
    pub runs: u32,
    pub clients: Vec<Client>,
    pub fixtures: Vec<Fixture>,
}

#[derive(Debug, Deserialize)]
pub struct Client {
    pub id: String,
    pub name: String,
    pub package: String,
    pub version: String,
    pub language: String,
}

impl Client {
    /// "TypeScript SDK 1.32.2".
    pub fn label(&self) -> String {
        format!("{} {}", self.name, self.version)
    }
}

#[derive(Debug, Deserialize)]
pub struct Fixture {
    /// The fixture server's file name under `tests/fixtures/servers/`.
    pub fixture: String,
    pub transport: String,
    /// What `mcpcheck guard` reported on it.
    pub codes: Vec<String>,
    pub observations: Vec<Observation>,
}

#[derive(Debug, Deserialize)]
pub struct Observation {
    pub client: String,
    pub outcome: Outcome,
    /// The step that failed or hung (connect, tools/list, prompts/list, resources/list,
    /// tools/call, close).
    pub step: Option<String>,
    /// What the client raised or reported, excerpted.
    pub detail: Option<String>,
    #[serde(default)]
    pub flaky: bool,
    /// Every outcome seen, when they differed between runs.
    #[serde(default)]
    pub outcomes: Vec<Outcome>,
}

/// What the client did, as the run classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every step completed and the client reported nothing.
    Ok,
    /// Every step completed; the client reported something it discarded and went on.
    Drops,
    /// A step failed with an error.
    Error,
    /// A step failed and the session was dead.
    Closed,
    /// No outcome within the bound.
    Hang,
    /// The client was not run on this fixture (the detail says why).
    Skipped,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Drops => "drops",
            Outcome::Error => "error",
            Outcome::Closed => "closed",
            Outcome::Hang => "hang",
            Outcome::Skipped => "skipped",
        }
    }

    /// The host's session broke: a step failed, the session died, or nothing came back.
    pub fn hurts(self) -> bool {
        matches!(self, Outcome::Error | Outcome::Closed | Outcome::Hang)
    }
}

impl Observation {
    /// Every outcome seen: one, or each of a flaky pair's.
    pub fn seen(&self) -> Vec<Outcome> {
        if self.outcomes.is_empty() {
            vec![self.outcome]
        } else {
            self.outcomes.clone()
        }
    }

    /// Hurt in at least one run.
    pub fn hurts(&self) -> bool {
        self.seen().iter().any(|o| o.hurts())
    }

    /// " at STEP" when a step failed or hung, else empty.
    pub fn at(&self) -> String {
        self.step
            .as_deref()
            .map(|s| format!(" at {s}"))
            .unwrap_or_default()
    }

    /// What the client did, in a few words: "fails at connect", "hangs at tools/list".
    pub fn phrase(&self) -> String {
        let one = |o: Outcome| {
            let at = self.at();
            match o {
                Outcome::Ok => "goes on unaffected".to_string(),
                Outcome::Drops => "reports it and goes on".to_string(),
                Outcome::Error => format!("fails{at}"),
                Outcome::Closed => format!("loses the session{at}"),
                Outcome::Hang => format!("hangs{at}"),
                Outcome::Skipped => "was not run".to_string(),
            }
        };
        if self.flaky {
            let seen: Vec<String> = self.seen().into_iter().map(one).collect();
            format!("{} (flaky)", seen.join(" or "))
        } else {
            one(self.outcome)
        }
    }
}

/// The compiled-in data.
pub fn data() -> &'static Data {
    static DATA_PARSED: OnceLock<Data> = OnceLock::new();
    // The file is ours and a test parses it, so a failure here is a build defect.
    DATA_PARSED.get_or_init(|| serde_json::from_str(DATA).expect("data/client-impact.json parses"))
}

/// The client an observation names.
pub fn client(id: &str) -> Option<&'static Client> {
    data().clients.iter().find(|c| c.id == id)
}

/// The fixtures on which the guard reported `code`, the most telling first: the fewest other
/// codes beside it (so the clients' outcome is the fault's own), then by name.
pub fn fixtures(code: &str) -> Vec<&'static Fixture> {
    let mut found: Vec<&Fixture> = data()
        .fixtures
        .iter()
        .filter(|f| f.codes.iter().any(|c| c == code))
        .collect();
    found.sort_by(|a, b| (a.codes.len(), &a.fixture).cmp(&(b.codes.len(), &b.fixture)));
    found
}

/// The fixture whose observations speak for `code`, if any fixture produced it.
pub fn evidence(code: &str) -> Option<&'static Fixture> {
    fixtures(code).into_iter().next()
}

impl Fixture {
    /// The observations of clients that ran, in the data's client order.
    pub fn ran(&self) -> Vec<(&'static Client, &Observation)> {
        data()
            .clients
            .iter()
            .filter_map(|c| {
                self.observations
                    .iter()
                    .find(|o| o.client == c.id && o.outcome != Outcome::Skipped)
                    .map(|o| (c, o))
            })
            .collect()
    }
}

/// How the clients fared on a code's fixture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impact {
    /// No fixture produced the code, or no client ran on it.
    Unobserved,
    /// Every client completed its session and reported nothing, as on a correct server: the
    /// run cannot tell a fault the clients accept from one a host's session never meets (a
    /// fault in answering a probe), so it decides nothing.
    NotReached,
    /// No client's session broke, and at least one reported the fault and went on.
    NoneHurt,
    /// Some clients' sessions broke, some did not.
    SomeHurt,
    /// Every client's session broke.
    AllHurt,
}

pub fn impact(code: &str) -> Impact {
    let Some(fixture) = evidence(code) else {
        return Impact::Unobserved;
    };
    let ran = fixture.ran();
    let hurt = ran.iter().filter(|(_, o)| o.hurts()).count();
    let quiet = ran
        .iter()
        .all(|(_, o)| o.seen().iter().all(|s| *s == Outcome::Ok));
    match (ran.len(), hurt) {
        (0, _) => Impact::Unobserved,
        (_, 0) if quiet => Impact::NotReached,
        (_, 0) => Impact::NoneHurt,
        (n, h) if n == h => Impact::AllHurt,
        _ => Impact::SomeHurt,
    }
}

/// One line for a finding's help: what each client did on the code's fixture.
pub fn line(code: &str) -> Option<String> {
    let fixture = evidence(code)?;
    let ran = fixture.ran();
    if ran.is_empty() {
        return None;
    }
    let said: Vec<String> = ran
        .iter()
        .map(|(c, o)| format!("{} {}", c.label(), o.phrase()))
        .collect();
    Some(format!(
        "observed on {} ({}): {}",
        fixture.fixture,
        data().generated,
        said.join("; ")
    ))
}

/// The codes a guard run reports: the ones a fixture server can make a client meet.
pub fn guard_codes() -> impl Iterator<Item = Code> {
    ALL.iter().copied().filter(|c| {
        matches!(
            c.meta().class,
            IssueClass::McpProtocol | IssueClass::StdioTransport
        )
    })
}

/// The observation that decides the code's severity, in a sentence, when it decides one: every
/// client hurt makes it an error; clients that met it, reported it and went on make it
/// less. `None` when the observations leave the severity to the rule's own argument.
pub fn decision(code: &str) -> Option<String> {
    let fixture = evidence(code)?;
    let said = fixture
        .ran()
        .iter()
        .map(|(c, o)| format!("{} {}", c.label(), o.phrase()))
        .collect::<Vec<_>>()
        .join("; ");
    // Only where the catalog already follows it: a severity the evidence argues against is
    // not claimed to be decided by it.
    let error = Code::from_name(code)?.severity() == crate::finding::Severity::Error;
    match impact(code) {
        Impact::AllHurt if error => Some(format!(
            "Every client observed on {} lost its session ({}), so it is an error.",
            fixture.fixture, said
        )),
        Impact::NoneHurt if !error => Some(format!(
            "No client observed on {} was hurt ({}), so it is not an error.",
            fixture.fixture, said
        )),
        _ => None,
    }
}
