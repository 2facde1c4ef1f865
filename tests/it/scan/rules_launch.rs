//! Launch rules on configs (shell-command-wrapper, remote-script-execution, unpinned-package,
//! filesystem-root-access): malicious fixtures at exact locations, benign look-alikes clean.

use crate::support;
use support::scan::*;

#[test]
fn shell_command_wrapper_in_every_shell() {
    let r = expect(
        "shell_command_wrapper.malicious.json",
        &[
            (
                "shell-command-wrapper",
                "medium",
                3,
                49,
                "/mcpServers/bash/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                4,
                60,
                "/mcpServers/login-shell/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                5,
                55,
                "/mcpServers/windows/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                6,
                107,
                "/mcpServers/pwsh/args/2",
            ),
            (
                "shell-command-wrapper",
                "medium",
                7,
                68,
                "/mcpServers/via-env/args/2",
            ),
        ],
    );
    has(&r, ("shell-command-wrapper", "warning"));
    // Medium is below the default --fail-on high.
    assert_eq!(r.exit, 0);
    assert_eq!(r.json["summary"]["status"], "warning");
}

#[test]
fn shell_wrapper_look_alikes_are_not_reported() {
    expect_clean("shell_command_wrapper.benign.json");
}

#[test]
fn remote_script_execution_is_critical() {
    let r = expect(
        "remote_script_execution.malicious.json",
        &[
            (
                "remote-script-execution",
                "critical",
                3,
                52,
                "/mcpServers/installer/args/1",
            ),
            (
                "remote-script-execution",
                "critical",
                4,
                57,
                "/mcpServers/substitution/args/1",
            ),
            (
                "remote-script-execution",
                "critical",
                5,
                64,
                "/mcpServers/windows/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                3,
                52,
                "/mcpServers/installer/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                4,
                57,
                "/mcpServers/substitution/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                5,
                64,
                "/mcpServers/windows/args/1",
            ),
        ],
    );
    has(&r, ("remote-script-execution", "error"));
    assert_eq!(
        r.json["summary"]["primaryIssueCode"],
        "remote-script-execution"
    );
}

#[test]
fn downloads_that_are_not_executed_are_not_remote_script_execution() {
    // Still shell wrappers, which is all they are.
    expect(
        "remote_script_execution.benign.json",
        &[
            (
                "shell-command-wrapper",
                "medium",
                3,
                51,
                "/mcpServers/health/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                4,
                51,
                "/mcpServers/download/args/1",
            ),
        ],
    );
}

#[test]
fn unpinned_packages_in_every_launcher() {
    let r = expect(
        "unpinned_package.malicious.json",
        &[
            (
                "unpinned-package",
                "medium",
                3,
                52,
                "/mcpServers/npx-bare/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                4,
                72,
                "/mcpServers/npx-latest/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                5,
                84,
                "/mcpServers/npx-range/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                6,
                55,
                "/mcpServers/npx-package/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                7,
                48,
                "/mcpServers/bunx-next/args/0",
            ),
            (
                "unpinned-package",
                "medium",
                8,
                50,
                "/mcpServers/pnpm/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                9,
                50,
                "/mcpServers/yarn/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                10,
                69,
                "/mcpServers/npm-exec/args/3",
            ),
            (
                "unpinned-package",
                "medium",
                11,
                46,
                "/mcpServers/uvx-bare/args/0",
            ),
            (
                "unpinned-package",
                "medium",
                12,
                52,
                "/mcpServers/uvx-latest/args/0",
            ),
            (
                "unpinned-package",
                "medium",
                13,
                62,
                "/mcpServers/uvx-from-range/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                14,
                63,
                "/mcpServers/uv-tool-run/args/2",
            ),
            (
                "unpinned-package",
                "medium",
                15,
                50,
                "/mcpServers/pipx/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                16,
                97,
                "/mcpServers/docker-latest/args/5",
            ),
            (
                "unpinned-package",
                "medium",
                17,
                77,
                "/mcpServers/docker-untagged/args/3",
            ),
            (
                "unpinned-package",
                "medium",
                19,
                32,
                "/mcpServers/whole-line/command",
            ),
            (
                "unpinned-package",
                "medium",
                20,
                93,
                "/mcpServers/env-prefix/args/3",
            ),
            (
                "unpinned-package",
                "medium",
                21,
                99,
                "/mcpServers/docker-context/args/5",
            ),
            (
                "unpinned-package",
                "low",
                18,
                90,
                "/mcpServers/docker-tag/args/5",
            ),
        ],
    );
    has(&r, ("unpinned-package", "warning"));
    // The suggested fix is valid for the launcher at hand.
    let fix = |p: &str| r.issue_at(p)["fix"].as_str().expect("fix").to_string();
    assert!(fix("/mcpServers/npx-bare/args/1")
        .contains("`npx -y @modelcontextprotocol/server-github@1.2.3`"));
    assert!(fix("/mcpServers/npx-package/args/1")
        .contains("`npx -y --package=@acme/tools@1.2.3 acme-mcp`"));
    assert!(fix("/mcpServers/bunx-next/args/0").contains("`bunx acme-mcp@1.2.3`"));
    assert!(fix("/mcpServers/pnpm/args/1").contains("`pnpm dlx acme-mcp@1.2.3`"));
    assert!(fix("/mcpServers/yarn/args/1").contains("`yarn dlx acme-mcp@1.2.3`"));
    assert!(fix("/mcpServers/uvx-bare/args/0").contains("`uvx mcp-server-fetch@1.2.3`"));
    assert!(fix("/mcpServers/uvx-from-range/args/1")
        .contains("`uvx --from 'mcp-server-git==1.2.3' mcp-server-git`"));
    assert!(fix("/mcpServers/pipx/args/1")
        .contains("`pipx run --spec 'mcp-server-fetch==1.2.3' mcp-server-fetch`"));
    assert!(fix("/mcpServers/docker-latest/args/5")
        .contains("ghcr.io/github/github-mcp-server@sha256:<digest>"));
}

#[test]
fn pinned_packages_are_not_reported() {
    expect_clean("unpinned_package.benign.json");
}

#[test]
fn filesystem_root_and_home_access() {
    let r = expect(
        "filesystem_root_access.malicious.json",
        &[
            (
                "filesystem-root-access",
                "high",
                3,
                59,
                "/mcpServers/root/args/1",
            ),
            (
                "filesystem-root-access",
                "high",
                5,
                62,
                "/mcpServers/windows/args/1",
            ),
            (
                "filesystem-root-access",
                "high",
                6,
                74,
                "/mcpServers/docker/args/4",
            ),
            (
                "filesystem-root-access",
                "medium",
                4,
                59,
                "/mcpServers/home/args/1",
            ),
            (
                "filesystem-root-access",
                "medium",
                7,
                91,
                "/mcpServers/env/env/ALLOWED_DIRECTORIES",
            ),
        ],
    );
    has(&r, ("filesystem-root-access", "error"));
    has(&r, ("filesystem-root-access", "warning"));
}

#[test]
fn project_directories_are_not_root_access() {
    expect_clean("filesystem_root_access.benign.json");
}

#[test]
fn opaque_shell_command_in_args_is_reported_at_the_string_the_shell_runs() {
    // `command` only names the shell; the string a reviewer must read is in args.
    let r = expect(
        "opaque_shell_command_in_args.json",
        &[(
            "shell-command-wrapper",
            "medium",
            7,
            9,
            "/mcpServers/wrapped/args/1",
        )],
    );
    let location = &r.json["issues"][0]["location"];
    assert_eq!(location["endLine"], 7);
    assert_eq!(location["endColumn"], 47);
}
