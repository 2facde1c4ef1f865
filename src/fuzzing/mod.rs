//! Fuzz target bodies: each takes arbitrary bytes and panics when an invariant breaks.
//!
//! A test harness over the engines and renderers, not part of the crate's API. The fuzzer
//! (`fuzz/`, cargo-fuzz) and the corpus replay test (`tests/it/fuzz_replay.rs`) call the same
//! functions, so a crash input committed under `fuzz/artifacts/` fails the normal suite.

mod configs;
mod readers;
mod render;
mod source;
mod stream;
mod text;

use std::path::PathBuf;
use std::sync::OnceLock;

pub use configs::{client_config, guard_config, server_json, sweep_manifest};
pub use readers::{baseline_lock, surface_listing};
pub use render::{check_tables, raw_angle_bracket, renderers};
pub use source::{jvm_config, source_scan};
pub use stream::stdout_lines;
pub use text::{secrets, urls};

/// One fuzz target: its name (the `fuzz/fuzz_targets/<name>.rs` file and corpus folder)
/// and its body.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target, in the order `scripts/fuzz` runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "stdout_lines",
        run: stdout_lines,
    },
    Target {
        name: "client_config",
        run: client_config,
    },
    Target {
        name: "guard_config",
        run: guard_config,
    },
    Target {
        name: "sweep_manifest",
        run: sweep_manifest,
    },
    Target {
        name: "server_json",
        run: server_json,
    },
    Target {
        name: "baseline_lock",
        run: baseline_lock,
    },
    Target {
        name: "surface_listing",
        run: surface_listing,
    },
    Target {
        name: "source_scan",
        run: source_scan,
    },
    Target {
        name: "jvm_config",
        run: jvm_config,
    },
    Target {
        name: "urls",
        run: urls,
    },
    Target {
        name: "secrets",
        run: secrets,
    },
    Target {
        name: "renderers",
        run: renderers,
    },
];

/// Where readers that take a path get their input: one folder per process, under
/// `MCPCHECK_FUZZ_SCRATCH` (scripts/fuzz points it into fuzz/) or the temporary directory.
fn scratch(file: &str, bytes: &[u8]) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let root = std::env::var_os("MCPCHECK_FUZZ_SCRATCH")
            .map_or_else(std::env::temp_dir, PathBuf::from);
        let dir = root.join(format!("mcpcheck-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the fuzz scratch folder");
        dir
    });
    let path = dir.join(file);
    std::fs::write(&path, bytes).expect("write the fuzz scratch file");
    path
}

/// An input error is one line that says what is wrong: never empty, never several lines.
fn assert_one_line(what: &str, message: &str) {
    assert!(!message.trim().is_empty(), "{what}: empty error message");
    assert!(
        !message.contains('\n') && !message.contains('\r'),
        "{what}: error message spans lines: {message:?}"
    );
}

/// The first byte picks a variant, the rest is the input.
fn split_first(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((b, rest)) => (*b, rest),
        None => (0, data),
    }
}
