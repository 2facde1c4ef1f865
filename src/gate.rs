//! Whether a run failed: one threshold over its findings. Every subcommand and the Action
//! decide their exit code (1 on failure) and the `ok` of their reports here.

use crate::finding::{Finding, Risk, Severity};

/// What fails a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Any finding of this severity or worse: `guard`, `source`, `surface` (errors) and the
    /// Action's `fail_on`.
    Severity(Severity),
    /// Any finding of this risk or higher: `scan --fail-on`. A finding without a risk of its
    /// own is rated by its severity ([`risk_of`]).
    Risk(Risk),
    /// Nothing: the Action's `fail_on: never`.
    Never,
}

impl Default for Gate {
    /// Any error fails the run.
    fn default() -> Self {
        Gate::Severity(Severity::Error)
    }
}

impl Gate {
    /// Whether this one finding fails the run.
    pub fn fails(self, f: &Finding) -> bool {
        match self {
            Gate::Severity(s) => f.severity >= s,
            Gate::Risk(r) => risk_of(f) >= r,
            Gate::Never => false,
        }
    }

    /// How many findings fail the run.
    pub fn failing(self, findings: &[Finding]) -> usize {
        findings.iter().filter(|f| self.fails(f)).count()
    }

    pub fn passes(self, findings: &[Finding]) -> bool {
        !findings.iter().any(|f| self.fails(f))
    }

    /// The process exit code: 0 when the findings pass, 1 when they fail.
    pub fn exit_code(self, findings: &[Finding]) -> u8 {
        if self.passes(findings) {
            0
        } else {
            1
        }
    }
}

/// A finding's risk: its own, else the one its severity stands for.
pub fn risk_of(f: &Finding) -> Risk {
    f.risk.unwrap_or(match f.severity {
        Severity::Error => Risk::High,
        Severity::Warning => Risk::Medium,
        Severity::Note => Risk::Info,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Code;

    fn finding(severity: Severity, risk: Option<Risk>) -> Finding {
        let mut f = Finding::new(Code::ToolShadowing, "x");
        f.severity = severity;
        f.risk = risk;
        f
    }

    #[test]
    fn each_threshold_fails_at_its_level_and_not_below() {
        let warning = [finding(Severity::Warning, None)];
        let error = [finding(Severity::Error, None)];
        assert!(Gate::default().passes(&warning));
        assert_eq!(Gate::default().exit_code(&error), 1);
        assert!(!Gate::Severity(Severity::Warning).passes(&warning));
        assert!(Gate::Never.passes(&error));
        // Without a risk of its own a warning rates medium: it fails at medium, not at high.
        assert!(!Gate::Risk(Risk::Medium).passes(&warning));
        assert!(Gate::Risk(Risk::High).passes(&warning));
        // A risk of its own wins over the severity's.
        let low_error = [finding(Severity::Error, Some(Risk::Low))];
        assert!(Gate::Risk(Risk::Medium).passes(&low_error));
        assert_eq!(Gate::Risk(Risk::Low).failing(&low_error), 1);
        assert!(Gate::default().passes(&[]));
    }
}
