//! `docs/api-reference.md`: every operation and schema of `docs/openapi.json`,
//! rendered as Markdown.

use serde_json::{Map, Value};

use super::{cell, check_region, links::slug, repo};

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

#[test]
fn the_api_reference_is_the_openapi_document_rendered() {
    let text = std::fs::read_to_string(repo().join("docs/openapi.json")).unwrap();
    let document: Value = serde_json::from_str(&text).expect("docs/openapi.json is JSON");
    check_region("docs/api-reference.md", "api reference", &render(&document));
}

/// The region: an index of the routes, each tag's operations, then the schemas.
fn render(document: &Value) -> String {
    let operations = operations(document);
    let tags: Vec<&Value> = document["tags"].as_array().into_iter().flatten().collect();
    let in_tag = |tag: &Value| {
        let name = tag["name"].as_str().unwrap_or_default().to_owned();
        operations.iter().filter(move |(t, ..)| *t == name)
    };
    let mut out = String::from("| route | what it does |\n|---|---|\n");
    for (_, method, path, operation) in tags.iter().flat_map(|tag| in_tag(tag)) {
        let title = format!("`{} {path}`", method.to_uppercase());
        out.push_str(&format!(
            "| [{title}](#{}) | {} |\n",
            slug(&title),
            cell(first_sentence(text_of(operation, "summary")))
        ));
    }
    out.push('\n');
    for tag in &tags {
        let name = tag["name"].as_str().unwrap_or_default();
        out.push_str(&format!("## {}\n\n", capitalized(name)));
        out.push_str(&paragraphs(text_of(tag, "description")));
        for (_, method, path, operation) in in_tag(tag) {
            out.push_str(&render_operation(method, path, operation));
        }
    }
    out.push_str("## Schemas\n\n");
    let schemas = document["components"]["schemas"].as_object();
    for (name, schema) in schemas.into_iter().flatten() {
        out.push_str(&format!("### `{name}`\n\n"));
        out.push_str(&render_schema(schema));
    }
    out
}

/// Every operation with its first tag, in path order and then method order (an
/// operation without a tag is not rendered: the document gives every one a tag).
fn operations(document: &Value) -> Vec<(String, &'static str, String, &Value)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().into_iter().flatten() {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                let tag = operation["tags"][0].as_str().unwrap_or("other").to_owned();
                found.push((tag, method, path.clone(), operation));
            }
        }
    }
    found
}

fn render_operation(method: &str, path: &str, operation: &Value) -> String {
    let mut out = format!("### `{} {path}`\n\n", method.to_uppercase());
    out.push_str(&paragraphs(text_of(operation, "summary")));
    out.push_str(&paragraphs(text_of(operation, "description")));
    let open = operation["security"].as_array().is_some_and(|schemes| {
        schemes.is_empty()
            || schemes
                .iter()
                .any(|s| s.as_object().is_some_and(Map::is_empty))
    });
    out.push_str(if open || operation.get("security").is_none() {
        "No token needed.\n\n"
    } else {
        "Needs the token.\n\n"
    });
    let parameters = operation["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !parameters.is_empty() {
        out.push_str("| parameter | in | type | required | meaning |\n|---|---|---|---|---|\n");
        for parameter in &parameters {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                parameter["name"].as_str().unwrap_or_default(),
                parameter["in"].as_str().unwrap_or_default(),
                type_of(&parameter["schema"]),
                yes_no(parameter["required"].as_bool().unwrap_or(false)),
                cell(text_of(parameter, "description")),
            ));
        }
        out.push('\n');
    }
    if let Some(body) = operation.get("requestBody") {
        let required = if body["required"].as_bool().unwrap_or(false) {
            "required"
        } else {
            "optional"
        };
        out.push_str(&format!(
            "Body ({required}): {}",
            contents(&body["content"])
        ));
        let description = cell(text_of(body, "description"));
        if !description.is_empty() {
            out.push_str(&format!(". {}", sentence(&description)));
        }
        out.push_str("\n\n");
    }
    let mut errors = Vec::new();
    out.push_str("| answer | body | meaning |\n|---|---|---|\n");
    for (status, response) in operation["responses"].as_object().into_iter().flatten() {
        let description = cell(text_of(response, "description"));
        if status.starts_with('4') || status.starts_with('5') {
            errors.push(if description.is_empty() {
                format!("`{status}`")
            } else {
                format!("`{status}` ({description})")
            });
            continue;
        }
        out.push_str(&format!(
            "| `{status}` | {} | {description} |\n",
            contents(&response["content"])
        ));
    }
    out.push('\n');
    if !errors.is_empty() {
        out.push_str(&format!(
            "Errors, as [`ProblemDetails`](#problemdetails): {}.\n\n",
            errors.join(", ")
        ));
    }
    out
}

/// `type` of each content type of a body, or `none`.
fn contents(content: &Value) -> String {
    let Some(types) = content.as_object().filter(|types| !types.is_empty()) else {
        return "none".into();
    };
    types
        .iter()
        .map(|(media, body)| match body.get("schema") {
            Some(schema) => format!("`{media}` {}", type_of(schema)),
            None => format!("`{media}`"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_schema(schema: &Value) -> String {
    let mut out = paragraphs(text_of(schema, "description"));
    if let Some(values) = schema["enum"].as_array() {
        out.push_str(&format!("One of {}.\n\n", enum_values(values)));
    }
    if let Some(properties) = schema["properties"].as_object() {
        out.push_str(&fields(properties, &schema["required"]));
    }
    if let Some(variants) = schema["oneOf"].as_array() {
        out.push_str("One of:\n\n");
        for variant in variants {
            let description = cell(text_of(variant, "description"));
            let tag = variant["properties"]["type"]["enum"][0].as_str();
            let head = match tag {
                Some(tag) => format!("`type: \"{tag}\"`"),
                None => type_of(variant),
            };
            out.push_str(&format!("- {head}"));
            if !description.is_empty() {
                out.push_str(&format!(": {}", sentence(&description)));
            }
            out.push('\n');
            if let Some(properties) = variant["properties"].as_object() {
                out.push('\n');
                out.push_str(&indent(&fields(properties, &variant["required"])));
            }
        }
        out.push('\n');
    }
    if schema.get("properties").is_none()
        && schema.get("oneOf").is_none()
        && schema.get("enum").is_none()
    {
        out.push_str(&format!("Type: {}.\n\n", type_of(schema)));
    }
    out
}

/// A table of an object's fields.
fn fields(properties: &Map<String, Value>, required: &Value) -> String {
    let required: Vec<&str> = required
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut out = String::from("| field | type | required | meaning |\n|---|---|---|---|\n");
    for (name, property) in properties {
        let mut meaning = cell(text_of(property, "description"));
        if meaning.is_empty() {
            // A described `$ref` sits in a `oneOf` with `null`.
            meaning = property["oneOf"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|variant| cell(text_of(variant, "description")))
                .find(|text| !text.is_empty())
                .unwrap_or_default();
        }
        out.push_str(&format!(
            "| `{name}` | {} | {} | {meaning} |\n",
            type_of(property),
            yes_no(required.contains(&name.as_str()))
        ));
    }
    out.push('\n');
    out
}

/// A schema's type in a few words, links to named schemas included.
fn type_of(schema: &Value) -> String {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return format!("[`{name}`](#{})", slug(&format!("`{name}`")));
    }
    if let Some(values) = schema["enum"].as_array() {
        return enum_values(values);
    }
    if let Some(variants) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        let named: Vec<String> = variants
            .iter()
            .filter(|variant| variant["type"] != "null")
            .map(type_of)
            .collect();
        return named.join(" or ");
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => return "any JSON".into(),
    };
    types
        .iter()
        .map(|kind| match *kind {
            "array" => format!("array of {}", type_of(&schema["items"])),
            "object" if schema["additionalProperties"].is_object() => {
                format!("map of {}", type_of(&schema["additionalProperties"]))
            }
            "integer" | "number" => match schema["format"].as_str() {
                Some(format) => format!("{kind} ({format})"),
                None => kind.to_string(),
            },
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

fn enum_values(values: &[Value]) -> String {
    values
        .iter()
        .map(|value| match value.as_str() {
            Some(text) => format!("`{text}`"),
            None => format!("`{value}`"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn text_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_default()
}

/// A description as Markdown paragraphs: lines of a paragraph joined.
fn paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|paragraph| !paragraph.is_empty())
        .map(|paragraph| format!("{}\n\n", sentence(&paragraph)))
        .collect()
}

fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    match text.find(". ").or_else(|| text.find(".\n")) {
        Some(end) => &text[..=end],
        None => text,
    }
}

fn sentence(text: &str) -> String {
    if text.ends_with(['.', ':', '!', '?']) || text.ends_with(".)") {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_owned()
            } else {
                format!("  {line}\n")
            }
        })
        .collect()
}

fn yes_no(yes: bool) -> &'static str {
    if yes {
        "yes"
    } else {
        "no"
    }
}

#[test]
fn types_read_as_words() {
    let schema = serde_json::json!({"type": ["array", "null"], "items": {"$ref": "#/components/schemas/FsEntry"}});
    assert_eq!(type_of(&schema), "array of [`FsEntry`](#fsentry)");
    let map = serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(type_of(&map), "map of string");
    assert_eq!(first_sentence("One. Two."), "One.");
}
