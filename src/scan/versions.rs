//! Package versions ordered as their registry orders them: PEP 440 for PyPI, SemVer for npm.
//! A version the registry's scheme refuses falls back to comparing dotted numeric parts, so
//! an odd version in an advisory still sorts somewhere sensible instead of failing the scan.

use crate::launch::Ecosystem;
use std::cmp::Ordering;
use std::str::FromStr;

/// How `a` orders against `b` in `ecosystem`'s versioning scheme.
pub fn compare(ecosystem: Ecosystem, a: &str, b: &str) -> Ordering {
    match ecosystem {
        Ecosystem::PyPI => match (pep440(a), pep440(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => compare_lenient(a, b),
        },
        // npm ignores build metadata when ordering, as SemVer's precedence does.
        Ecosystem::Npm => match (semver(a), semver(b)) {
            (Some(x), Some(y)) => x.cmp_precedence(&y),
            _ => compare_lenient(a, b),
        },
        Ecosystem::Docker => compare_lenient(a, b),
    }
}

fn pep440(v: &str) -> Option<pep440_rs::Version> {
    pep440_rs::Version::from_str(v.trim()).ok()
}

/// SemVer, read as npm's loose mode reads it (a leading `v` or `=` and spaces allowed).
fn semver(v: &str) -> Option<semver::Version> {
    semver::Version::parse(v.trim().trim_start_matches(['v', '=']).trim()).ok()
}

/// Orders dotted versions by their numeric parts (`0.0.40` > `0.0.9`, `2025.9.25` >
/// `2025.7.1`); a part that is not a number compares as text.
fn compare_lenient(a: &str, b: &str) -> Ordering {
    let parts = |s: &str| -> Vec<String> {
        s.trim_start_matches(['v', '='])
            .split(['.', '-', '+'])
            .map(str::to_string)
            .collect()
    };
    let (pa, pb) = (parts(a), parts(b));
    for i in 0..pa.len().max(pb.len()) {
        let (x, y) = (pa.get(i), pb.get(i));
        let o = match (x, y) {
            (Some(x), Some(y)) => match (x.parse::<u64>(), y.parse::<u64>()) {
                (Ok(m), Ok(n)) => m.cmp(&n),
                _ => x.cmp(y),
            },
            // 1.0 == 1.0.0; a pre-release suffix sorts before the release.
            (Some(x), None) => {
                if x.parse::<u64>().is_ok_and(|n| n == 0) {
                    Ordering::Equal
                } else if x.parse::<u64>().is_ok() {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (None, Some(_)) => compare_lenient(b, a).reverse(),
            (None, None) => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::{Equal, Greater, Less};

    /// Every pair in `ascending` is in order, both ways round.
    fn ascending(ecosystem: Ecosystem, versions: &[&str]) {
        for pair in versions.windows(2) {
            assert_eq!(compare(ecosystem, pair[0], pair[1]), Less, "{pair:?}");
            assert_eq!(compare(ecosystem, pair[1], pair[0]), Greater, "{pair:?}");
        }
    }

    #[test]
    fn pypi_orders_by_pep_440() {
        ascending(
            Ecosystem::PyPI,
            &[
                "0.9",
                "1.0.dev0",
                "1.0a1",
                "1.0a2.dev1",
                "1.0a2",
                "1.0b1",
                "1.0rc1",
                "1.0",
                "1.0.post1.dev0",
                "1.0.post1",
                "1.0.1",
                "2.0",
                // An epoch outranks every version without one.
                "1!0.1",
            ],
        );
        assert_eq!(compare(Ecosystem::PyPI, "1.0", "1.0.0"), Equal);
        assert_eq!(compare(Ecosystem::PyPI, "1.0", "v1.0"), Equal);
        assert_eq!(compare(Ecosystem::PyPI, "1.0RC1", "1.0rc1"), Equal);
        assert_eq!(compare(Ecosystem::PyPI, "2025.9.25", "2025.12.1"), Less);
    }

    #[test]
    fn npm_orders_by_semver_precedence() {
        ascending(
            Ecosystem::Npm,
            &[
                "0.0.9",
                "0.0.40",
                "1.0.0-alpha",
                "1.0.0-alpha.1",
                "1.0.0-alpha.beta",
                "1.0.0-beta",
                "1.0.0-beta.2",
                "1.0.0-beta.11",
                "1.0.0-rc.1",
                "1.0.0",
                "2.4.10",
                "2.5.0",
            ],
        );
        assert_eq!(compare(Ecosystem::Npm, "1.0.0+build.5", "1.0.0"), Equal);
        assert_eq!(compare(Ecosystem::Npm, "v1.2.3", "=1.2.3"), Equal);
    }

    #[test]
    fn versions_a_scheme_refuses_compare_by_their_numbers() {
        assert_eq!(compare(Ecosystem::Npm, "1.0", "1.0.0"), Equal);
        assert_eq!(compare(Ecosystem::Npm, "1.1", "1.0.5"), Greater);
        assert_eq!(compare(Ecosystem::Npm, "1.0.0-rc.1", "1.0"), Less);
        assert_eq!(compare(Ecosystem::PyPI, "1.0-banana", "1.0"), Less);
        assert_eq!(compare(Ecosystem::Docker, "0.0.40", "0.0.9"), Greater);
        assert_eq!(compare(Ecosystem::Docker, "2.5.0", "2.4.10"), Greater);
    }
}
