//! A JSON object whose names are data (checks by name, variables by name), in the order
//! they were added: its schema is an object whose every value has one type.

use schemars::JsonSchema;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

#[derive(Debug, Clone)]
pub struct NamedMap<V>(Vec<(String, V)>);

impl<V> Default for NamedMap<V> {
    fn default() -> Self {
        NamedMap(Vec::new())
    }
}

impl<V> NamedMap<V> {
    pub fn push(&mut self, name: impl Into<String>, value: V) {
        self.0.push((name.into(), value));
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|(k, _)| k == name)
    }
}

impl<V> FromIterator<(String, V)> for NamedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        // As a JSON object does: a repeated name keeps its first place and its last value.
        let mut map = NamedMap::default();
        for (k, v) in iter {
            match map.0.iter_mut().find(|(name, _)| *name == k) {
                Some(entry) => entry.1 = v,
                None => map.0.push((k, v)),
            }
        }
        map
    }
}

impl<V: Serialize> Serialize for NamedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<V: JsonSchema> JsonSchema for NamedMap<V> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("NamedMap_{}", V::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>(),
        })
    }
}
