//! The real agents under test: where `npm ci` in `testing/agents` puts each one's
//! native binary, and how the test points it at the scripted model server.

use std::path::{Path, PathBuf};

use agentplex_model_server::ModelServer;

/// One agent CLI the suite drives.
pub struct Agent {
    /// Agent id in the API.
    pub id: &'static str,
    /// Where its CLI comes from.
    pub source: Source,
    /// The permission mode in which the agent can ask the user questions
    /// (Codex offers its question tool only in plan mode).
    pub question_mode: &'static str,
    /// The agent names its session's files after the minute the session began
    /// (Gemini CLI 0.61.0, whose load in that minute would write over the
    /// conversation but for the daemon's renaming it first: see
    /// adapters/gemini/README.md), so the resume checks begin early in a minute
    /// and resume within it.
    pub names_sessions_by_minute: bool,
    /// The agent runs every command without asking, though its adapter's
    /// capabilities say it may ask (Pi's ACP build: the generic ACP adapter
    /// cannot know whether a registry agent asks).
    pub runs_unasked: bool,
    /// Variables that point the agent at the model server (`home` is the agent's
    /// private home directory).
    env: fn(&ModelServer, &Path) -> Vec<(String, String)>,
}

/// Where an agent's CLI comes from.
pub enum Source {
    /// `npm ci` in `testing/agents` installs it.
    NodeModules {
        /// The npm package whose version the test shows and expects (relative to
        /// `node_modules`).
        package: fn() -> String,
        /// The native binary, relative to `testing/agents/node_modules`.
        binary: fn() -> String,
    },
    /// The daemon adds it from the ACP registry's snapshot
    /// (`testing/acp-registry/registry.json`) and installs it itself.
    Registry {
        /// Variables of the daemon's environment the agent is given
        /// (`POST /v1/registry/{id}`'s `env`).
        passed: &'static [&'static str],
        /// For an entry that is a release archive: the archive's program, relative
        /// to `testing/agents/node_modules` (where npm put the same build), which
        /// the test's releases mirror serves packed as the registry's archive.
        release: Option<fn() -> String>,
    },
}

/// Every agent the conformance suite covers.
pub const AGENTS: &[Agent] = &[
    Agent {
        id: "claude",
        source: Source::NodeModules {
            package: || "@anthropic-ai/claude-code".into(),
            binary: || format!("@anthropic-ai/claude-code-linux-{}/claude", npm_arch()),
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: claude_env,
    },
    Agent {
        id: "codex",
        source: Source::NodeModules {
            package: || "@openai/codex".into(),
            binary: || {
                format!(
                    "@openai/codex-linux-{}/vendor/{}-unknown-linux-musl/bin/codex",
                    npm_arch(),
                    std::env::consts::ARCH
                )
            },
        },
        question_mode: "plan",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: codex_env,
    },
    Agent {
        id: "opencode",
        // The platform package itself (see testing/agents/package.json).
        source: Source::NodeModules {
            package: || format!("opencode-linux-{}", npm_arch()),
            binary: || format!("opencode-linux-{}/bin/opencode", npm_arch()),
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: opencode_env,
    },
    Agent {
        id: "pi",
        source: Source::NodeModules {
            package: || "@mariozechner/pi-coding-agent".into(),
            // A Node script (its `bin` entry `pi`); the harness finds it as `node <script>`.
            binary: || "@mariozechner/pi-coding-agent/dist/cli.js".into(),
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: pi_env,
    },
    Agent {
        id: "gemini",
        source: Source::NodeModules {
            package: || "@google/gemini-cli".into(),
            // A Node script (its `bin` entry `gemini`), like Pi's.
            binary: || "@google/gemini-cli/bundle/gemini.js".into(),
        },
        question_mode: "default",
        names_sessions_by_minute: true,
        runs_unasked: false,
        env: gemini_env,
    },
    Agent {
        id: "qwen",
        source: Source::NodeModules {
            package: || "../qwen/node_modules/@qwen-code/qwen-code".into(),
            // A Node script (its `bin` entry `qwen`), driven by the kit's generic ACP
            // session; installed apart, in `testing/agents/qwen` (see its package.json).
            binary: || "../qwen/node_modules/@qwen-code/qwen-code/cli-entry.js".into(),
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: qwen_env,
    },
    // Agents of the ACP registry, run by the generic ACP adapter: the daemon adds
    // and installs them from the registry's snapshot (an npm package; a release
    // archive through the test's mirror).
    Agent {
        id: "claude-code-acp",
        source: Source::Registry {
            passed: &["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"],
            release: None,
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: claude_code_acp_env,
    },
    Agent {
        id: "codex-acp",
        source: Source::Registry {
            passed: &["OPENAI_BASE_URL"],
            release: Some(|| {
                format!(
                    "@zed-industries/codex-acp-linux-{}/bin/codex-acp",
                    npm_arch()
                )
            }),
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: false,
        env: codex_acp_env,
    },
    Agent {
        id: "pi-acp",
        source: Source::Registry {
            passed: &["PI_ACP_PI_COMMAND", "PI_OFFLINE"],
            release: None,
        },
        question_mode: "default",
        names_sessions_by_minute: false,
        runs_unasked: true,
        env: pi_acp_env,
    },
];

impl Agent {
    /// The agent by id.
    pub fn named(id: &str) -> &'static Agent {
        AGENTS.iter().find(|a| a.id == id).expect("a known agent")
    }

    /// The installed native binary, when `npm ci` ran in `testing/agents` (for a
    /// registry agent: the release archive's program, or `None` for a package the
    /// daemon installs).
    pub fn binary(&self) -> Option<PathBuf> {
        let relative = match &self.source {
            Source::NodeModules { binary, .. } => binary(),
            Source::Registry { release, .. } => release.as_ref()?(),
        };
        let path = node_modules().join(relative);
        path.is_file().then_some(path)
    }

    /// The version the test expects: the one `testing/agents/package-lock.json`
    /// pinned (from the installed package), or the registry snapshot's.
    pub fn pinned_version(&self) -> String {
        let package = match &self.source {
            Source::NodeModules { package, .. } => package(),
            Source::Registry { .. } => {
                return registry_entry(self.id)["version"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }
        };
        let manifest = node_modules().join(package).join("package.json");
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&manifest).expect("the package's manifest"))
                .expect("package.json is JSON");
        manifest["version"].as_str().expect("a version").to_owned()
    }

    /// Variables for the daemon that point this agent at `model`.
    pub fn env(&self, model: &ModelServer, home: &Path) -> Vec<(String, String)> {
        (self.env)(model, home)
    }
}

/// The ACP registry snapshot the registry agents are added from.
pub fn registry_snapshot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testing/acp-registry/registry.json")
}

/// The snapshot's entry of `id`.
pub fn registry_entry(id: &str) -> serde_json::Value {
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(registry_snapshot()).unwrap()).unwrap();
    index["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not in the registry snapshot"))
        .clone()
}

/// Where `npm ci` installs the agents.
pub fn node_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testing/agents/node_modules")
}

fn npm_arch() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x64",
    }
}

fn pairs(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn claude_env(model: &ModelServer, _home: &Path) -> Vec<(String, String)> {
    pairs(&[
        ("ANTHROPIC_BASE_URL", model.url()),
        ("ANTHROPIC_API_KEY", "sk-scripted".into()),
        ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
        ("DISABLE_TELEMETRY", "1".into()),
        ("DISABLE_ERROR_REPORTING", "1".into()),
    ])
}

/// Codex reads its provider from `$CODEX_HOME/config.toml`. The model is one Codex
/// knows (so it offers its `apply_patch` tool); the provider is the model server,
/// with a query parameter and a header for every call, as Azure's `api-version`
/// (which the gateway must carry: `metered_turn`).
/// The query parameter's value and the header's that Codex's provider adds to
/// each call.
pub const CODEX_QUERY: &str = "scripted-version";
/// See [`CODEX_QUERY`].
pub const CODEX_HEADER: &str = "scripted-team";

fn codex_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let codex_home = home.join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let config = format!(
        "model = \"gpt-5.5\"\n\
         model_provider = \"scripted\"\n\
         [model_providers.scripted]\n\
         name = \"Scripted\"\n\
         base_url = \"{}\"\n\
         env_key = \"SCRIPTED_API_KEY\"\n\
         wire_api = \"responses\"\n\
         query_params = {{ api-version = \"{CODEX_QUERY}\" }}\n\
         http_headers = {{ x-scripted-team = \"{CODEX_HEADER}\" }}\n",
        model.openai_url()
    );
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    pairs(&[
        ("CODEX_HOME", codex_home.display().to_string()),
        ("SCRIPTED_API_KEY", "sk-scripted".into()),
    ])
}

/// OpenCode merges its configuration from several places; the model server's
/// provider is spread over two of them, as a user's may be, so that every
/// OpenCode scenario needs both read as OpenCode reads them: the global
/// `$XDG_CONFIG_HOME/opencode/opencode.json` (the harness sets `XDG_CONFIG_HOME`
/// to the home's `.config`) defines it with its key and a base URL where nothing
/// listens, and the daemon's `OPENCODE_CONFIG_CONTENT`, which OpenCode reads last,
/// gives the model server's. The adapter adds a session's MCP servers, skills and
/// gateway endpoints to that variable, and the gateway must find its upstream
/// there ([`OPENCODE_PROJECT_KEY`] adds a project's file).
fn opencode_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let config_dir = home.join(".config/opencode");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = serde_json::json!({
        "provider": {
            "scripted": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": { "baseURL": "http://127.0.0.1:9/v1", "apiKey": "sk-scripted" },
                "models": {
                    "scripted": {
                        "name": "Scripted",
                        // Sees images (the desktop tools' screenshots).
                        "attachment": true,
                        "modalities": { "input": ["text", "image"], "output": ["text"] },
                    },
                    // Another, for a session's changed model and its
                    // reasoning effort (its variants).
                    "scripted-b": { "name": "Scripted B", "reasoning": true },
                }
            }
        },
        "model": "scripted/scripted",
        "autoupdate": false,
        "share": "disabled"
    });
    std::fs::write(config_dir.join("opencode.json"), config.to_string()).unwrap();
    let content = serde_json::json!({
        "provider": { "scripted": { "options": { "baseURL": model.openai_url() } } }
    });
    pairs(&[("OPENCODE_CONFIG_CONTENT", content.to_string())])
}

/// The key a project's `opencode.json` in the session's directory gives the
/// model server's provider in the gateway's OpenCode scenario: over the global
/// one, it must be the key the gateway sends upstream.
pub const OPENCODE_PROJECT_KEY: &str = "sk-scripted-project";

/// Pi reads custom providers from `~/.pi/agent/models.json` and its default model
/// from `~/.pi/agent/settings.json`: the model server as an Anthropic Messages
/// provider. `PI_OFFLINE` skips its start-up update checks.
fn pi_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let agent_dir = home.join(".pi/agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let models = serde_json::json!({
        "providers": {
            "scripted": {
                "baseUrl": model.url(),
                "api": "anthropic-messages",
                "apiKey": "sk-scripted",
                "models": [{ "id": "scripted", "name": "Scripted", "reasoning": true,
                             "input": ["text", "image"] },
                           // Another, for a session's changed model and its
                           // thinking level (its variant).
                           { "id": "scripted-b", "name": "Scripted B", "reasoning": true }]
            }
        }
    });
    std::fs::write(agent_dir.join("models.json"), models.to_string()).unwrap();
    let settings = serde_json::json!({ "defaultProvider": "scripted", "defaultModel": "scripted" });
    std::fs::write(agent_dir.join("settings.json"), settings.to_string()).unwrap();
    pairs(&[("PI_OFFLINE", "1".into())])
}

/// The Gemini CLI talks to `GOOGLE_GEMINI_BASE_URL` with an API key once
/// `~/.gemini/settings.json` selects API-key auth (without it: exit 41).
fn gemini_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let gemini_dir = home.join(".gemini");
    std::fs::create_dir_all(&gemini_dir).unwrap();
    let settings =
        serde_json::json!({ "security": { "auth": { "selectedType": "gemini-api-key" } } });
    std::fs::write(gemini_dir.join("settings.json"), settings.to_string()).unwrap();
    pairs(&[
        ("GOOGLE_GEMINI_BASE_URL", model.url()),
        ("GEMINI_API_KEY", "scripted-key".into()),
    ])
}

/// Qwen Code's OpenAI-compatible auth (the adapter passes `--auth-type openai`)
/// pointed at the model server; its folder is the agent's private home. Its
/// settings list the models a session may change to (Qwen Code switches only
/// to a model its `modelProviders` name), with the key and the address of the
/// variables (Qwen Code expands `$NAME` in its settings).
fn qwen_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let qwen_dir = home.join(".qwen");
    std::fs::create_dir_all(&qwen_dir).unwrap();
    let entry = |id: &str| {
        serde_json::json!({
            "id": id, "name": id, "envKey": "OPENAI_API_KEY", "baseUrl": "$OPENAI_BASE_URL"
        })
    };
    let settings = serde_json::json!({
        "modelProviders": { "openai": [entry("scripted"), entry("scripted-b")] }
    });
    std::fs::write(qwen_dir.join("settings.json"), settings.to_string()).unwrap();
    pairs(&[
        ("OPENAI_BASE_URL", model.openai_url()),
        ("OPENAI_API_KEY", "sk-scripted".into()),
        ("OPENAI_MODEL", "scripted".into()),
        ("QWEN_HOME", home.join(".qwen").display().to_string()),
    ])
}

/// Claude Code's ACP build takes Claude Code's variables; as root, the Claude Code
/// it starts also needs `IS_SANDBOX` (it runs with permissions it may skip).
fn claude_code_acp_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let mut env = claude_env(model, home);
    env.push(("IS_SANDBOX".into(), "1".into()));
    env
}

/// Codex's ACP build reads Codex's configuration: the model server as its
/// provider; every command asked about (`untrusted`) and run outside Codex's own
/// sandbox, which needs bubblewrap; `OPENAI_BASE_URL` so that its model list is
/// asked of the model server rather than the internet.
fn codex_acp_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let mut env = codex_env(model, home);
    let config = home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.insert_str(
        0,
        "approval_policy = \"untrusted\"\nsandbox_mode = \"danger-full-access\"\n",
    );
    std::fs::write(&config, text).unwrap();
    env.push(("OPENAI_BASE_URL".into(), model.openai_url()));
    env
}

/// Pi's ACP build starts the Pi it finds as `PI_ACP_PI_COMMAND` (the one `npm ci`
/// installed, which it runs in Pi's RPC mode), and Pi reads its configuration as
/// when it runs alone: the model server as its provider.
fn pi_acp_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let mut env = pi_env(model, home);
    let pi = node_modules().join(".bin/pi");
    env.push(("PI_ACP_PI_COMMAND".into(), pi.display().to_string()));
    env
}
