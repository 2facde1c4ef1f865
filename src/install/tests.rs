use super::*;
use serde_json::json;

fn install(argv: &[&str], installer: Installer) -> Install {
    let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
    Install::of_command(&argv, installer).expect("installed first")
}

fn npm() -> Install {
    install(&["npx", "-y", "@s/x@1.0.0"], Installer::Npm)
}

fn pypi() -> Install {
    install(&["uvx", "x==1.0"], Installer::Uv)
}

fn failure() -> InstallFacts {
    ran(false)
}

fn ran(timed_out: bool) -> InstallFacts {
    InstallFacts::ran(facts::SetupFacts::Ran(facts::CommandRun {
        command: vec!["npm".into()],
        ok: false,
        timed_out,
        exit_code: None,
        signal: None,
        duration_ms: 0,
        output_tail: None,
    }))
}

#[test]
fn the_decisive_line_of_each_failure_is_found() {
    let t = Duration::from_secs(1);
    let npm404 = "npm error code E404\nnpm error 404 Not Found - GET https://r/@s%2fx - Not found\nnpm error 404  '@s/x@1.0.0' is not in this registry.\nnpm error A complete log of this run can be found in: /x.log\n";
    let (code, detail, line) = classify(&npm(), &failure(), npm404, t);
    assert_eq!((code, detail), (Code::InstallPackageMissing, "package"));
    assert!(line.contains("404"), "{line}");
    let notarget = "npm error code ETARGET\nnpm error notarget No matching version found for @s/x@9.9.9.\nnpm error A complete log of this run can be found in: /x.log";
    let (code, detail, line) = classify(&npm(), &failure(), notarget, t);
    assert_eq!((code, detail), (Code::InstallPackageMissing, "version"));
    assert!(line.contains("No matching version found"), "{line}");
    let old = "  × No solution found when resolving dependencies:\n  ╰─▶ Because the current Python version (3.11.7) does not satisfy Python>=3.12 and x==1.0 depends on Python>=3.12, we can conclude that x==1.0 cannot be used.";
    let (code, _, line) = classify(&pypi(), &failure(), old, t);
    assert_eq!(code, Code::InstallRuntimeTooOld);
    assert!(line.contains("3.12"), "{line}");
    let missing = "error: No solution found when resolving dependencies\n  cause: Because x was not found in the package registry and you require x==1.0, we can conclude that your requirements are unsatisfiable.";
    assert_eq!(
        classify(&pypi(), &failure(), missing, t).0,
        Code::InstallPackageMissing
    );
    let other = "npm error code EACCES\nnpm error syscall mkdir\nnpm error Error: EACCES: permission denied, mkdir '/x'\nnpm error A complete log of this run can be found in: /x.log";
    let (code, _, line) = classify(&npm(), &failure(), other, t);
    assert_eq!(code, Code::InstallFailed);
    assert_eq!(
        line,
        "npm error Error: EACCES: permission denied, mkdir '/x'"
    );
    // A credential in the installer's output never reaches the evidence.
    let leaky = "npm error 404 Not Found - GET https://ci:npm_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7@registry.example/x - Not found";
    let (_, _, line) = classify(&npm(), &failure(), leaky, t);
    let Installed::Failed { finding, .. } =
        failed(Code::InstallPackageMissing, "package", &line, failure())
    else {
        panic!("failed")
    };
    let shown = finding.evidence.unwrap_or_default();
    assert!(!shown.contains("npm_Zx8Qm2"), "{shown}");
    assert!(
        shown.contains("https://ci:[REDACTED]@registry.example/x"),
        "{shown}"
    );
    let timeout = ran(true);
    assert_eq!(classify(&npm(), &timeout, "", t).0, Code::InstallTimeout);
}

#[test]
fn keys_are_file_names_and_never_shared() {
    let a = npm().key();
    assert!(a.starts_with("npm-_s_x_1.0.0-"), "{a}");
    let b = install(&["npx", "-y", "_s/x@1.0.0"], Installer::Npm).key();
    assert_ne!(a, b);
}

#[test]
fn an_npm_bin_is_chosen_as_npx_chooses_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |bin: Value| {
        let pkg = dir.path().join("node_modules/@s/x");
        std::fs::create_dir_all(&pkg).expect("dir");
        std::fs::write(pkg.join("package.json"), json!({"bin": bin}).to_string()).expect("write");
    };
    std::fs::create_dir_all(dir.path().join("node_modules/.bin")).expect("bin dir");
    for name in ["x", "other", "only"] {
        std::fs::write(dir.path().join("node_modules/.bin").join(name), "").expect("bin");
    }
    write(json!("cli.js"));
    assert!(npm_bin(dir.path(), "@s/x")
        .expect("string")
        .ends_with(".bin/x"));
    write(json!({"only": "a.js"}));
    assert!(npm_bin(dir.path(), "@s/x")
        .expect("one")
        .ends_with(".bin/only"));
    write(json!({"other": "a.js", "x": "b.js"}));
    assert!(npm_bin(dir.path(), "@s/x")
        .expect("named")
        .ends_with(".bin/x"));
    // Several names for one file (./ or not): the first, whatever its name.
    write(json!({"other": "./bin/a.js", "only": "bin/a.js"}));
    assert!(npm_bin(dir.path(), "@s/x")
        .expect("aliases")
        .ends_with(".bin/other"));
    write(json!({"other": "a.js", "more": "b.js"}));
    assert!(npm_bin(dir.path(), "@s/x")
        .expect_err("none")
        .0
        .contains("none named x: other (a.js), more (b.js)"));
    write(Value::Null);
    assert!(npm_bin(dir.path(), "@s/x")
        .expect_err("no bin")
        .0
        .contains("no \"bin\""));
}
