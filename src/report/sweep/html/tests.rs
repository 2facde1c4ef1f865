use super::*;
use crate::sweep::merge::merge;

fn page_of(lines: &[serde_json::Value]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write");
    let summary = Summary::of(&merge(&[path]).expect("merge"));
    render(&Page {
        summary: &summary,
        changes: None,
    })
}

fn hostile_line() -> serde_json::Value {
    serde_json::json!({
        "id": "</script><script>alert(1)</script>", "status": "fail",
        "startedAt": "2026-01-01T00:00:00.000Z", "wallMs": 5,
        "reproduce": "mcpcheck guard -- npx -y \"x\" '<!--'",
        "summary": {"issueClass": "stdioTransport", "primaryIssueCode": "stdout-non-json",
            "issueCounts": {"error": 1, "warning": 0}},
        "issues": [{"code": "stdout-non-json", "severity": "error", "class": "stdioTransport",
            "message": "<img src=x onerror=alert(2)>", "evidence": "</pre><b>x</b>"},
            {"code": "x\" onmouseover=\"alert(5)", "severity": "warning", "class": "y'z",
            "message": "m"}],
        "command": ["npx"], "serverInfo": {"name": "<svg onload=alert(3)>"},
    })
}

#[test]
fn untrusted_text_never_becomes_markup() {
    let page = page_of(&[hostile_line()]);
    for raw in [
        "<script>alert(1)",
        "<img src=x",
        "<svg onload",
        "</pre><b>",
        "'<!--'",
    ] {
        assert!(!page.contains(raw), "{raw} appears unescaped");
    }
    assert!(page.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains(
        r#"<code>mcpcheck guard -- npx -y &quot;x&quot; &#39;&lt;!--&#39;</code> <button class="copy">"#
    ));
    // A code and a class from the results, in attributes and a link.
    assert!(page.contains(r#"data-k="stdioTransport y&#39;z" data-c="stdout-non-json x&quot; onmouseover=&quot;alert(5)""#), "{page}");
    assert!(page.contains(r#"<tr id="code-x&quot; onmouseover=&quot;alert(5)">"#));
    let html = page
        .split(r#"<script type="application/json""#)
        .next()
        .expect("the HTML");
    assert!(!html.contains("\" onmouseover"));
    // The page's only scripts are its own two and its JSON.
    assert_eq!(page.matches("<script").count(), 3);
    assert_eq!(page.matches("</script>").count(), 3);
}

#[test]
fn the_policy_allows_the_page_s_own_script_and_style_and_no_request() {
    let page = page_of(&[hostile_line()]);
    let csp = page
        .split("Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a policy");
    assert!(csp.starts_with("default-src 'none';"), "{csp}");
    assert!(csp.contains(&escape::csp_hash(SCRIPT)));
    assert!(csp.contains(&escape::csp_hash(STYLE)));
    assert!(page.contains(&format!("<script>{SCRIPT}</script>")));
    for remote in ["http://", "https://", "//fonts", "@import", "url("] {
        assert!(
            !STYLE.contains(remote) && !SCRIPT.contains(remote),
            "{remote}"
        );
    }
}

#[test]
fn counts_rows_and_details_are_html() {
    let mut pass = hostile_line();
    pass["id"] = "ok-server".into();
    pass["status"] = "pass".into();
    pass["issues"] = serde_json::json!([]);
    pass["summary"]["primaryIssueCode"] = "".into();
    pass["summary"]["issueClass"] = "".into();
    let page = page_of(&[hostile_line(), pass]);
    assert!(page.contains(r#"<li class="h-working"><b>1</b> working"#));
    assert!(page.contains(r#"<li class="h-broken"><b>1</b> broken"#));
    assert_eq!(page.matches(r#"<tbody class="srv""#).count(), 2);
    assert!(page.contains("<pre>&lt;/pre&gt;&lt;b&gt;x&lt;/b&gt;</pre>"));
    assert!(page.contains(r#"id="code-stdout-non-json""#));
}

#[test]
fn a_page_too_big_for_every_finding_keeps_the_worst_servers_and_stays_under_10_mb() {
    use crate::sweep::judgement::tests::row;
    use crate::sweep::summary::IssueRow;
    let servers: Vec<_> = (0..4000)
        .map(|n| {
            let mut r = row("fail", Some("stdout-non-json"), Some("stdioTransport"));
            r.id = format!("server-{n:05}");
            r.issues = (0..12)
                .map(|i| IssueRow {
                    code: "stdout-non-json".into(),
                    severity: "error".into(),
                    class: "stdioTransport".into(),
                    message: format!("line {i} is not JSON"),
                    detail_code: None,
                    evidence: Some("x".repeat(2000)),
                    fix: None,
                })
                .collect();
            r
        })
        .collect();
    let summary = Summary {
        servers,
        ..Summary::default()
    };
    let page = render(&Page {
        summary: &summary,
        changes: None,
    });
    assert!(page.len() <= 10_000_000, "{} bytes", page.len());
    assert!(
        page.len() > 9_000_000,
        "the budget is used: {} bytes",
        page.len()
    );
    let rows: Vec<&str> = page.split(r#"<tbody class="srv""#).skip(1).collect();
    assert_eq!(rows.len(), 4000);
    assert!(rows[0].contains(r#"<div class="finding"#));
    assert!(rows[3999].contains("12 findings, left out to keep this page small"));
    let kept = rows
        .iter()
        .filter(|r| r.contains(r#"<div class="finding"#))
        .count();
    // 12 findings of 600 characters' evidence each: about 8 KB a server.
    assert!(
        (700..1300).contains(&kept),
        "{kept} servers kept their findings"
    );
}

#[test]
fn a_results_file_naming_thousands_of_codes_gets_a_bounded_codes_table() {
    let lines: Vec<serde_json::Value> = (0..2000)
        .map(|n| {
            let mut l = hostile_line();
            l["id"] = format!("s{n}").into();
            l["issues"][1]["code"] = format!("made-up-{n}").into();
            l
        })
        .collect();
    let page = page_of(&lines);
    let codes = page.matches(r#"<tr id="code-"#).count();
    assert!((1..=400).contains(&codes), "{codes} codes");
    assert!(page.contains(r#"<tr id="code-stdout-non-json">"#));
}
