//! MCP protocol revisions the project knows.

/// Every published revision, oldest first.
pub const KNOWN_VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The revision the guard requests unless told otherwise.
pub const DEFAULT_VERSION: &str = "2025-11-25";

/// The stateless revision: no initialize; `server/discover` and per-request `_meta`.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Revisions whose session starts with an `initialize` handshake.
pub const INITIALIZE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

pub fn is_known(version: &str) -> bool {
    KNOWN_VERSIONS.contains(&version)
}

/// True for a `YYYY-MM-DD` string, the shape every revision name has.
pub fn looks_like_version(version: &str) -> bool {
    let b = version.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_every_revision_and_the_shape_of_one() {
        assert!(is_known("2025-06-18"));
        assert!(!is_known("2099-01-01"));
        assert!(looks_like_version("2099-01-01"));
        assert!(!looks_like_version("1.0"));
        assert!(!looks_like_version("2025-6-18x"));
    }
}
