//! What the request types alone do not tell the OpenAPI document, added to it so
//! that every request the document allows is one the daemon takes, and the other
//! way round: the real ranges of unsigned integers, the session id alphabet, the
//! permission modes and versions the daemon checks, NUL-free process strings, a
//! message's required content, base64 text where an encoding says so, a terminal
//! that cannot outlive the daemon, raw bytes as binary strings, an event payload
//! that is an untagged union, and unknown fields refused in every object a request
//! carries.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use agentplex_sessions::agents::VERSION_PATTERN;
use agentplex_sessions::modes::NAME_PATTERN;
use agentplex_sessions::PERMISSION_MODES;

/// A string without a NUL byte (the request types' own patterns say it so too).
const NO_NUL: &str = "^[^\\x00]*$";

/// Schemas a client sends that no request body names: the terminal WebSocket's frames.
const SENT_OUTSIDE_BODIES: [&str; 1] = ["TerminalClientFrame"];

/// The media types of raw bodies (a file's bytes, an archive).
const RAW_MEDIA_TYPES: [&str; 2] = ["application/octet-stream", "application/x-tar"];

/// Standard base64 with padding, as the daemon decodes it: the bits a padded end
/// leaves over are zero.
const BASE64: &str =
    "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";

/// Applies every rule to the generated document.
pub fn apply(doc: &mut Value) {
    raw_bodies(doc);
    unsigned_ranges(doc);
    session_id_parameters(doc);
    closed_request_objects(doc);
    let schemas = &mut doc["components"]["schemas"];
    checked_strings(schemas);
    conditions(schemas);
    // An event's payload is untagged, and an empty one fits more than one variant:
    // the envelope's `type` tells which it is.
    let data = &mut schemas["UniversalEventData"];
    if let Some(variants) = data.as_object_mut().and_then(|map| map.remove("oneOf")) {
        data["anyOf"] = variants;
    }
}

/// The strings the daemon checks beyond their type.
fn checked_strings(schemas: &mut Value) {
    let permission_modes = json!(format!("^({})$", PERMISSION_MODES.join("|")));
    let session = &mut schemas["CreateSessionRequest"]["properties"];
    session["permissionMode"]["pattern"] = permission_modes.clone();
    session["agentVersion"]["pattern"] = json!(VERSION_PATTERN);
    // An empty model or variant is none, as 0.1.x took it.
    session["model"]["pattern"] = json!(format!("^$|{NAME_PATTERN}"));
    session["variant"]["pattern"] = json!(format!("^$|{NAME_PATTERN}"));
    let modes = &mut schemas["SessionModes"]["properties"];
    modes["permissionMode"]["pattern"] = permission_modes;
    modes["model"]["pattern"] = json!(NAME_PATTERN);
    modes["variant"]["pattern"] = json!(NAME_PATTERN);
    schemas["AgentInstallRequest"]["properties"]["version"]["pattern"] = json!(VERSION_PATTERN);
    // What becomes a C string of the process (an argument, a variable) holds no NUL.
    for name in ["ProcessRunRequest", "ProcessCreateRequest"] {
        let properties = &mut schemas[name]["properties"];
        properties["args"]["items"]["pattern"] = json!(NO_NUL);
        properties["env"]["propertyNames"]["pattern"] = json!(NO_NUL);
        properties["env"]["additionalProperties"]["pattern"] = json!(NO_NUL);
    }
}

/// What one field of a body requires of another.
fn conditions(schemas: &mut Value) {
    // A message carries text, attachments or parts (else `400`): it is not one whose
    // `message` is absent or null and whose lists are absent, null or empty.
    schemas["MessageRequest"]["not"] = json!({
        "properties": {
            "message": { "type": "null" },
            "attachments": { "maxItems": 0 },
            "parts": { "maxItems": 0 },
        },
    });
    // Input is base64 unless it says `utf8`.
    let input = &mut schemas["ProcessInputRequest"];
    input["if"] = json!({
        "required": ["encoding"],
        "properties": { "encoding": { "const": "utf8" } },
    });
    input["else"] = json!({ "properties": { "data": { "pattern": BASE64 } } });
    // A run's stdin is base64 only when it says `base64`.
    let run = &mut schemas["ProcessRunRequest"];
    run["if"] = json!({
        "required": ["stdinEncoding"],
        "properties": { "stdinEncoding": { "const": "base64" } },
    });
    run["then"] = json!({ "properties": { "stdin": { "pattern": BASE64 } } });
    // A terminal ends with the daemon.
    let create = &mut schemas["ProcessCreateRequest"];
    create["if"] = json!({ "required": ["tty"], "properties": { "tty": { "const": true } } });
    create["then"] = json!({ "properties": { "outliveDaemon": { "const": false } } });
}

/// Raw bodies are binary strings (their handlers' `Vec<u8>` reads as an array of
/// numbers, which is not what travels).
fn raw_bodies(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for media_type in RAW_MEDIA_TYPES {
                if let Some(content) = map.get_mut(media_type) {
                    content["schema"] = json!({ "type": "string", "format": "binary" });
                }
            }
            map.values_mut().for_each(raw_bodies);
        }
        Value::Array(items) => items.iter_mut().for_each(raw_bodies),
        _ => {}
    }
}

/// The registry name and the largest value of each unsigned format, by the name
/// utoipa writes (`u-int64`) or the registry's (`uint64`).
fn unsigned_format(format: &str) -> Option<(&'static str, u64)> {
    match format {
        "u-int8" | "uint8" => Some(("uint8", u8::MAX.into())),
        "u-int16" | "uint16" => Some(("uint16", u16::MAX.into())),
        "u-int32" | "uint32" => Some(("uint32", u32::MAX.into())),
        "u-int64" | "uint64" => Some(("uint64", u64::MAX)),
        _ => None,
    }
}

/// Gives every unsigned integer its upper bound (a format alone bounds nothing in
/// JSON Schema). A `usize` comes out with `minimum: 0` and no format: on the 64-bit
/// targets the daemon is built for it is a `uint64`.
fn unsigned_ranges(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let integer = match map.get("type") {
                Some(Value::String(kind)) => kind == "integer",
                Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "integer"),
                _ => false,
            };
            if integer && map.get("format").is_none() && map.get("minimum") == Some(&json!(0)) {
                map.insert("format".into(), json!("uint64"));
            }
            let unsigned = map
                .get("format")
                .and_then(Value::as_str)
                .and_then(unsigned_format);
            if let Some((format, maximum)) = unsigned {
                map.insert("format".into(), json!(format));
                map.entry("maximum").or_insert(json!(maximum));
            }
            map.values_mut().for_each(unsigned_ranges);
        }
        Value::Array(items) => items.iter_mut().for_each(unsigned_ranges),
        _ => {}
    }
}

/// Session ids are 1-128 of `[A-Za-z0-9._-]`, but not `.` or `..`: no other id can
/// be created, so none can be found either.
fn session_id_parameters(doc: &mut Value) {
    let schema = json!({
        "type": "string",
        "pattern": "^[A-Za-z0-9._-]{1,128}$",
        "not": { "enum": [".", ".."] },
    });
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    let parameters = paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(|operation| operation.get_mut("parameters"))
        .filter_map(Value::as_array_mut)
        .flatten();
    for parameter in parameters {
        if parameter["in"] == "path" && parameter["name"] == "session_id" {
            parameter["schema"] = schema.clone();
        }
    }
}

/// Every object schema a client sends (a request body, what it holds, a terminal
/// frame) says what the daemon does with a field it does not know: refuse it.
fn closed_request_objects(doc: &mut Value) {
    let mut sent: BTreeSet<String> = SENT_OUTSIDE_BODIES.map(String::from).into();
    let mut pending: Vec<String> = Vec::new();
    let bodies = doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|item| item.values())
        .filter_map(|operation| operation.get("requestBody"));
    for body in bodies {
        references(body, &mut pending);
    }
    pending.extend(sent.iter().cloned());
    let schemas = &mut doc["components"]["schemas"];
    while let Some(name) = pending.pop() {
        let mut found = Vec::new();
        references(&schemas[&name], &mut found);
        for name in found {
            if sent.insert(name.clone()) {
                pending.push(name);
            }
        }
        sent.insert(name);
    }
    for name in &sent {
        close_objects(&mut schemas[name]);
    }
}

/// The names of the component schemas `value` refers to.
fn references(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|target| target.strip_prefix("#/components/schemas/"))
            {
                found.push(name.to_owned());
            }
            map.values().for_each(|value| references(value, found));
        }
        Value::Array(items) => items.iter().for_each(|value| references(value, found)),
        _ => {}
    }
}

/// Sets `additionalProperties: false` on every object with named properties that
/// says nothing of others (maps say what their values are, and keep it). The parts
/// of a condition (`anyOf`, `if`...) only add to their object, and stay open.
fn close_objects(value: &mut Value) {
    const CONDITIONS: [&str; 5] = ["anyOf", "if", "then", "else", "not"];
    match value {
        Value::Object(map) => {
            if map.contains_key("properties") {
                map.entry("additionalProperties").or_insert(json!(false));
            }
            map.iter_mut()
                .filter(|(key, _)| !CONDITIONS.contains(&key.as_str()))
                .for_each(|(_, value)| close_objects(value));
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_integers_get_their_registry_format_and_their_maximum() {
        let mut doc = json!({
            "u16": { "type": "integer", "format": "u-int16", "minimum": 1, "maximum": 80 },
            "u64": { "type": ["integer", "null"], "format": "u-int64", "minimum": 0 },
            "usize": { "type": "integer", "minimum": 0 },
            "i64": { "type": "integer", "format": "int64" },
        });
        unsigned_ranges(&mut doc);
        assert_eq!(doc["u16"]["format"], "uint16");
        assert_eq!(doc["u16"]["maximum"], 80, "a declared maximum stays");
        assert_eq!(doc["u64"]["maximum"], json!(u64::MAX));
        assert_eq!(doc["usize"]["format"], "uint64");
        assert_eq!(doc["usize"]["maximum"], json!(u64::MAX));
        assert_eq!(doc["i64"], json!({ "type": "integer", "format": "int64" }));
    }
}
