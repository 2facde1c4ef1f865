//! The sticky pull-request comment: created, then updated; a read-only or missing token; hostile output kept inert.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_run_creates_the_comment_and_the_second_updates_it() {
    let fake = FakeGitHub::default();
    // A person quoting the marker: their comment is never taken for ours.
    fake.comments
        .lock()
        .expect("lock")
        .push((1, format!("{MARKER} quoted"), "octocat", "User"));
    let api = github(fake.clone()).await;
    let runner = Runner::new("banner_before_initialize", Some(&api));

    let first = runner.run().await;
    assert_eq!(
        first.exit, 1,
        "findings fail the step:\n{}{}",
        first.log, first.stderr
    );
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF file"));
    support::sarif::assert_uris_are_workspace_files(&doc, runner.ws.path());
    assert_eq!(doc["runs"][0]["automationDetails"]["id"], "mcpcheck/");
    assert_eq!(
        doc["runs"][0]["versionControlProvenance"][0]["revisionId"],
        SHA
    );
    let found: Vec<(&str, &str)> = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().expect("id"),
                r["level"].as_str().expect("level"),
            )
        })
        .collect();
    assert_eq!(found, [("stdout-non-json", "error")]);

    assert_eq!(first.outputs["status"], "fail");
    assert_eq!(first.outputs["ok"], "false");
    assert_eq!(first.outputs["errors"], "1");
    assert_eq!(first.outputs["warnings"], "0");
    assert_eq!(first.outputs["sarif-file"], "mcpcheck.sarif");

    assert!(
        first.summary.starts_with("## ❌ mcpcheck guard: FAIL"),
        "{}",
        first.summary
    );
    assert!(first.summary.contains("stdout-non-json"));
    assert!(
        first.summary.contains(&format!(
            "(https://github.com/o/r/blob/{SHA}/pyproject.toml)"
        )),
        "anchor linked at the commit:\n{}",
        first.summary
    );
    assert!(first
        .summary
        .contains("mcpcheck guard -- python3 banner_before_initialize.py"));
    assert!(first.log.contains(
        "::error file=pyproject.toml,line=1,title=mcpcheck stdout-non-json::1 line on stdout is not JSON"
    ), "{}", first.log);
    assert_eq!(stray_commands(&first.log), Vec::<String>::new());

    let received = api.received_requests().await.expect("recorded");
    assert_eq!(
        requests_to(
            &received,
            "POST",
            &format!("/repos/o/r/issues/{PR}/comments")
        ),
        1
    );
    let auth = received[0]
        .headers
        .get("authorization")
        .expect("authorization header");
    assert!(auth
        .to_str()
        .expect("ascii")
        .ends_with("ghs_0000000000000000000000000000000000"));
    let (ours, body) = {
        let comments = fake.comments.lock().expect("lock");
        assert_eq!(comments.len(), 2);
        (comments[1].0, comments[1].1.clone())
    };
    assert!(body.starts_with(MARKER), "{body}");
    assert!(body.chars().count() < 65_536);
    assert!(
        first
            .log
            .contains(&format!("created pull-request comment {ours}")),
        "{}",
        first.log
    );

    let second = runner.run().await;
    assert_eq!(second.exit, 1);
    let received = api.received_requests().await.expect("recorded");
    assert_eq!(
        requests_to(
            &received,
            "POST",
            &format!("/repos/o/r/issues/{PR}/comments")
        ),
        1,
        "the second run must not add a comment"
    );
    assert_eq!(
        requests_to(
            &received,
            "POST",
            &format!("/repos/o/r/issues/comments/{ours}")
        ),
        1
    );
    assert_eq!(
        requests_to(&received, "POST", "/repos/o/r/issues/comments/1"),
        0
    );
    let comments = fake.comments.lock().expect("lock");
    assert_eq!(comments.len(), 2);
    assert_eq!(
        comments[0].1,
        format!("{MARKER} quoted"),
        "the person's comment is untouched"
    );
    assert!(second
        .log
        .contains(&format!("updated pull-request comment {ours}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_token_degrades_to_a_warning() {
    let api = github(FakeGitHub {
        read_only: true,
        ..FakeGitHub::default()
    })
    .await;
    let runner = Runner::new("clean", Some(&api));
    let step = runner.run().await;
    assert_eq!(
        step.exit, 0,
        "a comment that cannot be posted is not a failure:\n{}{}",
        step.log, step.stderr
    );
    assert!(
        step.log.contains("::warning title=mcpcheck::the pull-request comment was not posted: the token may not write comments (HTTP 403"),
        "{}",
        step.log
    );
    assert!(step.summary.contains("HTTP 403"), "{}", step.summary);
    assert!(step.summary.starts_with("## ✅ mcpcheck guard: PASS"));
    assert_eq!(step.outputs["status"], "pass");
    assert_eq!(step.outputs["ok"], "true");
    validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_a_warning_and_comment_false_calls_no_api() {
    let api = github(FakeGitHub::default()).await;
    let mut runner = Runner::new("clean", Some(&api));
    runner.input("github_token", "");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}", step.log);
    assert!(step.log.contains(
        "::warning title=mcpcheck::the pull-request comment was not posted: no github_token input"
    ));
    assert!(
        step.summary.contains("no github\\_token input"),
        "{}",
        step.summary
    );

    runner
        .input("github_token", "ghs_x")
        .input("comment", "false")
        .input("summary", "false");
    std::fs::remove_file(runner.files.path().join("summary.md")).expect("reset summary");
    let step = runner.run().await;
    assert_eq!(step.exit, 0);
    assert!(api.received_requests().await.expect("recorded").is_empty());
    assert!(step.summary.is_empty(), "summary: false writes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_server_output_stays_inert_in_comment_summary_and_log() {
    let fake = FakeGitHub::default();
    let api = github(fake.clone()).await;
    let runner = Runner::new("hostile_output", Some(&api));
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}{}", step.log, step.stderr);
    let comment = fake.comments.lock().expect("lock")[0].1.clone();
    for (name, text) in [("comment", &comment), ("summary", &step.summary)] {
        assert!(
            text.contains("octocat") && text.contains("pwned"),
            "{name} lacks the hostile text"
        );
        assert_eq!(active_forms(text), Vec::<String>::new(), "{name}:\n{text}");
    }
    // The server's lines appear in the log only inside a stop-commands block or escaped.
    assert!(step.log.contains("pwned"), "{}", step.log);
    assert_eq!(
        stray_commands(&step.log),
        Vec::<String>::new(),
        "{}",
        step.log
    );
    assert!(!step
        .log
        .lines()
        .any(|l| l.trim_start().starts_with("::error::pwned")));
    validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
}
