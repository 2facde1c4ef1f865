//! mcpcheck's published JSON Schemas (schemas/reports/), generated from the types that
//! serialise each JSON output (reports, result and log lines, the baseline and lock files),
//! so a field cannot be in one and not the other.
//! `tests/it/report/schemas.rs` checks the committed files equal these
//! (`MCPCHECK_UPDATE_SCHEMAS=1` rewrites them).

use crate::proxy::log_record::LogRecord;
use crate::report::guard::json::GuardReport;
use crate::report::inventory::InventoryJson;
use crate::report::proxy::ProxyReport;
use crate::report::scan::json::ScanJson;
use crate::report::source::json::SourceReport;
use crate::report::surface::SurfaceReport;
use crate::report::sweep::json::SweepReport;
use crate::scan::baseline::Baseline;
use crate::scan::lock::LockFile;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

/// Where the schemas say they live (`$id` = this + the file name).
const BASE: &str = "https://github.com/mcpcheck/mcpcheck/schemas/reports/";

/// The schema of what `T` serialises, as a root schema named `file`.
fn root<T: JsonSchema>(file: &str) -> Value {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut generated = schema.to_value();
    tidy(&mut generated);
    let Value::Object(mut generated) = generated else {
        return Value::Null;
    };
    // What a reader looks for first: the dialect, the id, the title and the description.
    let mut out = Map::new();
    for key in ["$schema", "$id", "title", "description"] {
        let value = match key {
            "$id" => Some(json!(format!("{BASE}{file}"))),
            _ => generated.shift_remove(key),
        };
        if let Some(v) = value {
            out.insert(key.into(), v);
        }
    }
    out.extend(generated);
    Value::Object(out)
}

/// Doc comments become one-line descriptions, and a field that is left out rather than
/// written as null (`skip_serializing_if`) is not nullable in the schema either, unless it
/// says it may be both (`#[schemars(extend("x-absent-or-null" = true))]`).
fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            if let Some(Value::String(d)) = o.get_mut("description") {
                *d = d.replace('\n', " ");
            }
            let required: Vec<String> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(props)) = o.get_mut("properties") {
                for (name, prop) in props.iter_mut() {
                    if !required.contains(name) {
                        not_null(prop);
                    }
                }
            }
            o.values_mut().for_each(tidy);
        }
        Value::Array(a) => a.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// The mark of a field that may be left out and, when written, may be null.
const ABSENT_OR_NULL: &str = "x-absent-or-null";

/// Drops the `null` alternative of an optional property's schema.
fn not_null(prop: &mut Value) {
    let Some(o) = prop.as_object_mut() else {
        return;
    };
    if o.shift_remove(ABSENT_OR_NULL).is_some() {
        return;
    }
    if let Some(Value::Array(types)) = o.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let kept = match kept.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(kept),
        };
        o.insert("type".into(), kept);
    }
    if let Some(Value::Array(any)) = o.get("anyOf") {
        let kept: Vec<&Value> = any
            .iter()
            .filter(|s| s.get("type") != Some(&json!("null")))
            .collect();
        if let [one] = kept.as_slice() {
            let one = (*one).clone();
            o.shift_remove("anyOf");
            if let Value::Object(inner) = one {
                for (k, v) in inner.into_iter().rev() {
                    o.shift_insert(0, k, v);
                }
            }
        }
    }
}

pub const GUARD_REPORT: &str = "guard-report.v1.schema.json";
pub const SWEEP_RESULT_LINE: &str = "sweep-result-line.schema.json";
pub const SOURCE_REPORT: &str = "source-report.schema.json";
pub const SURFACE_REPORT: &str = "surface-report.schema.json";
pub const SWEEP_REPORT: &str = "sweep-report.schema.json";
pub const PROXY_REPORT: &str = "proxy-report.schema.json";
pub const SCAN_REPORT: &str = "scan-report.schema.json";
pub const INVENTORY_REPORT: &str = "inventory-report.schema.json";
pub const BASELINE_FILE: &str = "baseline-file.schema.json";
pub const LOCK_FILE: &str = "lock-file.schema.json";
pub const PROXY_LOG_LINE: &str = "proxy-log-line.schema.json";

pub fn guard_report() -> Value {
    root::<GuardReport>(GUARD_REPORT)
}

/// One line of `sweep --out`: the sweep's fields (`sweep::line::Line`), and when the guard
/// ran the guard report's (the guard's schema travels inside it, so the line's schema stands
/// alone).
pub fn sweep_result_line() -> Value {
    let mut schema = root::<crate::sweep::line::Line>(SWEEP_RESULT_LINE);
    let Value::Object(o) = &mut schema else {
        return schema;
    };
    o.insert(
        "title".into(),
        json!("one line of mcpcheck sweep --out results.jsonl"),
    );
    o.insert(
        "description".into(),
        json!("A sweep entry: its id and status; when the guard ran, the guard report v1 fields too (see guard-report.v1.schema.json)."),
    );
    o.insert("if".into(), json!({"required": ["schemaVersion"]}));
    o.insert("then".into(), json!({"$ref": GUARD_REPORT}));
    if let Some(Value::Object(defs)) = o.get_mut("$defs") {
        defs.insert("guardReport".into(), guard_report());
    } else {
        o.insert("$defs".into(), json!({"guardReport": guard_report()}));
    }
    schema
}

/// Every schema generated from types: (file name under schemas/reports/, schema).
pub fn generated() -> Vec<(&'static str, Value)> {
    vec![
        (GUARD_REPORT, guard_report()),
        (SWEEP_RESULT_LINE, sweep_result_line()),
        (SOURCE_REPORT, root::<SourceReport>(SOURCE_REPORT)),
        (SURFACE_REPORT, root::<SurfaceReport>(SURFACE_REPORT)),
        (SWEEP_REPORT, root::<SweepReport>(SWEEP_REPORT)),
        (PROXY_REPORT, root::<ProxyReport>(PROXY_REPORT)),
        (SCAN_REPORT, root::<ScanJson>(SCAN_REPORT)),
        (INVENTORY_REPORT, root::<InventoryJson>(INVENTORY_REPORT)),
        (BASELINE_FILE, root::<Baseline>(BASELINE_FILE)),
        (LOCK_FILE, root::<LockFile>(LOCK_FILE)),
        (PROXY_LOG_LINE, root::<LogRecord>(PROXY_LOG_LINE)),
    ]
}

/// A schema as the committed file holds it: two-space JSON and a final newline.
pub fn file_text(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}
