//! The runner log: workflow commands that did not come from mcpcheck itself.

/// Workflow commands in a runner log that did not come from mcpcheck itself. Between
/// `::stop-commands::TOKEN` and `::TOKEN::` the runner ignores commands.
pub fn stray_commands(log: &str) -> Vec<String> {
    let mut stray = Vec::new();
    let mut stopped: Option<String> = None;
    for line in log.lines() {
        let l = line.trim_start();
        if let Some(token) = &stopped {
            if l == format!("::{token}::") {
                stopped = None;
            }
            continue;
        }
        if let Some(token) = l.strip_prefix("::stop-commands::") {
            let fresh = token.len() == 32 && token.chars().all(|c| c.is_ascii_hexdigit());
            if !fresh {
                stray.push(line.to_string());
            }
            stopped = Some(token.to_string());
            continue;
        }
        if !l.starts_with("::") {
            continue;
        }
        let ours = ["::group::", "::endgroup::"]
            .iter()
            .any(|p| l.starts_with(p))
            || ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|p| l.starts_with(p) && l.contains("title=mcpcheck"));
        if !ours {
            stray.push(line.to_string());
        }
    }
    assert!(stopped.is_none(), "a stop-commands block was never closed");
    stray
}
