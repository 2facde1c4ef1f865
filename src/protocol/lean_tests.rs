//! Unit tests of `lean`: the lean reading agrees with the full parse, and its scanner with
//! the serde_json reading it replaced.
use super::*;
use crate::protocol::jsonrpc::{parse_line, LineContent, Message, ResponseId};

/// What the full parse makes of a line the lean one read, in the lean one's terms.
fn agrees(line: &str) {
    let lean = read(line).expect("lean reads it");
    let LineContent::Single { message, .. } = parse_line(line.as_bytes()) else {
        panic!("the full parse does not see one message in {line}")
    };
    let params_of =
        |p: Option<&str>| p.map(|p| serde_json::from_str::<serde_json::Value>(p).expect("json"));
    match (lean, message) {
        (
            LeanMessage::Request { id, method, params },
            Message::Request {
                id: full_id,
                method: full_method,
                params: full_params,
            },
        ) => {
            assert_eq!(id, full_id, "{line}");
            assert_eq!(method, full_method, "{line}");
            assert_eq!(params_of(params), full_params, "{line}");
        }
        (
            LeanMessage::Notification { method, params },
            Message::Notification {
                method: full_method,
                params: full_params,
            },
        ) => {
            assert_eq!(method, full_method, "{line}");
            assert_eq!(params_of(params), full_params, "{line}");
        }
        (
            LeanMessage::Result { id, result },
            Message::Response {
                id: ResponseId::Id(full_id),
                outcome: Ok(full_result),
            },
        ) => {
            assert_eq!(id, full_id, "{line}");
            assert_eq!(params_of(Some(result)), Some(full_result), "{line}");
        }
        (lean, full) => panic!("{line}: lean {lean:?}, full {full:?}"),
    }
}

#[test]
fn the_common_messages_read_as_the_full_parse_reads_them() {
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        r#"  {"method":"ping","id":"a b","jsonrpc":"2.0"}  "#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x","params":[1,2.5,null]}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":0,"result":null,"extra":{"deep":[[{}]]}}"#,
        r#"{"jsonrpc":"2.0","id":"ü","result":{"text":"héllo 1.5"}}"#,
        r#"{"jsonrpc":"2.0","id":"1e5","result":{"uuid":"3e4f-12E9","s":"[[[[{{{{"}}"#,
    ] {
        agrees(line);
    }
}

#[test]
fn anything_unusual_is_left_to_the_full_parse() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let long_number = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#, "9".repeat(400));
    for line in [
        // Invalid envelopes, each of which the full parse names.
        r#"{"id":1,"method":"x"}"#,
        r#"{"jsonrpc":"2.1","id":1,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":-0,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        // Valid, but not the common kind.
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"[{"jsonrpc":"2.0","method":"x"}]"#,
        // What the full parse reads differently or refuses.
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x\u0041"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"n":1e400}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"n":1E4}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\tb\"}",
        &deep,
        &long_number,
        r#"{"jsonrpc":"2.0","id":1,"result":{}} x"#,
        "not json",
    ] {
        assert!(read(line).is_none(), "{line}");
    }
}

/// The reading this scanner replaced (serde_json's derive over raw members, behind a
/// byte test), kept as the oracle: on every line both answer alike, but for a top-level
/// array, which the derive read as a struct's fields in order (`["2.0",1,"ping"]` as a
/// request) while the full parse sees a batch.
mod oracle {
    use serde::{Deserialize, Deserializer};
    use serde_json::value::RawValue;

    #[derive(Deserialize)]
    pub struct Members<'a> {
        #[serde(borrow, default, deserialize_with = "present")]
        pub jsonrpc: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        pub id: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        pub method: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        pub params: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        pub result: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        pub error: Option<&'a RawValue>,
    }

    fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
        <&RawValue>::deserialize(d).map(Some)
    }

    pub fn plain(bytes: &[u8]) -> bool {
        let mut in_string = false;
        let mut brackets = 0usize;
        let mut digits = 0usize;
        for &b in bytes {
            match b {
                b'\\' | 0..=0x1f => return false,
                b'"' => in_string = !in_string,
                _ if in_string => {}
                b'{' | b'[' => brackets += 1,
                b'e' | b'E' if digits > 0 => return false,
                _ => {}
            }
            digits = if !in_string && b.is_ascii_digit() {
                digits + 1
            } else {
                0
            };
            if digits >= 300 {
                return false;
            }
        }
        brackets <= 64
    }

    /// The members as the old reading saw them, as text.
    pub fn members(text: &str) -> Option<[Option<String>; 6]> {
        if !plain(text.as_bytes()) {
            return None;
        }
        let m: Members = serde_json::from_str(text).ok()?;
        let s = |r: Option<&RawValue>| r.map(|r| r.get().to_string());
        Some([
            s(m.jsonrpc),
            s(m.id),
            s(m.method),
            s(m.params),
            s(m.result),
            s(m.error),
        ])
    }
}

fn scanned(text: &str) -> Option<[Option<String>; 6]> {
    let m = members(text)?;
    let s = |r: Option<&str>| r.map(str::to_string);
    Some([
        s(m.jsonrpc),
        s(m.id),
        s(m.method),
        s(m.params),
        s(m.result),
        s(m.error),
    ])
}

/// Every line of a seed corpus, and many mutations of each (a byte replaced, removed or
/// repeated, from a fixed pseudo-random sequence), reads alike in the scanner and in the
/// serde_json reading it replaced.
#[test]
fn the_scanner_accepts_what_serde_json_accepted_and_reads_the_same_members() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
        "[".repeat(63),
        "]".repeat(63)
    );
    let deeper = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
        "[".repeat(64),
        "]".repeat(64)
    );
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":[{}, 0.{}, 1.{}]}}"#,
        "9".repeat(299),
        "1".repeat(299),
        "2".repeat(300)
    );
    let seeds: Vec<String> = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        r#"  {"method":"ping","id":"a b","jsonrpc":"2.0"}  "#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x","params":[1,2.5,null,true,false,-0,0.0,-12.50]}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":0,"result":null,"extra":{"deep":[[{}]], "k" : [ 1 , { } ] }}"#,
        r#"{"jsonrpc":"2.0","id":"ü","result":{"text":"héllo 1.5"}}"#,
        r#"{"jsonrpc":"2.0","id":"1e5","result":{"uuid":"3e4f-12E9","s":"[[[[{{{{"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"n":1e4, "m": 01, "o": 1., "p": .5, "q": -}}"#,
        r#"{ }"#,
        r#"{"a":tru}"#,
        r#"{"a":[1,]}"#,
        r#"{"a":{"b":1,}}"#,
        r#"{"a":1,}"#,
        r#"{"jsonrpc" "2.0"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}} x"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\tb\"}",
        "{\"jsonrpc\":\"2.0\",\t\"id\":1,\"result\":1}",
        r#"{"jsonrpc":"2.0","id":1,"method":"x\u0041"}"#,
        r#"{1:2}"#,
        &deep,
        &deeper,
        &long,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let same = |line: &str| {
        // A top-level array is the one thing the old reading got wrong (see `oracle`).
        let expected = if line.trim_start().starts_with('[') {
            None
        } else {
            oracle::members(line)
        };
        assert_eq!(scanned(line), expected, "{line}");
        expected.is_some()
    };
    let alphabet = b"{}[]\",:-0123456789.eE tfnaul\\\tx";
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut random = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut lines, mut accepted) = (0, 0);
    for seed in &seeds {
        same(seed);
        for _ in 0..3000 {
            let mut bytes = seed.clone().into_bytes();
            for _ in 0..1 + random(3) {
                let at = random(bytes.len() + 1);
                match random(3) {
                    0 if at < bytes.len() => bytes[at] = alphabet[random(alphabet.len())],
                    1 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, alphabet[random(alphabet.len())]),
                }
            }
            if let Ok(line) = String::from_utf8(bytes) {
                accepted += usize::from(same(&line));
                lines += 1;
            }
        }
    }
    // Both sides of the line are exercised: many mutations stay valid, most do not.
    assert!(
        lines > 50_000 && accepted > 5_000,
        "{lines} lines, {accepted} accepted"
    );
    // The old reading's one difference, which the full parse decides as a batch.
    assert!(oracle::members(r#"["2.0",1,"ping"]"#).is_some());
    assert!(read(r#"["2.0",1,"ping"]"#).is_none());
}
