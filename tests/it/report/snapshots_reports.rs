//! Snapshots of every report of every subcommand, in every format it writes, taken from the
//! real binary against real fixtures. Paths, times, versions and the platform are redacted
//! by insta filters (tests/support/snapshot.rs); everything else is pinned byte for byte.

mod guard;
mod other;
mod scan;
mod sweep;
