//! YAML read into serde_json values (every scalar a string), enough to read a workflow or
//! action.yml as the runner does: mappings, sequences and scalars of the first document.

use saphyr_parser::{Event, Parser};
use serde_json::{Map, Value};

/// A collection being built; a mapping holds the key waiting for its value.
enum Open {
    Mapping(Map<String, Value>, Option<String>),
    Sequence(Vec<Value>),
}

/// The first document of `text`; panics on YAML the parser refuses.
pub fn parse(text: &str) -> Value {
    let mut stack: Vec<Open> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (event, _) = next.expect("valid YAML");
        let done = match event {
            Event::Scalar(value, ..) => Some(Value::String(value.into_owned())),
            Event::MappingStart(..) => {
                stack.push(Open::Mapping(Map::new(), None));
                None
            }
            Event::SequenceStart(..) => {
                stack.push(Open::Sequence(Vec::new()));
                None
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Open::Mapping(map, _)) => Some(Value::Object(map)),
                Some(Open::Sequence(items)) => Some(Value::Array(items)),
                None => panic!("unbalanced YAML events"),
            },
            Event::Alias(_) => Some(Value::Null),
            _ => None,
        };
        let Some(value) = done else { continue };
        match stack.last_mut() {
            None => return value,
            Some(Open::Sequence(items)) => items.push(value),
            Some(Open::Mapping(map, key)) => match key.take() {
                Some(k) => {
                    map.insert(k, value);
                }
                None => *key = Some(value.as_str().expect("string keys").to_string()),
            },
        }
    }
    Value::Null
}
