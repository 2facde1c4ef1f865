//! The package a server's `reproduce` command starts, read as its launcher reads it: what
//! a report shows as the server's registry type and version.

use crate::finding::excerpt;
use crate::launch::Ecosystem;

/// The registry type and version of the package a `reproduce` command starts, as the
/// launcher reads it (`npx -y @s/x@1.2.0` is npm 1.2.0); `remote` for a URL.
pub fn package_of(reproduce: &str) -> (Option<String>, Option<String>) {
    let Ok(words) = shell_words::split(reproduce) else {
        return (None, None);
    };
    if words.iter().any(|w| w == "--url") && !words.iter().any(|w| w == "--") {
        return (Some("remote".into()), None);
    }
    let Some(start) = words.iter().position(|w| w == "--") else {
        return (None, None);
    };
    let Some(launch) = crate::launch::parse(&words[start + 1..]) else {
        return (None, None);
    };
    let Some(package) = launch.fetches.map(|f| f.package) else {
        return (Some("command".into()), None);
    };
    let registry = match package.ecosystem {
        Ecosystem::Npm => "npm",
        Ecosystem::PyPI => "pypi",
        Ecosystem::Docker => "oci",
    };
    (
        Some(registry.into()),
        package.version.map(|v| excerpt(&v, 60)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_is_read_from_the_reproduce_command() {
        let of = |r: &str| {
            let (reg, ver) = package_of(r);
            (reg.unwrap_or_default(), ver.unwrap_or_default())
        };
        assert_eq!(
            of("mcpcheck guard --timeout 10000 -- npx -y @s/x@1.2.0 /tmp"),
            ("npm".into(), "1.2.0".into())
        );
        assert_eq!(
            of("mcpcheck guard -- uvx 'mcp-server-time==2026.10.19'"),
            ("pypi".into(), "2026.10.19".into())
        );
        assert_eq!(
            of("mcpcheck guard --env 'K=${K}' -- python3 server.py"),
            ("command".into(), String::new())
        );
        assert_eq!(
            of("mcpcheck guard --url https://x.example/mcp"),
            ("remote".into(), String::new())
        );
        assert_eq!(
            of("mcpcheck guard -- 'unclosed"),
            (String::new(), String::new())
        );
    }
}
