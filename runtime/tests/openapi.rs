//! The OpenAPI document: the committed `docs/openapi.json` matches what the daemon
//! generates, stays wire-compatible with the 0.1.x reference API, and says that
//! every object a client sends refuses fields it does not know (while the daemon
//! knows every field a 0.1.x client sends).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::api::Api;
use common::Daemon;
use serde_json::{json, Value};

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn generated() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agentplex"))
        .arg("openapi")
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn committed_document_is_current() {
    let committed = std::fs::read_to_string(repo_root().join("docs/openapi.json")).unwrap();
    assert!(
        committed == generated(),
        "docs/openapi.json is stale: regenerate it with `cargo run -p agentplex -- openapi > docs/openapi.json`"
    );
}

/// The 0.1.x reference document lives next to the repository (`../shared/`) on
/// the project's machines; CI must have it.
fn reference() -> Option<Value> {
    let path = repo_root().join("../shared/reference/sandbox-agent-0.1.11.openapi.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).unwrap()),
        Err(_) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping: no reference document at {}", path.display());
            None
        }
        Err(error) => panic!("reference document missing in CI: {error}"),
    }
}

/// Route families the spec leaves for a later step (none left).
fn deferred(_name: &str) -> bool {
    false
}

fn names(value: Option<&Value>) -> BTreeSet<String> {
    match value {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => BTreeSet::new(),
    }
}

#[test]
fn every_reference_route_and_field_is_still_served() {
    let Some(reference) = reference() else { return };
    let ours: Value = serde_json::from_str(&generated()).unwrap();
    let mut problems = Vec::new();

    for (path, methods) in reference["paths"].as_object().unwrap() {
        if deferred(path) {
            continue;
        }
        for method in names(Some(methods)) {
            if ours["paths"][path][&method].is_null() {
                problems.push(format!("missing route {method} {path}"));
            }
        }
    }
    for (name, schema) in reference["components"]["schemas"].as_object().unwrap() {
        if deferred(name) {
            continue;
        }
        let our = &ours["components"]["schemas"][name];
        if our.is_null() {
            problems.push(format!("missing schema {name}"));
            continue;
        }
        for property in names(schema.get("properties")) {
            if deferred(&property) {
                continue;
            }
            if our["properties"][&property].is_null() {
                problems.push(format!("{name}.{property} is gone"));
            }
        }
        let newly_required: Vec<_> = names(our.get("required"))
            .difference(&names(schema.get("required")))
            .cloned()
            .collect();
        if !newly_required.is_empty() && name.ends_with("Request") {
            problems.push(format!("{name} now requires {newly_required:?}"));
        }
        let missing_values: Vec<_> = names(schema.get("enum"))
            .difference(&names(our.get("enum")))
            .cloned()
            .collect();
        if !missing_values.is_empty() {
            problems.push(format!("{name} lost enum values {missing_values:?}"));
        }
    }
    assert!(
        problems.is_empty(),
        "not wire-compatible with 0.1.x:\n{}",
        problems.join("\n")
    );
}

/// The component schemas `value` refers to, and those they refer to, into `found`
/// (read from the JSON text: every `"#/components/schemas/NAME"` string is a `$ref`).
fn referenced(schemas: &Value, value: &Value, found: &mut BTreeSet<String>) {
    let text = value.to_string();
    for rest in text.split("\"#/components/schemas/").skip(1) {
        let name = rest.split('"').next().unwrap_or_default();
        if found.insert(name.to_owned()) {
            referenced(schemas, &schemas[name], found);
        }
    }
}

/// Where in `schema` an object with named properties leaves other fields open (the
/// parts of a condition, `anyOf` and `if`/`then`/`else`, only add to their object).
fn open_objects(schema: &Value, at: &str, open: &mut Vec<String>) {
    const CONDITIONS: [&str; 5] = ["anyOf", "if", "then", "else", "not"];
    match schema {
        Value::Object(map) => {
            if map.contains_key("properties")
                && map.get("additionalProperties") != Some(&json!(false))
            {
                open.push(at.to_owned());
            }
            for (key, value) in map
                .iter()
                .filter(|(key, _)| !CONDITIONS.contains(&key.as_str()))
            {
                open_objects(value, &format!("{at}/{key}"), open);
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                open_objects(value, &format!("{at}/{index}"), open);
            }
        }
        _ => {}
    }
}

#[test]
fn every_object_a_client_sends_refuses_unknown_fields() {
    let ours: Value = serde_json::from_str(&generated()).unwrap();
    let schemas = &ours["components"]["schemas"];
    let mut sent = BTreeSet::from(["TerminalClientFrame".to_owned()]);
    let mut open = Vec::new();
    for (path, item) in ours["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let body = &operation["requestBody"]["content"]["application/json"]["schema"];
            if !body.is_null() {
                open_objects(body, &format!("{method} {path}"), &mut open);
                referenced(schemas, body, &mut sent);
            }
        }
    }
    for name in sent.clone() {
        referenced(schemas, &schemas[&name], &mut sent);
        open_objects(&schemas[&name], &name, &mut open);
    }
    assert!(
        sent.contains("McpOAuthConfig") && sent.contains("MessagePart"),
        "nested schemas are followed: {sent:?}"
    );
    assert!(
        open.is_empty(),
        "objects without additionalProperties: false: {open:?}"
    );
}

/// A value of `schema` (a reference document's property) a client could send.
fn sample(reference: &Value, schema: &Value) -> Value {
    if schema["nullable"] == json!(true) {
        return Value::Null;
    }
    if let Some(name) = schema["$ref"].as_str() {
        let target = &reference["components"]["schemas"][name.rsplit('/').next().unwrap()];
        return target["enum"].get(0).cloned().unwrap_or(json!({}));
    }
    match schema["type"].as_str() {
        Some("string") => json!("x"),
        Some("array") => json!([]),
        Some("boolean") => json!(false),
        Some("integer") => json!(1),
        _ => json!({}),
    }
}

#[test]
fn the_daemon_knows_every_field_a_0_1_client_sends() {
    let Some(reference) = reference() else { return };
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("s", "mock");
    let routes = [
        ("AgentInstallRequest", "/v1/agents/mock/install"),
        ("CreateSessionRequest", "/v1/sessions/t"),
        ("MessageRequest", "/v1/sessions/s/messages"),
        ("QuestionReplyRequest", "/v1/sessions/s/questions/q/reply"),
        (
            "PermissionReplyRequest",
            "/v1/sessions/s/permissions/p/reply",
        ),
        ("FsMoveRequest", "/v1/fs/move"),
    ];
    let requests: BTreeSet<&str> = reference["components"]["schemas"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|name| name.ends_with("Request"))
        .collect();
    assert_eq!(requests, routes.iter().map(|(name, _)| *name).collect());
    for (name, path) in routes {
        let schema = &reference["components"]["schemas"][name];
        let mut body = json!({});
        for (field, property) in schema["properties"].as_object().unwrap() {
            body[field] = sample(&reference, property);
        }
        if name == "CreateSessionRequest" {
            body["agent"] = json!("mock");
        }
        let answer = api.post_json(path, body.clone());
        let status = answer.status();
        let text = answer.text().unwrap();
        assert!(
            !text.contains("unknown field"),
            "{name} with every 0.1.x field, {body}: {status} {text}"
        );
    }
}
