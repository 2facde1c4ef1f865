//! Untrusted text made inert for each place it lands in the page: element text and quoted
//! attribute values (the copy button's data among them), and JSON read by the page's script.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Text for an element's content or a double-quoted attribute value: no character of it can
/// open a tag, end the attribute or start an entity.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A value as JSON inside `<script type="application/json">`: every `<`, `>` and `&` as a
/// `\u` escape, so neither `</script>` nor `<!--` in a string can end or bend the element.
pub fn script_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ => out.push(c),
        }
    }
    out
}

/// A CSP source for an inline script or style: `'sha256-…'`, so the page runs its own script
/// and nothing else.
pub fn csp_hash(body: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(body.as_bytes())))
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_text_in_elements_and_attributes() {
        assert_eq!(
            text(r#"<img src=x onerror="alert('1')">&amp;"#),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;"
        );
    }

    #[test]
    fn json_in_a_script_cannot_end_it() {
        let got = script_json(&["</script><script>alert(1)</script>", "<!--", "a&b\u{2028}"]);
        assert!(!got.contains('<') && !got.contains('>') && !got.contains('&'));
        assert_eq!(
            serde_json::from_str::<Vec<String>>(&got).expect("still JSON"),
            ["</script><script>alert(1)</script>", "<!--", "a&b\u{2028}"]
        );
    }

    #[test]
    fn hashes_are_base64_sha256() {
        // RFC 4648's test vectors, and the hash of an empty script as CSP spells it.
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(
            csp_hash(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
    }
}
