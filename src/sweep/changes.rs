//! What changed since an earlier sweep (`sweep-report --baseline`): servers newly broken,
//! fixed, added and gone, and the codes no server had before. Read by every renderer.

use super::judgement::Judgement;
use super::summary::{ServerRow, Summary};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One server whose verdict moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub id: String,
    /// The baseline's id when it differs (another version of the same server).
    pub was_id: Option<String>,
    /// What the sweep said before and now, with the status and primary code: `working
    /// (pass)`, `broken (fail stdout-non-json)`, `not judged, upstream unreachable (…)`.
    pub before: String,
    pub now: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Servers in the baseline.
    pub baseline_servers: usize,
    /// Broken now, not broken in the baseline.
    pub newly_broken: Vec<Moved>,
    /// Broken in the baseline, working now.
    pub fixed: Vec<Moved>,
    /// Codes found now that no baseline server had, with how many servers have them.
    pub new_codes: Vec<(String, usize)>,
    /// Servers not in the baseline.
    pub added: Vec<String>,
    /// Baseline servers not in this sweep.
    pub gone: Vec<String>,
}

/// A server's id without its `@version` (`io.github.o/x@1.2.0` → `io.github.o/x`), so the
/// next version of a server is compared with the last.
fn name_of(id: &str) -> &str {
    match id.rfind('@') {
        Some(at) if at > 0 => &id[..at],
        _ => id,
    }
}

fn verdict(s: &ServerRow) -> String {
    let said = match Judgement::of(s) {
        Judgement::Working => "working".to_string(),
        Judgement::Broken => "broken".to_string(),
        Judgement::NotJudged(why) => format!("not judged, {why}"),
        Judgement::NotAsked => "not asked".to_string(),
    };
    match &s.primary_issue_code {
        Some(code) => format!("{said} ({} {code})", s.status),
        None => format!("{said} ({})", s.status),
    }
}

fn codes(servers: &[ServerRow]) -> BTreeMap<&str, usize> {
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for s in servers {
        let mine: BTreeSet<&str> = s
            .issues
            .iter()
            .filter(|i| i.severity != "note")
            .map(|i| i.code.as_str())
            .collect();
        for code in mine {
            *by_code.entry(code).or_default() += 1;
        }
    }
    by_code
}

/// One thing that changed, as a list of [`Changes::lists`] holds it; each format writes it
/// with its own escaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed<'a> {
    /// A server whose verdict moved (newly broken, fixed).
    Moved(&'a Moved),
    /// A code no baseline server had, and how many servers have it now.
    Code(&'a str, usize),
    /// A server added or gone, by its id.
    Server(&'a str),
}

/// One list of changes: its title, the word one item is called in a line ("new code"), and
/// its items.
pub struct ChangeList<'a> {
    pub title: &'static str,
    pub label: &'static str,
    pub items: Vec<Changed<'a>>,
}

impl Changes {
    /// The lists every format shows, regressions first; empty ones are left out.
    pub fn lists(&self) -> Vec<ChangeList<'_>> {
        [
            (
                "Newly broken",
                "newly broken",
                self.newly_broken.iter().map(Changed::Moved).collect(),
            ),
            (
                "Fixed",
                "fixed",
                self.fixed.iter().map(Changed::Moved).collect(),
            ),
            (
                "New codes",
                "new code",
                self.new_codes
                    .iter()
                    .map(|(code, n)| Changed::Code(code, *n))
                    .collect(),
            ),
            (
                "Added",
                "added",
                self.added.iter().map(|id| Changed::Server(id)).collect(),
            ),
            (
                "Gone",
                "gone",
                self.gone.iter().map(|id| Changed::Server(id)).collect(),
            ),
        ]
        .into_iter()
        .filter(|(_, _, items): &(_, _, Vec<Changed<'_>>)| !items.is_empty())
        .map(|(title, label, items)| ChangeList {
            title,
            label,
            items,
        })
        .collect()
    }

    pub fn between(now: &Summary, baseline: &Summary) -> Self {
        let by_id: HashMap<&str, &ServerRow> = baseline
            .servers
            .iter()
            .map(|s| (s.id.as_str(), s))
            .collect();
        let mut by_name: HashMap<&str, Vec<&ServerRow>> = HashMap::new();
        for s in &baseline.servers {
            by_name.entry(name_of(&s.id)).or_default().push(s);
        }
        let mut matched: BTreeSet<&str> = BTreeSet::new();
        let mut changes = Changes {
            baseline_servers: baseline.servers.len(),
            ..Self::default()
        };
        for s in &now.servers {
            // The same id, else the one baseline server of the same name.
            let before = by_id.get(s.id.as_str()).copied().or_else(|| {
                match by_name.get(name_of(&s.id)).map(Vec::as_slice) {
                    Some([one]) if !matched.contains(one.id.as_str()) => Some(*one),
                    _ => None,
                }
            });
            let Some(before) = before else {
                changes.added.push(s.id.clone());
                continue;
            };
            matched.insert(&before.id);
            let moved = || Moved {
                id: s.id.clone(),
                was_id: (before.id != s.id).then(|| before.id.clone()),
                before: verdict(before),
                now: verdict(s),
            };
            match (Judgement::of(before), Judgement::of(s)) {
                (Judgement::Broken, Judgement::Working) => changes.fixed.push(moved()),
                (b, Judgement::Broken) if b != Judgement::Broken => {
                    changes.newly_broken.push(moved())
                }
                _ => {}
            }
        }
        changes.gone = baseline
            .servers
            .iter()
            .filter(|s| !matched.contains(s.id.as_str()))
            .map(|s| s.id.clone())
            .collect();
        let old = codes(&baseline.servers);
        let mut new_codes: Vec<(String, usize)> = codes(&now.servers)
            .into_iter()
            .filter(|(code, _)| !old.contains_key(code))
            .map(|(code, n)| (code.to_string(), n))
            .collect();
        new_codes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        changes.new_codes = new_codes;
        changes
    }

    /// `2 newly broken · 1 fixed · 1 new code · 3 added · 0 gone`.
    pub fn counts(&self) -> String {
        format!(
            "{} newly broken · {} fixed · {} · {} added · {} gone",
            self.newly_broken.len(),
            self.fixed.len(),
            crate::finding::plural(self.new_codes.len(), "new code"),
            self.added.len(),
            self.gone.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::judgement::tests::row;
    use crate::sweep::summary::IssueRow;

    fn server(id: &str, status: &str, code: Option<&str>) -> ServerRow {
        let mut r = row(status, code, code.map(|_| "stdioTransport"));
        r.id = id.into();
        if let Some(code) = code {
            r.issues.push(IssueRow {
                code: code.into(),
                severity: "error".into(),
                class: "stdioTransport".into(),
                message: String::new(),
                detail_code: None,
                evidence: None,
                fix: None,
            });
        }
        r
    }

    fn summary(servers: Vec<ServerRow>) -> Summary {
        Summary {
            servers,
            ..Summary::default()
        }
    }

    #[test]
    fn regressions_fixes_new_codes_and_membership_are_found() {
        let before = summary(vec![
            server("a@1.0.0", "pass", None),
            server("b", "fail", Some("stdout-non-json")),
            server("c", "pass", None),
            server("gone", "pass", None),
        ]);
        let now = summary(vec![
            server("a@1.1.0", "fail", Some("stdout-empty-line")),
            server("b", "pass", None),
            server("c", "pass", None),
            server("new", "fail", Some("stdout-non-json")),
        ]);
        let c = Changes::between(&now, &before);
        assert_eq!(
            c.newly_broken,
            [Moved {
                id: "a@1.1.0".into(),
                was_id: Some("a@1.0.0".into()),
                before: "working (pass)".into(),
                now: "broken (fail stdout-empty-line)".into(),
            }]
        );
        assert_eq!(c.fixed.len(), 1);
        assert_eq!(c.fixed[0].before, "broken (fail stdout-non-json)");
        assert_eq!(c.new_codes, [("stdout-empty-line".to_string(), 1)]);
        assert_eq!(c.added, ["new"]);
        assert_eq!(c.gone, ["gone"]);
        assert_eq!(c.baseline_servers, 4);
        assert_eq!(
            c.counts(),
            "1 newly broken · 1 fixed · 1 new code · 1 added · 1 gone"
        );
    }

    #[test]
    fn the_same_sweep_changes_nothing() {
        let s = || summary(vec![server("x", "fail", Some("stdout-non-json"))]);
        assert_eq!(
            Changes::between(&s(), &s()),
            Changes {
                baseline_servers: 1,
                ..Changes::default()
            }
        );
    }
}
