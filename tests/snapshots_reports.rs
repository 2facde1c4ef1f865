//! Snapshots of every report of every subcommand, in every format it writes, taken from the
//! real binary against real fixtures. Paths, times, versions and the platform are redacted
//! by insta filters (tests/support/snapshot.rs); everything else is pinned byte for byte.

mod support;

#[path = "snapshots_reports/guard.rs"]
mod guard;
#[path = "snapshots_reports/other.rs"]
mod other;
#[path = "snapshots_reports/scan.rs"]
mod scan;
#[path = "snapshots_reports/sweep.rs"]
mod sweep;
