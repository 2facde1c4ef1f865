//! GitHub workflow commands: escaping, stop-commands blocks around untrusted output, and
//! the `$GITHUB_OUTPUT` file. The runner reads any stdout line starting with `::` as a
//! command, so nothing a server wrote may reach the log unescaped or unwrapped.

use std::io::Write;

/// Escapes a command's message (`::error ...::MESSAGE`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property value (`file=...,title=...`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// 128 random bits as hex, for stop-commands tokens and output delimiters.
pub fn random_token() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if read.is_err() {
        // No /dev/urandom: std's per-process random hash keys still give 64 unguessable bits each.
        use std::hash::{BuildHasher, Hasher};
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A token that does not occur in `text`, so the text cannot end the block early.
pub fn token_not_in(text: &str) -> String {
    loop {
        let token = random_token();
        if !text.contains(&token) {
            return token;
        }
    }
}

/// Writes untrusted text to the log with workflow commands switched off around it.
pub fn write_untrusted(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    let token = token_not_in(text);
    writeln!(out, "::stop-commands::{token}")?;
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out, "::{token}::")?;
    out.flush()
}

/// Appends `name=value` outputs to the `$GITHUB_OUTPUT` file, using the delimiter form
/// for any value with a line break.
pub fn write_outputs(path: &std::path::Path, outputs: &[(&str, String)]) -> std::io::Result<()> {
    let mut text = String::new();
    for (name, value) in outputs {
        if value.contains('\n') || value.contains('\r') {
            let delimiter = format!("ghadelimiter_{}", token_not_in(value));
            text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
        } else {
            text.push_str(&format!("{name}={value}\n"));
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_runner() {
        assert_eq!(escape_data("a%b\r\nc:d,e"), "a%25b%0D%0Ac:d,e");
        assert_eq!(escape_property("a%b\nc:d,e"), "a%25b%0Ac%3Ad%2Ce");
    }

    #[test]
    fn untrusted_blocks_are_closed_by_a_fresh_token() {
        let mut out = Vec::new();
        write_untrusted(&mut out, "::error::x\n::stop-commands::abc").expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        let token = lines[0].strip_prefix("::stop-commands::").expect("opening");
        assert_eq!(token.len(), 32);
        assert_eq!(lines.last().copied(), Some(format!("::{token}::").as_str()));
        assert_ne!(random_token(), random_token());
    }
}
