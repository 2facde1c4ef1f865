//! The limits of JSON parsers that a line of valid JSON syntax can run into (nesting depth,
//! number range), so they are reported as what they are and not as bad syntax.

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

/// Which limit, if any, a parse error is: these are reported as what they are, not as bad syntax.
pub(super) fn parser_limit(e: &serde_json::Error) -> Option<JsonLimit> {
    let text = e.to_string();
    if text.starts_with("recursion limit exceeded") {
        Some(JsonLimit::Depth)
    } else if text.starts_with("number out of range") {
        Some(JsonLimit::NumberRange)
    } else {
        None
    }
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
