//! Tool input schemas and argument validation.
//!
//! Each tool's input is one Rust struct deriving `Deserialize` and `JsonSchema`. The advertised
//! JSON Schema is generated from that struct, and the arguments are validated against the same
//! generated schema before being deserialized into it, so the schema and the validator cannot
//! drift. Validation is strict (unknown fields, missing fields, wrong types, out-of-range
//! values) except for the two string encodings models often send: a decimal integer string for
//! an integer field (`"10"`) and `"true"` / `"false"` for a boolean.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::Profile;
use crate::error::{ToolError, ToolResult};

/// The JSON Schema advertised for `T`: draft-07, subschemas inlined, no `null` for optional
/// fields (an optional field is omitted, not null), no `$schema` / `title` / `format` noise.
pub fn schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    clean(&mut value);
    value
}

fn clean(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            obj.shift_remove("$schema");
            obj.shift_remove("title");
            obj.shift_remove("format");
            drop_null_type(obj);
            // Doc comments wrap at ~100 columns; a model reads one flowing sentence better.
            if let Some(Value::String(d)) = obj.get_mut("description") {
                *d = d
                    .replace("\n\n", "\u{0}")
                    .replace('\n', " ")
                    .replace('\u{0}', "\n\n");
            }
            for v in obj.values_mut() {
                clean(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

/// `{"type": ["integer", "null"]}` → `{"type": "integer"}`, and `anyOf: [X, {"type": "null"}]`
/// → `X`: schemars' rendering of `Option<T>`.
fn drop_null_type(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            obj.insert("type".into(), only);
        }
        // An optional enum lists `null` among its values too.
        if let Some(Value::Array(values)) = obj.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
    }
    if let Some(Value::Array(options)) = obj.get("anyOf") {
        let non_null: Vec<&Value> = options
            .iter()
            .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if non_null.len() == 1 && options.len() == 2 {
            if let Value::Object(inner) = non_null[0].clone() {
                obj.shift_remove("anyOf");
                for (k, v) in inner {
                    obj.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// Validates `args` against `schema`, applies the tolerated string coercions, and deserializes
/// the result into `T` (the seed contract's strict validation).
pub fn parse_args<T: DeserializeOwned>(schema: &Value, args: Value) -> ToolResult<T> {
    let checked = validate(schema, args, "")?;
    deserialize(checked)
}

/// Validates `args` the way the contract in force does — strictly for the seed contract, as
/// ajv with `coerceTypes` does for the newest — and returns them coerced, unknown keys dropped.
pub fn check_args(schema: &Value, args: Value, profile: Profile) -> ToolResult<Value> {
    match profile {
        Profile::Seed => validate(schema, args, ""),
        Profile::Current => lenient::validate(schema, args),
    }
}

/// Deserializes arguments [`check_args`] accepted.
pub fn deserialize<T: DeserializeOwned>(checked: Value) -> ToolResult<T> {
    serde_json::from_value(checked)
        .map_err(|e| ToolError::invalid_input(format!("invalid arguments: {e}")))
}

/// The newest contract's schema, derived from the seed one: no `additionalProperties: false`
/// anywhere, `minimum: 1` lowered to `0` (where `0` now means "use the default"), and no
/// `minLength` inside array items (grammar-constrained decoders corrupt their output on it;
/// such checks run in the tool instead).
pub fn relaxed(schema: &Value) -> Value {
    fn walk(value: &mut Value, in_items: bool) {
        let Value::Object(obj) = value else { return };
        obj.shift_remove("additionalProperties");
        if obj.get("minimum").and_then(Value::as_f64) == Some(1.0) {
            obj.insert("minimum".into(), Value::from(0));
        }
        if in_items {
            obj.shift_remove("minLength");
        }
        for (key, sub) in obj.iter_mut() {
            match key.as_str() {
                "properties" => {
                    if let Value::Object(props) = sub {
                        props.values_mut().for_each(|p| walk(p, in_items));
                    }
                }
                "items" => walk(sub, true),
                _ => {}
            }
        }
    }
    let mut out = schema.clone();
    walk(&mut out, false);
    out
}

/// Validation as the reference does it with ajv (`allErrors`, `useDefaults`,
/// `coerceTypes: true`): values are coerced to the declared type where ajv would, unknown keys
/// are ignored (and dropped), and every error is reported in ajv's words joined with `"; "`,
/// e.g. `data must have required property 'path'; data/limit must be >= 0`.
mod lenient {
    use serde_json::{Map, Value};

    use crate::error::{ToolError, ToolResult};

    pub fn validate(schema: &Value, value: Value) -> ToolResult<Value> {
        let mut errors = Vec::new();
        let out = check(schema, value, "data", &mut errors);
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(ToolError::invalid_input(errors.join("; ")))
        }
    }

    fn check(schema: &Value, value: Value, at: &str, errors: &mut Vec<String>) -> Value {
        let Some(schema) = schema.as_object() else {
            return value;
        };
        let value = match schema.get("type") {
            Some(expected) => {
                let types: Vec<&str> = match expected {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if types.is_empty() || types.iter().any(|t| super::is_type(t, &value)) {
                    value
                } else if let Some(v) = types.iter().find_map(|t| coerce(t, &value)) {
                    v
                } else {
                    errors.push(format!("{at} must be {}", types.join(",")));
                    return value;
                }
            }
            None => value,
        };
        if let Some(Value::Array(options)) = schema.get("enum") {
            if !options.contains(&value) {
                errors.push(format!("{at} must be equal to one of the allowed values"));
                return value;
            }
        }
        match value {
            Value::Object(obj) => Value::Object(check_object(schema, obj, at, errors)),
            Value::Array(items) => {
                if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
                    if (items.len() as u64) < min {
                        errors.push(format!("{at} must NOT have fewer than {min} items"));
                    }
                }
                if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
                    if (items.len() as u64) > max {
                        errors.push(format!("{at} must NOT have more than {max} items"));
                    }
                }
                let item_schema = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                Value::Array(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| check(&item_schema, v, &format!("{at}/{i}"), errors))
                        .collect(),
                )
            }
            Value::Number(ref n) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
                    if x < min {
                        errors.push(format!("{at} must be >= {}", number(min)));
                    }
                }
                if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
                    if x > max {
                        errors.push(format!("{at} must be <= {}", number(max)));
                    }
                }
                value
            }
            Value::String(ref s) => {
                let len = s.chars().count() as u64;
                if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
                    if len < min {
                        errors.push(format!("{at} must NOT have fewer than {min} characters"));
                    }
                }
                if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
                    if len > max {
                        errors.push(format!("{at} must NOT have more than {max} characters"));
                    }
                }
                value
            }
            other => other,
        }
    }

    fn check_object(
        schema: &Map<String, Value>,
        obj: Map<String, Value>,
        at: &str,
        errors: &mut Vec<String>,
    ) -> Map<String, Value> {
        let empty = Map::new();
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = match schema.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for name in &required {
            if !obj.contains_key(*name) {
                errors.push(format!("{at} must have required property '{name}'"));
            }
        }
        let mut obj = obj;
        let mut out = Map::with_capacity(obj.len());
        for (name, sub) in props {
            if let Some(v) = obj.remove(name) {
                // `null` for an optional property means "not given": hosts with strict function
                // calling (OpenAI's) send every property, with null where unset.
                if v.is_null() && !required.contains(&name.as_str()) {
                    continue;
                }
                let checked = check(sub, v, &format!("{at}/{name}"), errors);
                out.insert(name.clone(), checked);
            }
        }
        // Whatever is left is unknown: ignored, as the schema no longer closes the object.
        out
    }

    /// ajv's `coerceTypes` conversion of `value` to `to`, or `None` when it does not convert.
    fn coerce(to: &str, value: &Value) -> Option<Value> {
        match (to, value) {
            // ajv: a non-empty string `s` with `s == +s`, that is, JavaScript's `Number(s)` is
            // not NaN (`" 12 "`, `"0x2"`, `"1e3"`, `" "` → 0), and for an integer `!(s % 1)`,
            // which `"Infinity"` passes.
            ("number" | "integer", Value::String(s)) if !s.is_empty() => {
                let n = js_number(s)?;
                if to == "integer" && n.is_finite() && n.fract() != 0.0 {
                    return None;
                }
                Some(json_number(n))
            }
            // A whole JavaScript number past `u64` (`1e20`, `2 ** 64`) arrives as a float; ajv's
            // integer test (`!(x % 1) && isFinite(x)`) passes it.
            ("integer", Value::Number(n)) => n
                .as_f64()
                .filter(|x| x.is_finite() && x.fract() == 0.0)
                .map(json_number),
            ("number" | "integer", Value::Bool(b)) => Some(Value::from(u8::from(*b))),
            ("number" | "integer", Value::Null) => Some(Value::from(0)),
            ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
            ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
            ("string", Value::Null) => Some(Value::String(String::new())),
            ("boolean", Value::String(s)) if s == "true" => Some(Value::Bool(true)),
            ("boolean", Value::String(s)) if s == "false" => Some(Value::Bool(false)),
            ("boolean", Value::Number(n)) if n.as_f64() == Some(1.0) => Some(Value::Bool(true)),
            ("boolean", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Bool(false)),
            ("boolean", Value::Null) => Some(Value::Bool(false)),
            _ => None,
        }
    }

    /// A whole number as an integer (past `i64`, the nearest end of it: `1e21` and `Infinity`
    /// are past every count, offset or timeout either way), any other as a float.
    fn json_number(n: f64) -> Value {
        if n.is_infinite() || n.fract() == 0.0 {
            Value::from(n as i64)
        } else {
            Value::from(n)
        }
    }

    /// JavaScript's `Number(s)` (StringToNumber): surrounding white space and line terminators
    /// ignored, empty → 0, `0x`/`0o`/`0b` integers, decimal literals with an optional sign and
    /// exponent, `Infinity`; `None` where JavaScript gives NaN.
    pub(super) fn js_number(s: &str) -> Option<f64> {
        let t = crate::text::js_trim(s);
        if t.is_empty() {
            return Some(0.0);
        }
        let radix = match t.get(..2) {
            Some("0x" | "0X") => 16,
            Some("0o" | "0O") => 8,
            Some("0b" | "0B") => 2,
            _ => 10,
        };
        if radix != 10 {
            let digits = &t[2..];
            if digits.is_empty() {
                return None;
            }
            return digits.chars().try_fold(0f64, |n, c| {
                c.to_digit(radix)
                    .map(|d| n * f64::from(radix) + f64::from(d))
            });
        }
        let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
        if unsigned == "Infinity" {
            return Some(if t.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        // Digits with at most one `.` and at least one digit, then an optional exponent: the
        // grammar Rust's parser also reads, without its `inf`/`nan` words.
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
            None => (unsigned, None),
        };
        let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
        let dots = mantissa.bytes().filter(|&b| b == b'.').count();
        if digits == 0 || digits + dots != mantissa.len() || dots > 1 {
            return None;
        }
        if let Some(e) = exponent {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
        }
        t.parse().ok()
    }

    /// A bound as JavaScript prints it: `0`, not `0.0`.
    fn number(x: f64) -> String {
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            (x as i64).to_string()
        } else {
            x.to_string()
        }
    }
}

/// Checks `value` against `schema` and returns it with tolerated coercions applied.
/// `at` is the field path used in messages (`edits[2].old_string`).
pub fn validate(schema: &Value, value: Value, at: &str) -> ToolResult<Value> {
    let Some(schema) = schema.as_object() else {
        return Ok(value);
    };
    let value = coerce(schema, value);
    if let Some(expected) = schema.get("type") {
        if !type_matches(expected, &value) {
            return Err(wrong_type(at, expected, &value));
        }
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.contains(&value) {
            let list: Vec<String> = options.iter().map(Value::to_string).collect();
            return Err(field_error(
                at,
                &format!("must be one of {}, got {value}", list.join(", ")),
            ));
        }
    }
    match value {
        Value::Object(obj) => validate_object(schema, obj, at).map(Value::Object),
        Value::Array(items) => validate_array(schema, items, at).map(Value::Array),
        Value::Number(ref n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
                if x < min {
                    return Err(field_error(at, &format!("must be at least {min}, got {n}")));
                }
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
                if x > max {
                    return Err(field_error(at, &format!("must be at most {max}, got {n}")));
                }
            }
            Ok(value)
        }
        Value::String(ref s) => {
            if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
                if (s.chars().count() as u64) < min {
                    return Err(field_error(
                        at,
                        &format!("must be a non-empty string (at least {min} character)"),
                    ));
                }
            }
            Ok(value)
        }
        other => Ok(other),
    }
}

fn validate_object(
    schema: &Map<String, Value>,
    mut obj: Map<String, Value>,
    at: &str,
) -> ToolResult<Map<String, Value>> {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        if let Some(unknown) = obj.keys().find(|k| !props.contains_key(*k)) {
            let allowed: Vec<&str> = props.keys().map(String::as_str).collect();
            let name = join_path(at, unknown);
            return Err(ToolError::invalid_input(format!(
                "unknown field `{name}`; allowed fields: {}",
                allowed.join(", ")
            ))
            .with("field", name));
        }
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !obj.contains_key(name) {
                let name = join_path(at, name);
                return Err(
                    ToolError::invalid_input(format!("missing required field `{name}`"))
                        .with("field", name),
                );
            }
        }
    }
    for (name, sub) in props {
        if let Some(v) = obj.remove(name) {
            let checked = validate(sub, v, &join_path(at, name))?;
            obj.insert(name.clone(), checked);
        }
    }
    Ok(obj)
}

fn validate_array(
    schema: &Map<String, Value>,
    items: Vec<Value>,
    at: &str,
) -> ToolResult<Vec<Value>> {
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
        if (items.len() as u64) < min {
            return Err(field_error(
                at,
                &format!("must have at least {min} item(s), got {}", items.len()),
            ));
        }
    }
    let item_schema = schema.get("items").cloned().unwrap_or(Value::Bool(true));
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| validate(&item_schema, v, &format!("{at}[{i}]")))
        .collect()
}

/// `"10"` → `10` for integer fields and `"true"`/`"false"` → booleans; nothing looser.
fn coerce(schema: &Map<String, Value>, value: Value) -> Value {
    let Value::String(s) = &value else {
        return value;
    };
    let wants = |t: &str| match schema.get("type") {
        Some(Value::String(x)) => x == t,
        Some(Value::Array(xs)) => xs.iter().any(|x| x == t),
        _ => false,
    };
    if wants("integer") && is_decimal_integer(s) {
        if let Ok(n) = s.parse::<i64>() {
            return Value::from(n);
        }
    }
    if wants("boolean") {
        match s.as_str() {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ => {}
        }
    }
    value
}

fn is_decimal_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit())
}

fn type_matches(expected: &Value, value: &Value) -> bool {
    match expected {
        Value::String(t) => is_type(t, value),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .any(|t| is_type(t, value)),
        _ => true,
    }
}

fn is_type(t: &str, value: &Value) -> bool {
    match t {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => true,
    }
}

fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a non-integer number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    match value {
        Value::String(s) if s.chars().count() <= 40 => format!("{kind} ({s:?})"),
        Value::Number(n) => format!("{kind} ({n})"),
        _ => kind.to_string(),
    }
}

fn wrong_type(at: &str, expected: &Value, value: &Value) -> ToolError {
    let want = match expected {
        Value::String(t) => article(t),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(article)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "another type".into(),
    };
    if at.is_empty() {
        return ToolError::invalid_input(format!(
            "arguments must be {want}, got {}",
            describe(value)
        ));
    }
    field_error(at, &format!("must be {want}, got {}", describe(value)))
}

fn article(t: &str) -> String {
    match t {
        "integer" => "an integer".into(),
        "object" => "an object".into(),
        "array" => "an array".into(),
        other => format!("a {other}"),
    }
}

fn field_error(at: &str, what: &str) -> ToolError {
    let name = if at.is_empty() { "arguments" } else { at };
    ToolError::invalid_input(format!("`{name}` {what}")).with("field", name)
}

fn join_path(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[test]
    fn strings_become_numbers_as_javascripts_number_reads_them() {
        // ajv's coerceTypes (CONTRACT-v0.5 §1, "values are coerced") keeps `s` when `s == +s`;
        // each expectation is Node's `Number(s)` (NaN as None).
        for (s, n) in [
            ("2", Some(2.0)),
            (" 2 ", Some(2.0)),
            ("2\n", Some(2.0)),
            ("\u{A0}2\u{FEFF}", Some(2.0)),
            (" ", Some(0.0)),
            ("0x2", Some(2.0)),
            ("0B10", Some(2.0)),
            ("0o17", Some(15.0)),
            ("-0x2", None),
            ("0x", None),
            ("1e21", Some(1e21)),
            (".5e1", Some(5.0)),
            ("5.", Some(5.0)),
            ("+2", Some(2.0)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("inf", None),
            ("NaN", None),
            ("1_0", None),
            ("1e", None),
            (".", None),
            ("2 3", None),
            ("--2", None),
        ] {
            assert_eq!(lenient::js_number(s), n, "{s:?}");
        }
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Edit {
        /// Text to find.
        #[schemars(length(min = 1))]
        old: String,
        #[serde(default)]
        all: bool,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Args {
        /// A path.
        path: String,
        #[schemars(range(min = 1))]
        limit: Option<i64>,
        flag: Option<bool>,
        #[schemars(length(min = 1))]
        edits: Option<Vec<Edit>>,
    }

    fn parse(v: Value) -> ToolResult<Args> {
        parse_args(&schema_for::<Args>(), v)
    }

    #[test]
    fn schema_is_clean_and_closed() {
        let s = schema_for::<Args>();
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["properties"]["path"]["description"], "A path.");
        assert_eq!(s["properties"]["limit"]["type"], "integer");
        assert!(s["properties"]["limit"].get("format").is_none());
        assert!(s.get("$schema").is_none());
        assert_eq!(
            s["properties"]["edits"]["items"]["additionalProperties"],
            false
        );
    }

    #[test]
    fn accepts_and_coerces_string_encodings() {
        let a = parse(json!({"path": "a", "limit": "10", "flag": "true"})).unwrap();
        assert_eq!(a.limit, Some(10));
        assert_eq!(a.flag, Some(true));
    }

    #[test]
    fn refuses_loose_values() {
        for (args, needle) in [
            (
                json!({"path": "a", "flag": "yes"}),
                "`flag` must be a boolean",
            ),
            (
                json!({"path": "a", "limit": "1.5"}),
                "`limit` must be an integer",
            ),
            (
                json!({"path": "a", "limit": 1.5}),
                "`limit` must be an integer",
            ),
            (
                json!({"path": "a", "limit": 0}),
                "`limit` must be at least 1",
            ),
            (json!({"path": 3}), "`path` must be a string"),
            (json!({}), "missing required field `path`"),
            (json!({"path": "a", "bogus": 1}), "unknown field `bogus`"),
            (json!([1]), "arguments must be an object"),
            (
                json!({"path": "a", "edits": []}),
                "`edits` must have at least 1",
            ),
            (
                json!({"path": "a", "edits": [{"old": ""}]}),
                "`edits[0].old` must be a non-empty",
            ),
            (
                json!({"path": "a", "edits": [{"old": "x", "z": 1}]}),
                "unknown field `edits[0].z`",
            ),
        ] {
            let err = parse(args.clone()).unwrap_err();
            assert!(err.message.contains(needle), "{args}: {}", err.message);
        }
    }

    fn lenient(v: Value) -> ToolResult<Args> {
        let schema = relaxed(&schema_for::<Args>());
        deserialize(check_args(&schema, v, Profile::Current)?)
    }

    #[test]
    fn relaxed_schema_is_open_with_zero_minimums() {
        let s = relaxed(&schema_for::<Args>());
        assert!(s.get("additionalProperties").is_none());
        assert_eq!(s["properties"]["limit"]["minimum"], 0);
        assert!(s["properties"]["edits"]["items"]["properties"]["old"]
            .get("minLength")
            .is_none());
    }

    #[test]
    fn lenient_mode_coerces_like_ajv_and_ignores_unknown_keys() {
        let a = lenient(json!({"path": 5, "limit": "7", "flag": 1, "bogus": true})).unwrap();
        assert_eq!(a.path, "5");
        assert_eq!(a.limit, Some(7));
        assert_eq!(a.flag, Some(true));
        let a = lenient(json!({"path": null, "limit": true, "flag": "false"})).unwrap();
        assert_eq!(a.path, "");
        assert_eq!(a.limit, Some(1));
        assert_eq!(a.flag, Some(false));
        let a = lenient(json!({"path": "p", "edits": [{"old": ""}]})).unwrap();
        assert_eq!(a.edits.unwrap()[0].old, "");
    }

    #[test]
    fn lenient_mode_reads_null_as_absent_for_optional_properties_only() {
        // A required property still coerces as ajv does; an optional one is simply not given.
        let a = lenient(json!({"path": "p", "limit": null, "flag": null, "edits": null})).unwrap();
        assert_eq!((a.limit, a.flag, a.edits.is_none()), (None, None, true));
        let a = lenient(json!({"path": "p", "edits": [{"old": "o", "all": null}]})).unwrap();
        assert!(!a.edits.unwrap()[0].all);
        #[derive(Debug, serde::Deserialize, JsonSchema)]
        #[allow(dead_code)]
        enum Mode {
            #[serde(rename = "a")]
            A,
        }
        #[derive(Debug, serde::Deserialize, JsonSchema)]
        struct WithEnum {
            #[allow(dead_code)]
            mode: Option<Mode>,
        }
        let schema = schema_for::<WithEnum>();
        assert_eq!(
            schema["properties"]["mode"]["enum"],
            json!(["a"]),
            "{schema}"
        );
        let checked = check_args(&relaxed(&schema), json!({"mode": null}), Profile::Current);
        assert_eq!(checked.unwrap(), json!({}));
    }

    #[test]
    fn lenient_errors_read_like_ajv() {
        let err = lenient(json!({"limit": -1, "flag": "yes"})).unwrap_err();
        assert_eq!(
            err.message,
            // ajv's order: `required`, then each property in the schema's order.
            "data must have required property 'path'; data/limit must be >= 0; data/flag must be boolean"
        );
        assert!(err.fields.is_empty());
        let err = lenient(json!({"path": "a", "edits": []})).unwrap_err();
        assert_eq!(err.message, "data/edits must NOT have fewer than 1 items");
        let err = lenient(json!({"path": "a", "limit": "1.5"})).unwrap_err();
        assert_eq!(err.message, "data/limit must be integer");
        let err = lenient(json!([1])).unwrap_err();
        assert_eq!(err.message, "data must be object");
    }

    /// ajv's integer test is `!(x % 1) && isFinite(x)`: a whole number past `u64` passes (and
    /// `"Infinity"` coerces), so it is taken as the largest count rather than refused.
    #[test]
    fn whole_numbers_past_u64_are_the_largest_count() {
        let big = lenient(json!({"path": "a", "limit": 1e20})).unwrap();
        assert_eq!(big.limit, Some(i64::MAX));
        let big = lenient(json!({"path": "a", "limit": "Infinity"})).unwrap();
        assert_eq!(big.limit, Some(i64::MAX));
        let err = lenient(json!({"path": "a", "limit": -1e300})).unwrap_err();
        assert_eq!(err.message, "data/limit must be >= 0");
        let err = lenient(json!({"path": "a", "limit": "-Infinity"})).unwrap_err();
        assert_eq!(err.message, "data/limit must be >= 0");
        let err = lenient(json!({"path": "a", "limit": 1.5})).unwrap_err();
        assert_eq!(err.message, "data/limit must be integer");
    }
}
