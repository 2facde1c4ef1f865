//! Replays every fuzz target over its committed corpus and past crash inputs, on the stable
//! toolchain and without a fuzzer: a regression of a fixed crash fails the normal suite.

use mcpcheck::fuzzing::TARGETS;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `dir`, sorted; none when it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("read a corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_target_has_a_fuzzer_binary_and_a_seeded_corpus() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    for target in TARGETS {
        let source = fuzz_dir().join(format!("fuzz_targets/{}.rs", target.name));
        let body = std::fs::read_to_string(&source)
            .unwrap_or_else(|e| panic!("{}: {e}; add the fuzzer's target file", source.display()));
        assert!(
            body.contains(&format!("mcpcheck::fuzzing::{}(data)", target.name)),
            "{} does not call mcpcheck::fuzzing::{}",
            source.display(),
            target.name
        );
        assert!(
            manifest.contains(&format!("name = \"{}\"", target.name)),
            "fuzz/Cargo.toml has no [[bin]] {}",
            target.name
        );
        let corpus = fuzz_dir().join("corpus").join(target.name);
        assert!(
            !inputs(&corpus).is_empty(),
            "{}: no corpus; seed it (python3 fuzz/seed_corpora.py) and commit it",
            corpus.display()
        );
    }
    assert!(TARGETS.len() >= 10, "only {} fuzz targets", TARGETS.len());
}

#[test]
fn every_corpus_and_crash_input_replays_cleanly() {
    let scratch = tempfile::tempdir().expect("scratch folder");
    // The readers that take a path write their input here, not to the shared temporary folder.
    std::env::set_var("MCPCHECK_FUZZ_SCRATCH", scratch.path());
    let mut replayed = 0;
    let mut failed = Vec::new();
    for target in TARGETS {
        let mut files = inputs(&fuzz_dir().join("corpus").join(target.name));
        files.extend(inputs(&fuzz_dir().join("artifacts").join(target.name)));
        for file in files {
            let data = std::fs::read(&file).expect("read a corpus file");
            if std::panic::catch_unwind(|| (target.run)(&data)).is_err() {
                failed.push(file.display().to_string());
            }
            replayed += 1;
        }
    }
    assert!(
        failed.is_empty(),
        "fuzz inputs that fail:\n{}",
        failed.join("\n")
    );
    assert!(replayed > 100, "only {replayed} inputs replayed");
}

#[test]
fn the_markdown_checks_see_a_violation() {
    // So the renderers target cannot pass by looking at nothing.
    use mcpcheck::fuzzing::{check_tables, raw_angle_bracket};
    assert_eq!(raw_angle_bracket("ok \\<img> and `<img>`\n"), None);
    assert_eq!(
        raw_angle_bracket("```\n<b>\n```\n<details><summary>x</summary>"),
        None
    );
    assert_eq!(raw_angle_bracket("a ``<x>`` then <img>"), Some(15));
    check_tables("| a | b |\n|---|---|\n| `x\\|y` | z |\n");
    let extra_cell =
        std::panic::catch_unwind(|| check_tables("| a | b |\n|---|---|\n| x|y | z |\n"));
    assert!(extra_cell.is_err(), "a row with an extra cell passed");
}

#[test]
fn a_token_before_the_equals_sign_of_a_credential_argument_is_masked() {
    // Found by the secrets target: `NAME=VALUE` masked the value and showed NAME as it was.
    let webhook = "https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/q8Zr";
    let arg = format!("{webhook}x?api_key=abcdefgh12345678");
    let out = mcpcheck::secrets::redact_argv(&[arg]);
    assert_eq!(out.len(), 1);
    assert!(!out[0].contains(webhook), "{out:?}");
    assert!(out[0].ends_with("=[REDACTED]"), "{out:?}");
    assert!(
        mcpcheck::secrets::find_tokens(&out[0]).is_empty(),
        "{out:?}"
    );
}
