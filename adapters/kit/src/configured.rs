//! Providers the agent's own configuration points elsewhere (a `base_url` in
//! Codex's `config.toml`, a `baseUrl` in Pi's `models.json`, a `baseURL` in
//! OpenCode's `opencode.json`): how an adapter carries their base URLs and keys to
//! the model gateway, and which provider a session's endpoint then stands for.
//!
//! The host takes a format's upstream from the `base-url-env` and `key-env`
//! variables of its `model-api`, and those include what `parse-credentials`
//! reports with an `env` name. So an adapter reports what the agent's files say in
//! variables of its own, which no agent reads, `AGENTPLEX_<AGENT>_<SLOT>_BASE_URL`,
//! `_API_KEY` and `_PROVIDER` (each a [`Slot`]):
//!
//! - a built-in provider's ([`Slot::builtin`], `AGENTPLEX_PI_ANTHROPIC_BASE_URL`),
//!   named among the built-in `model-api`'s variables;
//! - one custom provider's per format ([`Slot::custom`],
//!   `AGENTPLEX_PI_CUSTOM_CHAT_COMPLETIONS_BASE_URL`), its name in `_PROVIDER`,
//!   for a `model-api` of its own, labelled [`CUSTOM`], after the built-in one
//!   ([`ModelApi::with_custom`]). Of two `model-api`s of one format the host takes
//!   the first whose key it finds; the name is in no `model-api`'s variables, so
//!   the session's environment keeps it, and [`SessionConfig::endpoint_provider`]
//!   reads which provider an endpoint stands for.
//!
//! Without the gateway the agent's processes get these variables too; the agent
//! ignores them.
//!
//! ```
//! use sandbox_agent_adapter_kit::configured::{FileKey, CUSTOM};
//! use sandbox_agent_adapter_kit::types::{ModelApi, ModelApiFormat};
//!
//! let openrouter = ModelApi::through_environment(
//!     ModelApiFormat::OpenaiChatCompletions,
//!     "openrouter",
//!     "https://openrouter.ai/api/v1",
//!     &[],
//!     &["OPENROUTER_API_KEY"],
//! );
//! let [builtin, custom] = openrouter.by_adapter().with_custom("pi", Some(FileKey::Last));
//! assert_eq!(builtin.base_url_env, ["AGENTPLEX_PI_OPENROUTER_BASE_URL"]);
//! assert_eq!(builtin.key_env, ["OPENROUTER_API_KEY", "AGENTPLEX_PI_OPENROUTER_API_KEY"]);
//! assert_eq!(custom.provider, CUSTOM);
//! assert_eq!(custom.key_env, ["AGENTPLEX_PI_CUSTOM_CHAT_COMPLETIONS_API_KEY"]);
//! ```

use crate::types::{
    CredentialKind, CredentialValue, CredentialVariable, FoundCredential, ModelApi, ModelApiFormat,
    ModelEndpoint, SessionConfig,
};

/// The `provider` of a custom provider's `model-api`, and so of its endpoint.
pub const CUSTOM: &str = "custom";

/// Where a key the agent's configuration gives a built-in provider comes among the
/// format's key variables: where the agent looks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKey {
    /// Before the provider's own variables: the agent prefers the file's key.
    First,
    /// After them: the agent takes the file's key only when no variable is set.
    Last,
}

/// The variables of one provider whose base URL and key the agent's configuration
/// may set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// `AGENTPLEX_<AGENT>_<SLOT>`.
    prefix: String,
    /// Whether it stands for a custom provider, whose name it holds too.
    custom: bool,
}

impl Slot {
    /// The built-in `provider` of `agent`: `AGENTPLEX_PI_ANTHROPIC_*`.
    pub fn builtin(agent: &str, provider: &str) -> Self {
        Self::named(agent, provider, false)
    }

    /// The custom provider of `agent` whose calls are of `format`:
    /// `AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_*`, `_CUSTOM_RESPONSES_*`,
    /// `_CUSTOM_CHAT_COMPLETIONS_*`, `_CUSTOM_GEMINI_*`.
    pub fn custom(agent: &str, format: ModelApiFormat) -> Self {
        let slot = match format {
            ModelApiFormat::AnthropicMessages => "custom_anthropic_messages",
            ModelApiFormat::OpenaiResponses => "custom_responses",
            ModelApiFormat::OpenaiChatCompletions => "custom_chat_completions",
            ModelApiFormat::Gemini => "custom_gemini",
        };
        Self::named(agent, slot, true)
    }

    fn named(agent: &str, slot: &str, custom: bool) -> Self {
        let prefix = format!("AGENTPLEX_{agent}_{slot}")
            .to_ascii_uppercase()
            .replace('-', "_");
        Self { prefix, custom }
    }

    /// The variable of the provider's base URL, in the format's base-URL form.
    pub fn base_url_env(&self) -> String {
        format!("{}_BASE_URL", self.prefix)
    }

    /// The variable of the provider's key.
    pub fn key_env(&self) -> String {
        format!("{}_API_KEY", self.prefix)
    }

    /// The variable of a custom provider's name.
    pub fn provider_env(&self) -> String {
        format!("{}_PROVIDER", self.prefix)
    }

    /// The slot's variables for `credential-env`, as credentials of `provider`: its
    /// base URL (a setting) and key, and a custom slot's provider name (a setting).
    pub fn variables(&self, provider: &str) -> Vec<CredentialVariable> {
        let mut variables = vec![
            CredentialVariable::new(&self.base_url_env(), provider, CredentialKind::Setting),
            CredentialVariable::new(&self.key_env(), provider, CredentialKind::ApiKey),
        ];
        if self.custom {
            let name = self.provider_env();
            variables.push(CredentialVariable::new(
                &name,
                provider,
                CredentialKind::Setting,
            ));
        }
        variables
    }

    /// `provider`'s base URL found at `key` (a dotted path in the file), passed in
    /// [`Self::base_url_env`]; nothing unless it is an `http(s)` URL, since the host
    /// refuses a session whose upstream is not one.
    pub fn base_url(&self, provider: &str, key: &str, url: &str) -> Option<FoundCredential> {
        let url = url.trim();
        let scheme = url.split_once("://").map(|(scheme, _)| scheme);
        if !matches!(scheme, Some("http" | "https")) {
            return None;
        }
        let url = url.trim_end_matches('/').to_owned();
        Some(self.found(
            provider,
            CredentialKind::Setting,
            key,
            url,
            self.base_url_env(),
        ))
    }

    /// `provider`'s key found at `key`, passed in [`Self::key_env`].
    pub fn key(&self, provider: &str, key: &str, value: CredentialValue) -> FoundCredential {
        FoundCredential {
            provider: provider.to_owned(),
            kind: CredentialKind::ApiKey,
            key: key.to_owned(),
            value,
            env: Some(self.key_env()),
        }
    }

    /// The name of the custom provider, found at `key`, passed in
    /// [`Self::provider_env`].
    pub fn name(&self, key: &str, provider: &str) -> FoundCredential {
        let name = provider.to_owned();
        self.found(
            provider,
            CredentialKind::Setting,
            key,
            name,
            self.provider_env(),
        )
    }

    fn found(
        &self,
        provider: &str,
        kind: CredentialKind,
        key: &str,
        value: String,
        env: String,
    ) -> FoundCredential {
        FoundCredential {
            provider: provider.to_owned(),
            kind,
            key: key.to_owned(),
            value: CredentialValue::Literal(value),
            env: Some(env),
        }
    }
}

/// `url` without its trailing `/` and then `suffix` (`/v1beta`), the form of a
/// format's base URL when the agent writes it with a version the endpoint's form
/// lacks; `None` when it does not end so.
pub fn without_suffix<'a>(url: &'a str, suffix: &str) -> Option<&'a str> {
    url.trim().trim_end_matches('/').strip_suffix(suffix)
}

impl ModelApi {
    /// This built-in provider's format, its base URL first from the variable of
    /// [`Slot::builtin`] and its key from that slot's too where `key` says (none:
    /// the agent's configuration gives it no key); then a custom provider's calls
    /// of the same format, labelled [`CUSTOM`], from the variables of
    /// [`Slot::custom`] (else the same default base URL). The host takes the
    /// built-in one when it finds its key, else the custom one when it finds that
    /// one's; a broker (`--broker`) takes the built-in one.
    pub fn with_custom(self, agent: &str, key: Option<FileKey>) -> [Self; 2] {
        let builtin = Slot::builtin(agent, &self.provider);
        let custom = Slot::custom(agent, self.format);
        let custom = Self::through_environment(
            self.format,
            CUSTOM,
            &self.default_base_url,
            &[&custom.base_url_env()],
            &[&custom.key_env()],
        )
        .by_adapter();
        let mut base_url_env = vec![builtin.base_url_env()];
        base_url_env.extend(self.base_url_env);
        let mut key_env = self.key_env;
        match key {
            Some(FileKey::First) => key_env.insert(0, builtin.key_env()),
            Some(FileKey::Last) => key_env.push(builtin.key_env()),
            None => {}
        }
        let builtin = Self {
            base_url_env,
            key_env,
            ..self
        };
        [builtin, custom]
    }
}

impl SessionConfig {
    /// The custom provider of `format` the agent's configuration names (the last
    /// value of the session's variable [`Slot::provider_env`]).
    pub fn configured_provider(&self, agent: &str, format: ModelApiFormat) -> Option<&str> {
        self.variable(&Slot::custom(agent, format).provider_env())
    }

    /// The provider `endpoint` stands for: its `model-api`'s, or for a [`CUSTOM`]
    /// one the custom provider [`Self::configured_provider`] names (`None` when none
    /// is named).
    pub fn endpoint_provider(&self, agent: &str, endpoint: &ModelEndpoint) -> Option<String> {
        if endpoint.provider != CUSTOM {
            return Some(endpoint.provider.clone());
        }
        self.configured_provider(agent, endpoint.format)
            .map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> ModelApi {
        ModelApi::through_environment(
            ModelApiFormat::AnthropicMessages,
            "anthropic",
            "https://api.anthropic.com",
            &[],
            &["ANTHROPIC_API_KEY"],
        )
        .by_adapter()
    }

    #[test]
    fn a_built_in_provider_and_a_custom_one_each_have_their_variables() {
        let [first, second] = builtin().with_custom("pi", Some(FileKey::Last));
        assert_eq!(first.provider, "anthropic");
        assert_eq!(first.base_url_env, ["AGENTPLEX_PI_ANTHROPIC_BASE_URL"]);
        assert_eq!(
            first.key_env,
            ["ANTHROPIC_API_KEY", "AGENTPLEX_PI_ANTHROPIC_API_KEY"]
        );
        assert_eq!(second.provider, CUSTOM);
        assert_eq!(second.default_base_url, "https://api.anthropic.com");
        assert_eq!(
            second.base_url_env,
            ["AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_BASE_URL"]
        );
        assert_eq!(
            second.key_env,
            ["AGENTPLEX_PI_CUSTOM_ANTHROPIC_MESSAGES_API_KEY"]
        );
        let [first_key, _] = builtin().with_custom("opencode", Some(FileKey::First));
        assert_eq!(
            first_key.key_env,
            ["AGENTPLEX_OPENCODE_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"]
        );
        let [no_key, _] = builtin().with_custom("x", None);
        assert_eq!(no_key.key_env, ["ANTHROPIC_API_KEY"]);

        let names = |slot: &Slot| -> Vec<String> {
            slot.variables("p").into_iter().map(|v| v.name).collect()
        };
        assert_eq!(names(&Slot::builtin("pi", "google")).len(), 2);
        assert_eq!(
            names(&Slot::custom("open-x", ModelApiFormat::Gemini)),
            [
                "AGENTPLEX_OPEN_X_CUSTOM_GEMINI_BASE_URL",
                "AGENTPLEX_OPEN_X_CUSTOM_GEMINI_API_KEY",
                "AGENTPLEX_OPEN_X_CUSTOM_GEMINI_PROVIDER"
            ]
        );
    }

    #[test]
    fn only_a_web_address_is_a_base_url() {
        let slot = Slot::builtin("pi", "openai");
        let found = slot.base_url(
            "openai",
            "providers.openai.baseUrl",
            " http://proxy.test/v1/ ",
        );
        let found = found.expect("a URL");
        assert_eq!(
            found.value,
            CredentialValue::Literal("http://proxy.test/v1".into())
        );
        assert_eq!(found.env.as_deref(), Some("AGENTPLEX_PI_OPENAI_BASE_URL"));
        assert_eq!(found.kind, CredentialKind::Setting);
        for not_one in ["proxy.test/v1", "{env:BASE}", "file:///x", ""] {
            assert!(slot.base_url("openai", "k", not_one).is_none(), "{not_one}");
        }
        assert_eq!(
            without_suffix("https://g.test/v1beta/", "/v1beta"),
            Some("https://g.test")
        );
        assert_eq!(without_suffix("https://g.test/v1", "/v1beta"), None);
    }

    #[test]
    fn an_endpoint_stands_for_its_provider_or_the_custom_one_named() {
        let mut config = SessionConfig {
            session_id: "s1".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            directory: "/workspace".into(),
            agent_binary: None,
            env: Vec::new(),
            resume_native_session_id: None,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: String::new(),
            model_endpoints: Vec::new(),
            policy: None,
        };
        let endpoint = |format, provider: &str| ModelEndpoint {
            format,
            provider: provider.into(),
            base_url: "http://127.0.0.1:7070/s/apx_test/x".into(),
            token: "apx_test".into(),
        };
        let custom = endpoint(ModelApiFormat::OpenaiChatCompletions, CUSTOM);
        let openai = endpoint(ModelApiFormat::OpenaiResponses, "openai");
        assert_eq!(config.endpoint_provider("pi", &custom), None);
        assert_eq!(
            config.endpoint_provider("pi", &openai).as_deref(),
            Some("openai")
        );
        let name = Slot::custom("pi", ModelApiFormat::OpenaiChatCompletions).provider_env();
        config.env = vec![(name.clone(), "first".into()), (name, "local".into())];
        assert_eq!(
            config.endpoint_provider("pi", &custom).as_deref(),
            Some("local")
        );
        assert_eq!(
            config.configured_provider("pi", ModelApiFormat::OpenaiChatCompletions),
            Some("local")
        );
        assert_eq!(
            config.configured_provider("pi", ModelApiFormat::Gemini),
            None
        );
    }
}
