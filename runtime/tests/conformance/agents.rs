//! The real agents under test: where `npm ci` in `testing/agents` puts each one's
//! native binary, and how the test points it at the scripted model server.

use std::path::{Path, PathBuf};

use agentplex_model_server::ModelServer;

/// One agent CLI the suite drives.
pub struct Agent {
    /// Agent id in the API.
    pub id: &'static str,
    /// The npm package whose version the test shows and expects (relative to
    /// `node_modules`).
    pub package: fn() -> String,
    /// The permission mode in which the agent can ask the user questions
    /// (Codex offers its question tool only in plan mode).
    pub question_mode: &'static str,
    /// The agent can only resume a session in a later wall-clock minute than the
    /// one it started in (Gemini CLI 0.61.0's `session/load` bug: see
    /// adapters/gemini/README.md), so the resume check exits it in the next minute.
    pub resumes_next_minute: bool,
    /// The native binary, relative to `testing/agents/node_modules`.
    binary: fn() -> String,
    /// Variables that point the agent at the model server (`home` is the agent's
    /// private home directory).
    env: fn(&ModelServer, &Path) -> Vec<(String, String)>,
}

/// Every agent the conformance suite covers.
pub const AGENTS: &[Agent] = &[
    Agent {
        id: "claude",
        package: || "@anthropic-ai/claude-code".into(),
        question_mode: "default",
        resumes_next_minute: false,
        binary: || format!("@anthropic-ai/claude-code-linux-{}/claude", npm_arch()),
        env: claude_env,
    },
    Agent {
        id: "codex",
        package: || "@openai/codex".into(),
        question_mode: "plan",
        resumes_next_minute: false,
        binary: || {
            format!(
                "@openai/codex-linux-{}/vendor/{}-unknown-linux-musl/bin/codex",
                npm_arch(),
                std::env::consts::ARCH
            )
        },
        env: codex_env,
    },
    Agent {
        id: "opencode",
        // The platform package itself (see testing/agents/package.json).
        package: || format!("opencode-linux-{}", npm_arch()),
        question_mode: "default",
        resumes_next_minute: false,
        binary: || format!("opencode-linux-{}/bin/opencode", npm_arch()),
        env: opencode_env,
    },
    Agent {
        id: "pi",
        package: || "@mariozechner/pi-coding-agent".into(),
        question_mode: "default",
        resumes_next_minute: false,
        // A Node script (its `bin` entry `pi`); the harness finds it as `node <script>`.
        binary: || "@mariozechner/pi-coding-agent/dist/cli.js".into(),
        env: pi_env,
    },
    Agent {
        id: "gemini",
        package: || "@google/gemini-cli".into(),
        question_mode: "default",
        resumes_next_minute: true,
        // A Node script (its `bin` entry `gemini`), like Pi's.
        binary: || "@google/gemini-cli/bundle/gemini.js".into(),
        env: gemini_env,
    },
    Agent {
        id: "qwen",
        package: || "../qwen/node_modules/@qwen-code/qwen-code".into(),
        question_mode: "default",
        resumes_next_minute: false,
        // A Node script (its `bin` entry `qwen`), driven by the kit's generic ACP
        // session; installed apart, in `testing/agents/qwen` (see its package.json).
        binary: || "../qwen/node_modules/@qwen-code/qwen-code/cli-entry.js".into(),
        env: qwen_env,
    },
];

impl Agent {
    /// The agent by id.
    pub fn named(id: &str) -> &'static Agent {
        AGENTS.iter().find(|a| a.id == id).expect("a known agent")
    }

    /// The installed native binary, when `npm ci` ran in `testing/agents`.
    pub fn binary(&self) -> Option<PathBuf> {
        let path = node_modules().join((self.binary)());
        path.is_file().then_some(path)
    }

    /// The version `testing/agents/package-lock.json` pinned (from the installed package).
    pub fn pinned_version(&self) -> String {
        let manifest = node_modules().join((self.package)()).join("package.json");
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
/// knows (so it offers its `apply_patch` tool); the provider is the model server.
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
         wire_api = \"responses\"\n",
        model.openai_url()
    );
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    pairs(&[
        ("CODEX_HOME", codex_home.display().to_string()),
        ("SCRIPTED_API_KEY", "sk-scripted".into()),
    ])
}

/// OpenCode reads its global configuration from `$XDG_CONFIG_HOME/opencode/` (the
/// harness sets `XDG_CONFIG_HOME` to the home's `.config`): the model server as a
/// custom openai-compatible provider. A file, not `OPENCODE_CONFIG_CONTENT`, so that
/// the adapter finds its base URL and key for the model gateway, as it would a
/// user's (the text of a variable is no file it can be handed).
fn opencode_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    let config_dir = home.join(".config/opencode");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = serde_json::json!({
        "provider": {
            "scripted": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": { "baseURL": model.openai_url(), "apiKey": "sk-scripted" },
                "models": { "scripted": { "name": "Scripted" } }
            }
        },
        "model": "scripted/scripted",
        "autoupdate": false,
        "share": "disabled"
    });
    std::fs::write(config_dir.join("opencode.json"), config.to_string()).unwrap();
    Vec::new()
}

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
                             "input": ["text", "image"] }]
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
/// pointed at the model server; its folder is the agent's private home.
fn qwen_env(model: &ModelServer, home: &Path) -> Vec<(String, String)> {
    pairs(&[
        ("OPENAI_BASE_URL", model.openai_url()),
        ("OPENAI_API_KEY", "sk-scripted".into()),
        ("OPENAI_MODEL", "scripted".into()),
        ("QWEN_HOME", home.join(".qwen").display().to_string()),
    ])
}
