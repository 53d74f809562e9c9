//! The OpenCode server's side of the conversation: how it is launched, the URL it
//! prints, and the HTTP requests the adapter sends it.
//!
//! Every request names the session's working directory in the `directory` query
//! parameter: one `opencode serve` hosts one OpenCode instance per directory, and
//! the event stream of `/event?directory=DIR` carries that instance's events only.

use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Value};

use crate::credentials::CONFIG_CONTENT;

/// The process id of the server, in every session.
pub(crate) const SERVER: &str = "server";

/// The stream id of the event stream.
pub(crate) const EVENTS: &str = "events";

/// What the server prints once it listens: `opencode server listening on http://127.0.0.1:PORT`.
const BANNER: &str = "opencode server listening on ";

/// A line the server prints at start that needs no action.
const PASSWORD_WARNING: &str = "Warning: OPENCODE_SERVER_PASSWORD is not set";

/// What a line the server printed on stdout means.
#[derive(Debug, PartialEq)]
pub(crate) enum ServerLine<'a> {
    /// The server listens at this base URL.
    Listening(&'a str),
    /// A notice that needs no action.
    Notice,
    /// Anything else.
    Other,
}

/// Reads a stdout line of `opencode serve`.
pub(crate) fn server_line(line: &str) -> ServerLine<'_> {
    if let Some(url) = line.trim().strip_prefix(BANNER) {
        return ServerLine::Listening(url.trim_end_matches('/'));
    }
    if line.starts_with(PASSWORD_WARNING) {
        return ServerLine::Notice;
    }
    ServerLine::Other
}

/// The server's process: `opencode serve` on a free loopback port, shared by every
/// session with the same binary and environment (they would configure it alike). A
/// session with MCP servers, skills or the daemon's model endpoints hands them in
/// `OPENCODE_CONFIG_CONTENT` ([`crate::session_config`]), so it gets a server of
/// its own.
pub(crate) fn spawn_server(config: &SessionConfig) -> SpawnRequest {
    let program = program(config);
    let content =
        crate::session_config::content(config).map(|content| (CONFIG_CONTENT.to_owned(), content));
    let keyed: Vec<(String, String)> = config.env.iter().chain(&content).cloned().collect();
    let key = share_key(&program, &keyed);
    let mut env = vec![("OPENCODE_DISABLE_AUTOUPDATE".to_owned(), "1".to_owned())];
    env.extend(content);
    SpawnRequest::command(
        SERVER,
        [
            program.as_str(),
            "serve",
            "--hostname",
            "127.0.0.1",
            "--port",
            "0",
        ],
    )
    .with_env(env)
    .shared(key)
}

/// The program to run: the installed binary's path, or `opencode` on `PATH`.
pub(crate) fn program(config: &SessionConfig) -> String {
    config
        .agent_binary
        .clone()
        .unwrap_or_else(|| "opencode".to_owned())
}

/// `opencode-serve-<hash>`: one key per binary and environment, so sessions with other
/// credentials or configuration get a server of their own.
fn share_key(program: &str, env: &[(String, String)]) -> String {
    // FNV-1a: stable across builds and platforms, unlike std's hashers.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |text: &str| {
        for byte in text.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(program);
    let mut env: Vec<_> = env.iter().collect();
    env.sort();
    for (name, value) in env {
        feed(name);
        feed(value);
    }
    format!("opencode-serve-{hash:016x}")
}

/// The event stream of the session's directory.
pub(crate) fn open_events(base: &str, directory: &str) -> SseRequest {
    SseRequest {
        stream_id: EVENTS.to_owned(),
        url: format!("{base}/event?directory={}", encode(directory)),
        headers: vec![("accept".to_owned(), "text/event-stream".to_owned())],
    }
}

/// A `POST` of a JSON `body` to `path` (which starts with `/`) in the session's
/// directory.
pub(crate) fn post(
    request_id: impl Into<String>,
    base: &str,
    path: &str,
    directory: &str,
    body: String,
) -> HttpRequest {
    HttpRequest {
        request_id: request_id.into(),
        method: "POST".to_owned(),
        url: format!("{base}{path}?directory={}", encode(directory)),
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: body.into_bytes(),
        timeout_ms: None,
    }
}

/// The agent a turn runs with: `plan` when the session asked for plan mode (as agent
/// mode or as permission mode), else `build`.
pub(crate) fn agent(config: &SessionConfig) -> &'static str {
    if config.agent_mode == "plan" || config.permission_mode == "plan" {
        "plan"
    } else {
        "build"
    }
}

/// The permissions a `default` session asks about: commands, edits, web fetches.
const ASKED: [&str; 3] = ["bash", "edit", "webfetch"];

/// Whether the session's permission rules are the adapter's to choose: not for
/// the `plan` agent (which keeps its own: no edits) nor for `bypass` (everything
/// allowed).
pub(crate) fn takes_policy_rules(config: &SessionConfig) -> bool {
    agent(config) != "plan" && config.permission_mode != "bypass"
}

/// The body of `POST /session`: the title, and permission rules for the permission
/// mode. A session's rules come after its agent's, so they win: `default` asks before
/// commands, edits and web fetches, `bypass` allows everything, and the `plan` agent
/// keeps its own rules (no edits), which an `ask` for edits would override. With an
/// approval policy, `default` has [`policy_rules`] instead.
pub(crate) fn create_session(config: &SessionConfig, rules: &NativeRules) -> Value {
    let mut body = json!({ "title": format!("sandbox-agent {}", config.session_id) });
    if let Some(rules) = permission_rules(config, rules) {
        body["permission"] = rules;
    }
    body
}

/// The native session's permission rules for the session's modes ([`create_session`]
/// says which); `None` for the `plan` agent, which keeps its own.
pub(crate) fn permission_rules(config: &SessionConfig, rules: &NativeRules) -> Option<Value> {
    match (agent(config), config.permission_mode.as_str()) {
        ("plan", _) => None,
        (_, "bypass") => Some(json!([{ "permission": "*", "pattern": "*", "action": "allow" }])),
        _ if rules.has_policy() => Some(policy_rules(rules)),
        _ => Some(
            ASKED
                .iter()
                .map(|permission| rule(permission, "ask"))
                .collect(),
        ),
    }
}

/// The session's rules for an approval policy: each of the permissions it decides
/// ([`crate::policy::PERMISSIONS`]: reads and searches too, which OpenCode
/// otherwise allows) is allowed or denied outright where the policy fixes its kind
/// so, and asked about otherwise, so that the daemon decides it. Without a policy
/// (one removed), every one of them is asked about.
pub(crate) fn policy_rules(rules: &NativeRules) -> Value {
    let action = |kind| match rules.handed(kind) {
        Some(PolicyDecision::Allow) => "allow",
        Some(PolicyDecision::Deny) => "deny",
        _ => "ask",
    };
    crate::policy::PERMISSIONS
        .iter()
        .map(|(permission, kind)| rule(permission, action(*kind)))
        .collect()
}

/// A rule for every pattern of `permission`.
fn rule(permission: &str, action: &str) -> Value {
    json!({ "permission": permission, "pattern": "*", "action": action })
}

/// A `PATCH` of a JSON `body` to `path` in the session's directory.
pub(crate) fn patch(
    request_id: impl Into<String>,
    base: &str,
    path: &str,
    directory: &str,
    body: String,
) -> HttpRequest {
    HttpRequest {
        method: "PATCH".to_owned(),
        ..post(request_id, base, path, directory, body)
    }
}

/// The body of `POST /session/:id/prompt_async`: the message's parts, the agent, and
/// the model (`provider/model`) and variant when the session names them.
pub(crate) fn prompt(config: &SessionConfig, parts: &[MessagePart]) -> Value {
    let parts: Vec<Value> = parts.iter().map(|part| prompt_part(config, part)).collect();
    let mut body = json!({ "parts": parts, "agent": agent(config) });
    if let Some((provider, model)) = config.model.as_deref().and_then(|m| m.split_once('/')) {
        body["model"] = json!({ "providerID": provider, "modelID": model });
    }
    if let Some(variant) = &config.variant {
        body["variant"] = json!(variant);
    }
    body
}

/// One prompt part: text as is, attachments as `file` parts with a `file://` URL
/// (OpenCode reads the file itself).
fn prompt_part(config: &SessionConfig, part: &MessagePart) -> Value {
    let attachment = match part {
        MessagePart::Text(text) => return json!({ "type": "text", "text": text }),
        MessagePart::Image(attachment) | MessagePart::File(attachment) => attachment,
    };
    let path = if attachment.path.starts_with('/') {
        attachment.path.clone()
    } else {
        format!(
            "{}/{}",
            config.directory.trim_end_matches('/'),
            attachment.path
        )
    };
    let filename = attachment
        .filename
        .clone()
        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or_default().to_owned());
    let mime = attachment
        .mime
        .clone()
        .unwrap_or_else(|| guess_mime(&path).to_owned());
    json!({ "type": "file", "mime": mime, "filename": filename, "url": format!("file://{path}") })
}

/// A MIME type from a file name's extension; `text/plain` when unknown (OpenCode reads
/// text files into the prompt).
fn guess_mime(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    match extension.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        _ => "text/plain",
    }
}

/// Percent-encodes a query value (everything but unreserved characters and `/`).
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
