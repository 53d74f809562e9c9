//! How a session's configuration becomes Codex settings: approval policy, sandbox,
//! collaboration mode, model and reasoning effort, MCP servers, the model provider
//! ([`crate::gateway`]); and the static model list.

use sandbox_agent_adapter_kit::mcp::string_map;
use sandbox_agent_adapter_kit::native_rules::NativeRules;
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::{json, Map, Value};

/// Codex's settings for a session.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Policy {
    /// `approvalPolicy`: `untrusted` asks before every command that is not known to be
    /// read-only and before every patch; `never` never asks.
    pub approval: &'static str,
    /// `sandbox`: where commands may write.
    pub sandbox: &'static str,
    /// Codex's plan collaboration mode.
    pub plan: bool,
}

impl Policy {
    /// `bypass` runs everything without asking and without a sandbox; `plan` (or agent
    /// mode `plan`) uses the plan collaboration mode, a read-only sandbox and asks;
    /// `default` asks before commands and patches, which run unsandboxed once allowed
    /// (Codex's Linux sandbox needs user namespaces, which many sandboxes lack).
    pub(crate) fn of(config: &SessionConfig) -> Self {
        let plan = config.agent_mode == "plan" || config.permission_mode == "plan";
        match config.permission_mode.as_str() {
            "bypass" => Self {
                approval: "never",
                sandbox: "danger-full-access",
                plan,
            },
            _ if plan => Self {
                approval: "untrusted",
                sandbox: "read-only",
                plan,
            },
            _ => Self {
                approval: if allows_every_call(config) {
                    "never"
                } else {
                    "untrusted"
                },
                sandbox: "danger-full-access",
                plan,
            },
        }
    }
}

/// Whether Codex is handed the session's approval policy as its own: approval
/// policy `never` in the `default` permission mode ([`allows_every_call`]).
pub(crate) fn hands_never(config: &SessionConfig) -> bool {
    config.permission_mode != "bypass" && Policy::of(config).approval == "never"
}

/// Whether the session's approval policy allows every command and every patch,
/// whatever they are: the one rule of a policy Codex takes as its own (approval
/// policy `never`, commands unsandboxed as the daemon's `allow` runs them). Its
/// approval policy has no setting per kind of call, and its prefix rules no
/// globs, so any other policy is decided by the daemon, Codex asking.
pub(crate) fn allows_every_call(config: &SessionConfig) -> bool {
    let rules = NativeRules::new(config.policy.clone());
    [ToolKind::Shell, ToolKind::Write]
        .into_iter()
        .all(|kind| rules.handed(kind) == Some(PolicyDecision::Allow))
}

/// The params of `thread/start` (no `thread`) or `thread/resume` (`thread` given):
/// the thread's settings, and its `config` overrides (MCP servers, model provider).
pub(crate) fn thread_params(config: &SessionConfig, thread: Option<&str>) -> Value {
    let policy = Policy::of(config);
    let mut params = Map::new();
    if let Some(thread) = thread {
        params.insert("threadId".into(), thread.into());
        params.insert("excludeTurns".into(), true.into());
    }
    params.insert("cwd".into(), config.directory.clone().into());
    params.insert("approvalPolicy".into(), policy.approval.into());
    params.insert("sandbox".into(), policy.sandbox.into());
    if let Some(model) = &config.model {
        params.insert("model".into(), model.clone().into());
    }
    let mut overrides = Map::new();
    if !config.mcp_servers.is_empty() {
        let servers = mcp_servers(&config.mcp_servers);
        overrides.insert("mcp_servers".into(), Value::Object(servers));
    }
    crate::gateway::point(config, &mut params, &mut overrides);
    if !overrides.is_empty() {
        params.insert("config".into(), Value::Object(overrides));
    }
    Value::Object(params)
}

/// The session's MCP servers as Codex's `mcp_servers` config table: a local
/// `command` with `args`, `env` and `cwd`, or a streamable-HTTP `url` with
/// `http_headers` (Codex speaks no SSE transport: an SSE server is given as its URL).
fn mcp_servers(servers: &[McpServer]) -> Map<String, Value> {
    servers
        .iter()
        .map(|server| {
            let mut entry = Map::new();
            let timeout = match &server.transport {
                McpTransport::Local(local) => {
                    let program = local.command.first().cloned().unwrap_or_default();
                    entry.insert("command".into(), program.into());
                    entry.insert(
                        "args".into(),
                        json!(local.command.iter().skip(1).collect::<Vec<_>>()),
                    );
                    entry.insert("env".into(), Value::Object(string_map(&local.env)));
                    if let Some(cwd) = &local.cwd {
                        entry.insert("cwd".into(), cwd.clone().into());
                    }
                    local.timeout_ms
                }
                McpTransport::Remote(remote) => {
                    entry.insert("url".into(), remote.url.clone().into());
                    entry.insert(
                        "http_headers".into(),
                        Value::Object(string_map(&remote.headers)),
                    );
                    remote.timeout_ms
                }
            };
            if let Some(timeout) = timeout {
                entry.insert("startup_timeout_ms".into(), timeout.into());
            }
            (server.name.clone(), Value::Object(entry))
        })
        .collect()
}

/// The params of `turn/start`: the input, and the model, reasoning effort and
/// collaboration mode of the session. `thread_model` is the model the thread runs,
/// which a collaboration mode must name when the session names none.
/// `modes_changed`: the session's modes changed since the thread was last given
/// them, so the turn gives it their approval policy, sandbox and collaboration
/// mode (Codex keeps a turn's for the turns after it).
pub(crate) fn turn_params(
    config: &SessionConfig,
    thread: &str,
    input: Value,
    thread_model: Option<&str>,
    modes_changed: bool,
) -> Value {
    let mut params = Map::new();
    params.insert("threadId".into(), thread.into());
    params.insert("input".into(), input);
    let policy = Policy::of(config);
    // A replaced approval policy reaches Codex with the next turn.
    if config.policy.is_some() || modes_changed {
        params.insert("approvalPolicy".into(), policy.approval.into());
    }
    if modes_changed {
        let sandbox = match policy.sandbox {
            "read-only" => json!({"type": "readOnly"}),
            _ => json!({"type": "dangerFullAccess"}),
        };
        params.insert("sandboxPolicy".into(), sandbox);
    }
    if let Some(model) = &config.model {
        params.insert("model".into(), model.clone().into());
    }
    if let Some(effort) = &config.variant {
        params.insert("effort".into(), effort.clone().into());
    }
    let model = config.model.as_deref().or(thread_model);
    if let (true, Some(model)) = (policy.plan || modes_changed, model) {
        params.insert(
            "collaborationMode".into(),
            json!({
                "mode": if policy.plan { "plan" } else { "default" },
                "settings": {
                    "model": model,
                    "reasoning_effort": config.variant,
                    "developer_instructions": null,
                },
            }),
        );
    }
    Value::Object(params)
}

/// The models Codex 0.169 lists (`model/list`), with their reasoning efforts as
/// variants and the default effort as the default variant.
pub(crate) fn models() -> Vec<Model> {
    const ALL: [&str; 6] = ["low", "medium", "high", "xhigh", "max", "ultra"];
    const NO_ULTRA: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];
    const CLASSIC: [&str; 4] = ["low", "medium", "high", "xhigh"];
    let table: [(&str, &str, &[&str], &str); 9] = [
        ("gpt-6.1-sol", "GPT-6.1-Sol", &ALL, "low"),
        ("gpt-6-astra", "GPT-6-Astra", &ALL, "low"),
        ("gpt-6-sol", "GPT-6-Sol", &ALL, "medium"),
        ("gpt-6-luna", "GPT-6-Luna", &NO_ULTRA, "medium"),
        ("gpt-5.6-sol", "GPT-5.6-Sol", &ALL, "low"),
        ("gpt-6.1-terra", "GPT-6.1-Terra", &ALL, "low"),
        ("gpt-5.6-terra", "GPT-5.6-Terra", &ALL, "medium"),
        ("gpt-5.6-luna", "GPT-5.6-Luna", &NO_ULTRA, "medium"),
        ("gpt-5.5", "GPT-5.5", &CLASSIC, "medium"),
    ];
    table
        .iter()
        .map(|(id, name, efforts, default)| Model {
            id: (*id).to_owned(),
            name: Some((*name).to_owned()),
            variants: efforts.iter().map(|e| (*e).to_owned()).collect(),
            default_variant: Some((*default).to_owned()),
        })
        .collect()
}
