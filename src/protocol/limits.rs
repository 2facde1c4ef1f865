//! The limits of JSON parsers that a line of valid JSON syntax can run into (nesting depth,
//! number range), so they are reported as what they are and not as bad syntax; a line that
//! only begins like JSON is bad syntax, however far in the limit comes.

use super::grammar;
use serde_json::Value;

/// A parser limit a line of valid JSON syntax runs into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonLimit {
    /// Arrays and objects nested deeper than [`MAX_JSON_DEPTH`].
    Depth,
    /// A number beyond what a 64-bit float holds (such as `1e400`).
    NumberRange,
}

/// How deep the JSON parser reads nested arrays and objects (serde_json refuses 128 levels).
pub const MAX_JSON_DEPTH: usize = 127;

/// Which limit, if any, the parse error `e` on `text` is: a limit only when the whole line is
/// one JSON text, since serde_json stops at the limit without reading the rest.
pub(super) fn parser_limit(e: &serde_json::Error, text: &str) -> Option<JsonLimit> {
    let message = e.to_string();
    let limit = if message.starts_with("recursion limit exceeded") {
        JsonLimit::Depth
    } else if message.starts_with("number out of range") {
        JsonLimit::NumberRange
    } else {
        return None;
    };
    grammar::check(text).ok().map(|()| limit)
}

/// A whole number past the signed 64-bit range (2^64 + 1, 1e30): an integer id no client
/// holds exactly, not a fraction.
pub(super) fn is_out_of_range(v: &Value) -> bool {
    const I64_BOUND: f64 = 9_223_372_036_854_775_808.0; // 2^63
    match v {
        Value::Number(n) if n.as_i64().is_none() => {
            n.as_u64().is_some()
                || n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() >= I64_BOUND)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::jsonrpc::{classify, parse_line, EnvelopeProblem, LineContent, Message};

    fn problem_of(line: &str) -> EnvelopeProblem {
        let value: Value = serde_json::from_str(line).expect("json");
        match classify(&value) {
            Message::Invalid { problem, .. } => problem,
            other => panic!("valid: {other:?}"),
        }
    }

    #[test]
    fn parser_limits_are_not_called_bad_syntax() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            parse_line(deep.as_bytes()),
            LineContent::BeyondParserLimits {
                limit: JsonLimit::Depth
            }
        );
        let at_limit = format!(
            "{}{}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        assert!(matches!(
            parse_line(at_limit.as_bytes()),
            LineContent::Batch { .. }
        ));
        let past = format!("[{at_limit}]");
        assert!(matches!(
            parse_line(past.as_bytes()),
            LineContent::BeyondParserLimits { .. }
        ));
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","id":1e400,"result":{}}"#),
            LineContent::BeyondParserLimits {
                limit: JsonLimit::NumberRange
            }
        );
        assert!(matches!(
            parse_line(br#"{"jsonrpc":"2.0","id":1,"result":{"#),
            LineContent::NonJson { .. }
        ));
    }

    fn is_non_json(line: &str) -> bool {
        matches!(parse_line(line.as_bytes()), LineContent::NonJson { .. })
    }

    #[test]
    fn text_behind_a_prefix_past_a_limit_is_not_json() {
        let text = "Listening on port 3000";
        assert!(is_non_json(text));
        assert!(is_non_json(&format!("{}{text}", "[".repeat(129))));
        assert!(is_non_json(&format!("{}{text}", r#"{"a":"#.repeat(200))));
        assert!(is_non_json(&format!("1e999999 {text}")));
        assert!(is_non_json("1e999999 garbage"));
        assert!(is_non_json(&"[".repeat(100_000)));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(is_non_json(&format!("{deep},")));
        assert!(is_non_json(&format!("{deep}]")));
        // A limit hit before a string serde_json refuses (a lone surrogate) is still not JSON.
        let surrogate = format!("{}\"\\ud800\"{}", "[".repeat(200), "]".repeat(200));
        assert!(is_non_json(&surrogate));
        assert!(is_non_json(r#"[1e400,"\ud800"]"#));
    }

    #[test]
    fn a_complete_text_past_a_limit_is_beyond_parser_limits() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            parse_line(format!(" {deep} \t").as_bytes()),
            LineContent::BeyondParserLimits {
                limit: JsonLimit::Depth
            }
        );
        let objects = format!("{}1{}", r#"{"a":"#.repeat(200), "}".repeat(200));
        assert_eq!(
            parse_line(objects.as_bytes()),
            LineContent::BeyondParserLimits {
                limit: JsonLimit::Depth
            }
        );
        assert_eq!(
            parse_line(b"1e999999"),
            LineContent::BeyondParserLimits {
                limit: JsonLimit::NumberRange
            }
        );
        assert_eq!(
            parse_line(br#"[1e400,"\ud83d\ude00 \n",{"k":[true,false,null]}] "#),
            LineContent::BeyondParserLimits {
                limit: JsonLimit::NumberRange
            }
        );
    }

    #[test]
    fn an_id_past_64_bits_is_out_of_range_not_a_fraction() {
        let big = r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#;
        assert_eq!(problem_of(big), EnvelopeProblem::IdOutOfRange);
        let big_u64 = r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}"#;
        assert_eq!(problem_of(big_u64), EnvelopeProblem::IdOutOfRange);
        assert_eq!(
            problem_of(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            EnvelopeProblem::InvalidRequestId
        );
        assert_eq!(
            problem_of(r#"{"jsonrpc":"2.0","id":2.5,"result":{}}"#),
            EnvelopeProblem::InvalidResponseId
        );
    }
}
