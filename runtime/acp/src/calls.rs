//! The parameters of ACP's calls to an agent, and the client's answers to ours,
//! as the daemon reads them.

use std::collections::BTreeMap;

use agentplex_api::{McpServerConfig, MessagePart};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::rpc::RpcError;

/// Reads the parameters of `method`, or says which field does not fit.
pub fn params<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, RpcError> {
    let params = if params.is_null() {
        Value::Object(Default::default())
    } else {
        params
    };
    serde_path_to_error::deserialize(params).map_err(|error| {
        let path = error.path().to_string();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        RpcError::invalid_params(format!("{method}: {}{at}", error.inner()))
    })
}

/// The calls about one session: their answers go to that session's stream
/// where a transport streams each session apart.
const SESSION_SCOPED: &[&str] = &[
    "session/cancel",
    "session/close",
    "session/delete",
    "session/fork",
    "session/load",
    "session/prompt",
    "session/resume",
    "session/set_config_option",
    "session/set_mode",
    "session/set_model",
];

/// The session a call of `method` with `params` is about, if it is about one.
pub fn session_scope(method: &str, params: &Value) -> Option<String> {
    if !SESSION_SCOPED.contains(&method) {
        return None;
    }
    params["sessionId"].as_str().map(str::to_owned)
}

/// `initialize`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Initialize {
    /// The newest protocol version the client speaks.
    pub protocol_version: u16,
    /// What the client can do.
    #[serde(default)]
    pub client_capabilities: ClientCapabilities,
}

/// What a client can do, as far as the daemon cares.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Whether it answers `elicitation/create` (the agent's questions).
    #[serde(default)]
    pub elicitation: Option<Value>,
}

/// `session/new`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSession {
    /// The session's working directory (absolute).
    pub cwd: String,
    /// MCP servers the client asks for ([`mcp_servers`]).
    #[serde(default)]
    pub mcp_servers: Vec<Value>,
}

/// `session/load`, `session/resume`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenSession {
    /// The session.
    pub session_id: String,
    /// The working directory the client expects.
    #[serde(default)]
    pub cwd: Option<String>,
}

/// `session/prompt`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// The session.
    pub session_id: String,
    /// What the user sent.
    pub prompt: Vec<ContentBlock>,
}

/// `session/cancel`, `session/close`, `session/delete`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    /// The session.
    pub session_id: String,
}

/// `session/set_mode`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetMode {
    /// The session.
    pub session_id: String,
    /// One of the modes the session's answers listed.
    pub mode_id: String,
}

/// `session/set_model`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModel {
    /// The session.
    pub session_id: String,
    /// The model: one the session's answers listed, or another the agent knows.
    pub model_id: String,
}

/// `session/set_config_option`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetConfigOption {
    /// The session.
    pub session_id: String,
    /// One of the options the session's answers listed.
    pub config_id: String,
    /// One of the option's values.
    pub value: Value,
}

/// `session/list`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSessions {
    /// Only the sessions in this directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Where the previous page ended.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// One block of a prompt.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A link to a resource the agent can read itself.
    ResourceLink {
        /// Its URI.
        uri: String,
        /// Its name.
        #[serde(default)]
        name: Option<String>,
        /// Its MIME type.
        #[serde(default, rename = "mimeType")]
        mime_type: Option<String>,
    },
    /// A resource's contents, embedded.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
    /// An image: its bytes in base64, or a `file://` URI (for an agent whose
    /// capabilities take images: `promptCapabilities.image`).
    Image {
        /// Its bytes, in base64.
        #[serde(default)]
        data: String,
        /// Its MIME type (`image/png`...).
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Where it is, when the client names it.
        #[serde(default)]
        uri: Option<String>,
    },
    /// Audio (not accepted: `promptCapabilities.audio` is false).
    Audio {},
}

/// An embedded resource's contents.
#[derive(Debug, Deserialize)]
pub struct EmbeddedResource {
    /// Its URI.
    pub uri: String,
    /// Its text (a binary resource has none).
    #[serde(default)]
    pub text: Option<String>,
}

/// Keeps an image's bytes (`image/...` given) where the agent can read them;
/// answers the file's path, or why it could not.
pub type SaveImage<'a> = dyn FnMut(Vec<u8>, &str) -> Result<String, String> + 'a;

/// A prompt as the parts of a message: text as text, a `file://` link as a file
/// the agent reads, an embedded text resource as text naming its URI, an image as
/// an image file (a `file://` one as it is, else its bytes kept by `save`).
pub fn message_parts(
    prompt: Vec<ContentBlock>,
    save: &mut SaveImage<'_>,
) -> Result<Vec<MessagePart>, RpcError> {
    let mut parts = Vec::new();
    for block in prompt {
        parts.push(match block {
            ContentBlock::Text { text } => MessagePart::Text { text },
            ContentBlock::ResourceLink {
                uri,
                name,
                mime_type,
            } => match uri.strip_prefix("file://") {
                Some(path) => MessagePart::File {
                    path: path.to_owned(),
                    mime: mime_type,
                    filename: name,
                },
                None => MessagePart::Text {
                    text: format!("@{uri}"),
                },
            },
            ContentBlock::Resource { resource } => {
                let Some(text) = resource.text else {
                    return Err(RpcError::invalid_params(format!(
                        "session/prompt: the resource {} has no text (binary resources are not accepted)",
                        resource.uri
                    )));
                };
                MessagePart::Text {
                    text: format!("<resource uri=\"{}\">\n{text}\n</resource>", resource.uri),
                }
            }
            ContentBlock::Image {
                data,
                mime_type,
                uri,
            } => image(data, mime_type, uri, save)?,
            ContentBlock::Audio {} => {
                return Err(RpcError::invalid_params(
                    "session/prompt: audio is not accepted (see promptCapabilities)",
                ))
            }
        });
    }
    if parts.is_empty() {
        return Err(RpcError::invalid_params(
            "session/prompt: the prompt is empty",
        ));
    }
    Ok(parts)
}

/// An image block as an image part.
fn image(
    data: String,
    mime: String,
    uri: Option<String>,
    save: &mut SaveImage<'_>,
) -> Result<MessagePart, RpcError> {
    use base64::Engine;
    if !mime.starts_with("image/") {
        return Err(RpcError::invalid_params(format!(
            "session/prompt: an image's mimeType is image/..., not {mime:?}"
        )));
    }
    if let Some(path) = uri.as_deref().and_then(|uri| uri.strip_prefix("file://")) {
        if data.is_empty() {
            return Ok(MessagePart::Image {
                path: path.to_owned(),
                mime: Some(mime),
            });
        }
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|error| {
            RpcError::invalid_params(format!(
                "session/prompt: an image's data is not base64: {error}"
            ))
        })?;
    if bytes.is_empty() {
        return Err(RpcError::invalid_params(
            "session/prompt: an image has no data and no file:// uri",
        ));
    }
    let path = save(bytes, &mime).map_err(|reason| {
        RpcError::internal(format!("session/prompt: the image was not kept: {reason}"))
    })?;
    Ok(MessagePart::Image {
        path,
        mime: Some(mime),
    })
}

/// The client's choice on a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionChoice {
    /// Allow this once.
    Once,
    /// Allow this and the same for the rest of the session.
    Always,
    /// Refuse (also a cancelled request).
    Reject,
}

/// The MCP servers of a `session/new` as the session's `mcp`: ACP's stdio servers
/// as local ones, its `http` and `sse` servers as remote ones.
pub fn mcp_servers(servers: &[Value]) -> Result<BTreeMap<String, McpServerConfig>, RpcError> {
    let pairs = |list: &Value| -> Map<String, Value> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|pair| Some((pair["name"].as_str()?.to_owned(), pair["value"].clone())))
            .collect()
    };
    let mut configs = BTreeMap::new();
    for server in servers {
        let name = server["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            return Err(RpcError::invalid_params(
                "session/new: an MCP server needs a `name`",
            ));
        }
        let config = match server["type"].as_str() {
            None | Some("stdio") => json!({
                "type": "local",
                "command": server["command"],
                "args": server.get("args").cloned().unwrap_or(json!([])),
                "env": pairs(&server["env"]),
            }),
            Some(transport @ ("http" | "sse")) => json!({
                "type": "remote",
                "url": server["url"],
                "transport": transport,
                "headers": pairs(&server["headers"]),
            }),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "session/new: MCP server {name:?} has an unknown type {other:?}"
                )))
            }
        };
        let config = serde_json::from_value(config).map_err(|error| {
            RpcError::invalid_params(format!("session/new: MCP server {name:?}: {error}"))
        })?;
        configs.insert(name.to_owned(), config);
    }
    Ok(configs)
}

/// Reads the answer to a `session/request_permission`.
pub fn permission_choice(result: &Value) -> Result<PermissionChoice, RpcError> {
    let outcome = &result["outcome"];
    match (outcome["outcome"].as_str(), outcome["optionId"].as_str()) {
        (Some("cancelled"), _) => Ok(PermissionChoice::Reject),
        (Some("selected"), Some("once")) => Ok(PermissionChoice::Once),
        (Some("selected"), Some("always")) => Ok(PermissionChoice::Always),
        (Some("selected"), Some("reject")) => Ok(PermissionChoice::Reject),
        _ => Err(RpcError::invalid_params(format!(
            "session/request_permission: {outcome} is not an outcome of the options offered"
        ))),
    }
}

/// Reads the answer to an `elicitation/create` for a question: the answer when
/// accepted, `None` when declined or cancelled.
pub fn question_answer(result: &Value) -> Result<Option<String>, RpcError> {
    match result["action"].as_str() {
        Some("accept") => match &result["content"]["answer"] {
            Value::String(answer) => Ok(Some(answer.clone())),
            other => Err(RpcError::invalid_params(format!(
                "elicitation/create: `content.answer` must be a string, not {other}"
            ))),
        },
        Some("decline" | "cancel") => Ok(None),
        _ => Err(RpcError::invalid_params(
            "elicitation/create: `action` must be accept, decline or cancel",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_prompt_becomes_message_parts() {
        let prompt: Prompt = params(
            "session/prompt",
            json!({"sessionId": "s", "prompt": [
                {"type": "text", "text": "look at"},
                {"type": "resource_link", "uri": "file:///w/a.rs", "name": "a.rs"},
                {"type": "resource", "resource": {"uri": "file:///w/b.rs", "text": "fn b() {}"}},
            ]}),
        )
        .unwrap();
        let parts = message_parts(prompt.prompt, &mut refuse).unwrap();
        assert!(matches!(&parts[0], MessagePart::Text { text } if text == "look at"));
        assert!(matches!(&parts[1], MessagePart::File { path, .. } if path == "/w/a.rs"));
        assert!(matches!(&parts[2], MessagePart::Text { text } if text.contains("fn b() {}")));
    }

    fn refuse(_: Vec<u8>, _: &str) -> Result<String, String> {
        Err("no image expected".into())
    }

    #[test]
    fn an_image_is_kept_as_a_file_or_taken_from_its_uri() {
        let prompt: Vec<ContentBlock> = serde_json::from_value(json!([
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "image", "uri": "file:///w/shot.jpg", "mimeType": "image/jpeg"},
        ]))
        .unwrap();
        let mut kept = Vec::new();
        let mut save = |bytes: Vec<u8>, mime: &str| {
            kept.push((bytes, mime.to_owned()));
            Ok("/scratch/image-1.png".to_owned())
        };
        let parts = message_parts(prompt, &mut save).unwrap();
        assert_eq!(
            kept,
            [(b"\x89PNG\r\n\x1a\n".to_vec(), "image/png".to_owned())]
        );
        assert!(
            matches!(&parts[0], MessagePart::Image { path, mime } if path == "/scratch/image-1.png" && mime.as_deref() == Some("image/png"))
        );
        assert!(matches!(&parts[1], MessagePart::Image { path, .. } if path == "/w/shot.jpg"));
        for (bad, says) in [
            (
                json!({"type": "image", "data": "not base64!", "mimeType": "image/png"}),
                "not base64",
            ),
            (
                json!({"type": "image", "data": "", "mimeType": "image/png"}),
                "no data",
            ),
            (
                json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "text/plain"}),
                "mimeType",
            ),
            (
                json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}),
                "audio",
            ),
        ] {
            let prompt: Vec<ContentBlock> = serde_json::from_value(json!([bad])).unwrap();
            let error = message_parts(prompt, &mut refuse).unwrap_err();
            assert_eq!(error.code, crate::rpc::code::INVALID_PARAMS);
            assert!(error.message.contains(says), "{}", error.message);
        }
    }

    #[test]
    fn bad_params_say_where() {
        let error = params::<Prompt>("session/prompt", json!({"sessionId": 3})).unwrap_err();
        assert_eq!(error.code, crate::rpc::code::INVALID_PARAMS);
        assert!(error.message.contains("sessionId"), "{}", error.message);
        assert!(message_parts(Vec::new(), &mut refuse).is_err());
    }

    #[test]
    fn mcp_servers_become_the_sessions_mcp() {
        let servers = [
            json!({"name": "files", "command": "/bin/mcp-files", "args": ["--root", "/w"],
                   "env": [{"name": "LEVEL", "value": "2"}]}),
            json!({"type": "http", "name": "docs", "url": "https://example.test/mcp",
                   "headers": [{"name": "Authorization", "value": "Bearer x"}]}),
        ];
        let configs = mcp_servers(&servers).unwrap();
        let files = serde_json::to_value(&configs["files"]).unwrap();
        assert_eq!(files["type"], "local");
        assert_eq!(files["env"]["LEVEL"], "2");
        let docs = serde_json::to_value(&configs["docs"]).unwrap();
        assert_eq!(docs["transport"], "http");
        assert_eq!(docs["headers"]["Authorization"], "Bearer x");
        assert!(mcp_servers(&[json!({"name": "x", "type": "carrier-pigeon"})]).is_err());
        assert!(mcp_servers(&[json!({"command": "x"})]).is_err());
    }

    #[test]
    fn answers_are_read() {
        let selected = |id: &str| json!({"outcome": {"outcome": "selected", "optionId": id}});
        assert_eq!(
            permission_choice(&selected("once")),
            Ok(PermissionChoice::Once)
        );
        assert_eq!(
            permission_choice(&selected("always")),
            Ok(PermissionChoice::Always)
        );
        assert_eq!(
            permission_choice(&selected("reject")),
            Ok(PermissionChoice::Reject)
        );
        assert_eq!(
            permission_choice(&json!({"outcome": {"outcome": "cancelled"}})),
            Ok(PermissionChoice::Reject)
        );
        assert!(permission_choice(&selected("maybe")).is_err());
        assert_eq!(
            question_answer(&json!({"action": "accept", "content": {"answer": "blue"}})),
            Ok(Some("blue".into()))
        );
        assert_eq!(question_answer(&json!({"action": "decline"})), Ok(None));
        assert!(question_answer(&json!({"action": "accept", "content": {}})).is_err());
    }
}
