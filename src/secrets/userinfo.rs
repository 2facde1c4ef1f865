//! Passwords in URLs' userinfo (`mongodb://admin:s3cret@host/db`, `https://user:token@host`):
//! whatever the name of the value that holds the URL, its password is a credential.

use std::ops::Range;

/// The byte ranges of every userinfo password in `text`, as written (not percent-decoded),
/// for each URL the `url` crate (WHATWG, as clients read them) parses with a password.
pub fn url_passwords(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("://") {
        let sep = from + at;
        from = sep + 3;
        // The scheme starts after the last character that cannot be in one (which may be
        // several bytes long).
        let scheme_start = text[..sep]
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let scheme = &text[scheme_start..sep];
        if !scheme.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        // The URL runs to the first white space or quote; its authority to the first
        // `/`, `?`, `#` or `\` (special schemes read a backslash as a slash).
        let rest = &text[from..];
        let url_end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
            .unwrap_or(rest.len());
        let url_text = &rest[..url_end];
        let authority_end = url_text
            .find(['/', '?', '#', '\\'])
            .unwrap_or(url_text.len());
        let authority = &url_text[..authority_end];
        // The userinfo ends at the authority's last `@`; the password follows its first `:`.
        let Some(userinfo_end) = authority.rfind('@') else {
            continue;
        };
        let Some(colon) = authority[..userinfo_end].find(':') else {
            continue;
        };
        if colon + 1 == userinfo_end {
            continue;
        }
        let candidate = &text[scheme_start..from + url_end];
        let parsed = url::Url::parse(candidate);
        if parsed.as_ref().is_ok_and(|u| u.password().is_some()) || parsed.is_err() {
            // A URL the parser refuses (a bad port, a host it cannot read) may still be
            // read by a client that is less strict: its password is masked all the same.
            found.push(from + colon + 1..from + userinfo_end);
        }
        from += authority_end;
    }
    found
}

/// `text` with every userinfo password replaced by `mask`.
pub fn mask_url_passwords(text: &str, mask: &str) -> String {
    super::values::mask_spans(text, &url_passwords(text), mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passwords(text: &str) -> Vec<&str> {
        url_passwords(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn finds_the_password_of_every_url_with_userinfo() {
        assert_eq!(
            passwords("mongodb://admin:s3cretpw@db:27017/x"),
            ["s3cretpw"]
        );
        assert_eq!(
            passwords("--db=postgres://u:p%40ss@h/db and https://user:token@example.com/x"),
            ["p%40ss", "token"]
        );
        // The userinfo ends at the last `@` of the authority, as clients read it.
        assert_eq!(passwords("redis://u:p@ss@h:6379"), ["p@ss"]);
        assert_eq!(passwords("\"amqp://guest:guest@localhost\""), ["guest"]);
        // A scheme right after a character of several bytes.
        assert_eq!(passwords("é→ftp://a:b@h"), ["b"]);
        // A multi-byte character right before the scheme (a fuzzer's find).
        assert_eq!(passwords("\u{e9}\u{fffd}https://u:pw@h/"), ["pw"]);
    }

    #[test]
    fn leaves_urls_without_a_password_alone() {
        for text in [
            "https://user@example.com/",
            "https://example.com/a:b@c",
            "https://example.com/?q=a:b@c",
            "mailto:a@b.c",
            "https://u:@h/",
            "no url here: a@b",
            "://x:y@z",
        ] {
            assert!(passwords(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn masks_in_place() {
        assert_eq!(
            mask_url_passwords("conn mongodb://admin:s3cretpw@db/x ok", "[REDACTED]"),
            "conn mongodb://admin:[REDACTED]@db/x ok"
        );
    }
}
