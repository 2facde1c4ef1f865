//! Baseline and lock readers, and surface listings with every surface rule.

use crate::scan::baseline::Baseline;
use crate::scan::lock;
use crate::surface::{self, listing, SurfaceOptions};

/// The first byte picks the reader. Invariants: a file is read or refused with one line;
/// what is read is written back and read again unchanged.
pub fn baseline_lock(data: &[u8]) {
    let (control, rest) = super::split_first(data);
    if control & 1 == 0 {
        let path = super::scratch("baseline.json", rest);
        match Baseline::read(&path) {
            Ok(b) => {
                let json = serde_json::to_string(&b).expect("a baseline serialises");
                let again: Baseline = serde_json::from_str(&json).expect("a baseline reads back");
                assert_eq!(again, b, "the baseline changes through JSON");
                assert!(b.fingerprints().len() <= b.findings.len());
            }
            Err(e) => super::assert_one_line("baseline error", &e.0),
        }
    } else {
        let path = super::scratch("mcpcheck.lock", rest);
        match lock::read(&path) {
            Ok(l) => {
                let json = serde_json::to_string(&l).expect("a lock serialises");
                let again: lock::LockFile = serde_json::from_str(&json).expect("a lock reads back");
                assert_eq!(again, l, "the lock changes through JSON");
                for s in &l.servers {
                    if let Some(surface) = &s.surface {
                        assert!(lock::surface_changes(surface, surface).is_empty());
                    }
                }
            }
            Err(e) => super::assert_one_line("lock error", &e.0),
        }
    }
}

/// A listing (one server or an array) through every surface rule, the full set and the
/// guard's. Invariants: the rules are deterministic and the guard's set finds no code the
/// full set does not.
pub fn surface_listing(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(servers) = listing::parse(&value, "server") else {
        return;
    };
    let surfaces: Vec<_> = servers.iter().map(|s| s.surface.clone()).collect();
    let initialize: Vec<_> = servers.iter().map(|s| s.initialize.clone()).collect();
    let full = SurfaceOptions::default();
    let guard = SurfaceOptions {
        only_guard_rules: true,
    };
    let all = surface::check_with_initialize(&surfaces, &initialize, &full);
    let again = surface::check_with_initialize(&surfaces, &initialize, &full);
    assert_eq!(
        format!("{all:?}"),
        format!("{again:?}"),
        "the surface rules are not deterministic"
    );
    let guard_only = surface::check_with_initialize(&surfaces, &initialize, &guard);
    let codes: std::collections::HashSet<_> = all.iter().map(|f| f.code).collect();
    assert!(
        guard_only.iter().all(|f| codes.contains(&f.code)),
        "the guard's rules find a code the full set does not"
    );
    for f in all.iter().chain(&guard_only) {
        assert!(!f.message.is_empty(), "{}: empty message", f.code.as_str());
    }
}
