//! What real MCP clients did when a fixture server committed each fault: the observations
//! of `scripts/client-impact`, kept in `data/client-impact.json` and compiled in. The docs
//! (`docs/clients.md`, `docs/rules/`), `explain` and every finding's help quote them, and
//! the catalog's severities follow them (a test in `tests.rs` holds them to it).

use super::{Code, ALL};
use crate::finding::IssueClass;
use serde::Deserialize;
use std::collections::HashMap;
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
    /// The guard options under which the fixture shows its fault (a probe, the version
    /// matrix); empty for the defaults. The clients run their usual session either way.
    #[serde(default, rename = "guardArgs")]
    pub guard_args: Vec<String>,
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
    /// Every step the outcome came at, when that differed between runs.
    #[serde(default)]
    pub steps: Vec<String>,
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
        if self.steps.len() > 1 {
            return format!(" at {}", self.steps.join(" or "));
        }
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
        if self.flaky && self.outcomes.len() > 1 {
            let seen: Vec<String> = self.seen().into_iter().map(one).collect();
            format!("{} (flaky)", seen.join(" or "))
        } else if self.flaky {
            format!("{} (flaky)", one(self.outcome))
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
    // Every rule's help asks this of every code several times: the fixtures are filed by
    // code once.
    static BY_CODE: OnceLock<HashMap<&'static str, Vec<&'static Fixture>>> = OnceLock::new();
    let by_code = BY_CODE.get_or_init(|| {
        let mut by_code: HashMap<&'static str, Vec<&'static Fixture>> = HashMap::new();
        for fixture in &data().fixtures {
            for code in &fixture.codes {
                let filed = by_code.entry(code.as_str()).or_default();
                // A code listed twice files its fixture once, as a filter over fixtures would.
                if !filed.last().is_some_and(|f| std::ptr::eq(*f, fixture)) {
                    filed.push(fixture);
                }
            }
        }
        for found in by_code.values_mut() {
            found.sort_by(|a, b| (a.codes.len(), &a.fixture).cmp(&(b.codes.len(), &b.fixture)));
        }
        by_code
    });
    by_code.get(code).cloned().unwrap_or_default()
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

/// Codes that say an answer never came: how the guard sees a message lost to another fault (a
/// reply written across lines, or behind a byte-order mark). A fixture that has one of them
/// beside its fault still speaks for that fault.
const CONSEQUENCES: &[&str] = &[
    "initialize-timeout",
    "operation-timeout",
    "operation-missing-response",
];

/// The correct server of a fixture's family: what the runner's own session does there (the
/// reference scenarios answer `initialize` only, so every client waits at `tools/list`; the
/// HTTP fixtures' common server answers `tools/call` with -32601).
fn control_name(fixture: &Fixture) -> &'static str {
    if fixture.fixture.starts_with("reference/") {
        "reference/cases.mjs:clean"
    } else if fixture.transport == "stdio" {
        "clean.py"
    } else {
        "http_clean.py"
    }
}

impl Fixture {
    /// The fixture's name, with the guard options it needs: "downgrades.py (guard
    /// --protocol-matrix)".
    pub fn title(&self) -> String {
        if self.guard_args.is_empty() {
            self.fixture.clone()
        } else {
            format!("{} (guard {})", self.fixture, self.guard_args.join(" "))
        }
    }

    /// The correct server of the fixture's family, when the data has it.
    pub fn control(&self) -> Option<&'static Fixture> {
        let name = control_name(self);
        data().fixtures.iter().find(|f| f.fixture == name)
    }

    /// Whether the fault broke this client's session. Not when its control broke it the same
    /// way (the same outcome at the same step), and not for an `error` at `tools/call`: the run
    /// calls the first tool with made-up arguments and most fixtures implement no tool (every
    /// client reads `error` there on the code-free `mutating_tools_*.py`), so a failed call
    /// cannot be told from the fixture's own tool. A hang or a lost session there still counts.
    pub fn hurt(&self, o: &Observation) -> bool {
        if !o.hurts() {
            return false;
        }
        let as_control = self.control().and_then(|c| {
            c.observations
                .iter()
                .find(|c| c.client == o.client && c.outcome != Outcome::Skipped)
        });
        if let Some(c) = as_control {
            if !o.flaky && c.outcome == o.outcome && c.step == o.step {
                return false;
            }
        }
        !(o.outcome == Outcome::Error && !o.flaky && o.step.as_deref() == Some("tools/call"))
    }

    /// How the clients that ran fared on this fixture.
    pub fn impact(&self) -> Impact {
        let ran = self.ran();
        let hurt = ran.iter().filter(|(_, o)| self.hurt(o)).count();
        let reported = ran.iter().any(|(_, o)| o.seen().contains(&Outcome::Drops));
        match (ran.len(), hurt) {
            (0, _) => Impact::Unobserved,
            (_, 0) if !reported => Impact::NotReached,
            (_, 0) => Impact::NoneHurt,
            (n, h) if n == h => Impact::AllHurt,
            _ => Impact::SomeHurt,
        }
    }

    /// The codes of the fault itself: the guard's codes without the consequences of a lost
    /// answer.
    fn causes(&self) -> impl Iterator<Item = &str> {
        self.codes
            .iter()
            .map(String::as_str)
            .filter(|c| !CONSEQUENCES.contains(c))
    }
}

/// How the clients fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impact {
    /// No fixture produced the code alone, or no client ran on one.
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
    /// The code's fixtures disagree: on one every client broke, on another none did, say.
    Mixed,
}

/// The fixtures that speak for `code` alone: the guard reported it and nothing else but the
/// consequences of a lost answer (only for a fault in what the server wrote, which can lose
/// one), with its default options, and at least one client ran. A
/// fault that shows only under the guard's options (a probe, the version matrix, another
/// revision, a lowered line cap) is not what the clients' own session met, so their outcome
/// there is shown but decides nothing.
pub fn witnesses(code: &str) -> Vec<&'static Fixture> {
    // Only a fault in what the server wrote can lose an answer to the client: beside any other
    // fault (a slow shutdown, say) a lost answer is a fault of its own, which the clients met.
    let can_lose_an_answer = Code::from_name(code).is_some_and(|c| {
        matches!(
            c.meta().class,
            IssueClass::McpProtocol | IssueClass::StdioTransport
        )
    });
    fixtures(code)
        .into_iter()
        .filter(|f| {
            f.guard_args.is_empty()
                && f.causes().eq([code])
                && (can_lose_an_answer || f.causes().count() == f.codes.len())
                && !f.ran().is_empty()
        })
        .collect()
}

/// How the clients fared on the code's witnesses: the same impact on every one that a client's
/// session met (a fixture where the session never met the fault decides nothing), else
/// `Mixed`.
pub fn impact(code: &str) -> Impact {
    let all = witnesses(code);
    if all.is_empty() {
        return Impact::Unobserved;
    }
    let met: Vec<Impact> = all
        .iter()
        .map(|f| f.impact())
        .filter(|i| *i != Impact::NotReached)
        .collect();
    match met.first() {
        None => Impact::NotReached,
        Some(first) if met.iter().all(|i| i == first) => *first,
        Some(_) => Impact::Mixed,
    }
}

/// What the evidence requires of the code's severity: `Some(true)` an error (every client's
/// session broke on every witness that one met), `Some(false)` not an error (none broke on
/// any, and at least one client reported the fault), `None` when it leaves the severity to the
/// rule's own argument.
pub fn requires_error(code: &str) -> Option<bool> {
    match impact(code) {
        Impact::AllHurt => Some(true),
        Impact::NoneHurt => Some(false),
        _ => None,
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
    // Where the fixtures disagree, the line names one that went the other way too, so a
    // reader of a single finding sees both.
    let other = match impact(code) {
        Impact::Mixed => {
            let differ: Vec<&Fixture> = witnesses(code)
                .into_iter()
                .filter(|w| {
                    !matches!(w.impact(), Impact::NotReached) && w.impact() != fixture.impact()
                })
                .collect();
            // The starkest first: one where every client broke.
            differ
                .iter()
                .find(|w| w.impact() == Impact::AllHurt)
                .or(differ.first())
                .map(|w| format!("; on {}: {}", w.title(), describe(w.impact())))
                .unwrap_or_default()
        }
        _ => String::new(),
    };
    Some(format!(
        "observed on {} ({}): {}{other}",
        fixture.title(),
        data().generated,
        said.join("; ")
    ))
}

/// Codes no fixture row can show, and why: a client meets no server fault behind them.
pub const NOT_DRIVEN: &[(Code, &str)] = &[
    (
        Code::ProxyChecksIncomplete,
        "the proxy's account of its own checks, not a fault of the server",
    ),
    (
        Code::SpawnFailed,
        "the command did not start, so there is no server for a client to connect to",
    ),
    (
        Code::HttpUnreachable,
        "nothing answered at the URL, so there is no server for a client to connect to",
    ),
];

/// The codes a guard run reports, in catalog order: every code of the protocol and transport
/// classes (bar `NOT_DRIVEN`), and every other code the guard reported on a fixture of the data
/// (a crash, a timeout, a poisoned description: the guard's codes of other classes).
pub fn guard_codes() -> impl Iterator<Item = Code> {
    let seen = |c: &Code| {
        data()
            .fixtures
            .iter()
            .any(|f| f.codes.iter().any(|x| x == c.as_str()))
    };
    ALL.iter().copied().filter(move |c| {
        let protocol = matches!(
            c.meta().class,
            IssueClass::McpProtocol | IssueClass::StdioTransport
        );
        (protocol && !NOT_DRIVEN.iter().any(|(n, _)| n == c)) || seen(c)
    })
}

/// The observations behind the code's severity, in a sentence: which decided it, or why they
/// left it to the rule's own argument. `None` when no client met the fault alone.
pub fn decision(code: &str) -> Option<String> {
    let said = |f: &Fixture| {
        f.ran()
            .iter()
            .map(|(c, o)| format!("{} {}", c.label(), o.phrase()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let named = |fs: &[&Fixture]| fs.iter().map(|f| f.title()).collect::<Vec<_>>().join(", ");
    let met: Vec<&Fixture> = witnesses(code)
        .into_iter()
        .filter(|f| f.impact() != Impact::NotReached)
        .collect();
    let first = met.first()?;
    // "on a.py (what each client did there)", or "on a.py, b.py (on a.py: ...)".
    let seen = if met.len() == 1 {
        format!("on {} ({})", first.title(), said(first))
    } else {
        format!("on {} (on {}: {})", named(&met), first.title(), said(first))
    };
    Some(match impact(code) {
        Impact::AllHurt => format!(
            "The observations decided it: every client's session broke {seen}, so it is an error."
        ),
        Impact::NoneHurt => format!(
            "The observations decided it: no client's session broke {seen}, so it is not an error."
        ),
        _ => {
            let each: Vec<String> = met
                .iter()
                .map(|f| format!("{}: {}", f.title(), describe(f.impact())))
                .collect();
            format!(
                "The observations do not decide it ({}), so the severity rests on the argument above.",
                each.join("; ")
            )
        }
    })
}

/// An impact in a few words.
fn describe(impact: Impact) -> &'static str {
    match impact {
        Impact::AllHurt => "every client's session broke",
        Impact::SomeHurt => "some clients' sessions broke",
        Impact::NoneHurt => "no client's session broke",
        Impact::NotReached => "no client met it",
        Impact::Unobserved | Impact::Mixed => "not observed",
    }
}
