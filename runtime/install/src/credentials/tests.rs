//! The credentials module on fixture home folders: every agent's files, the
//! precedence of the environment, malformed files, isolation between agents.

use std::path::Path;

use super::*;

/// Fake secrets, long enough to be redacted with a prefix and a suffix.
const CLAUDE_OAUTH: &str = "sk-ant-oat01-claude-login-fixture-0001";
const CLAUDE_KEY: &str = "sk-ant-api03-claude-json-fixture-0002";
const CODEX_KEY: &str = "sk-proj-codex-auth-json-fixture-0003";
const CODEX_OAUTH: &str = "eyJhbGciOiJSUzI1NiJ9.codex-chatgpt-0004";
const OPENCODE_KEY: &str = "sk-ant-api03-opencode-fixture-0005";
const OPENCODE_OAUTH: &str = "opencode-openai-oauth-fixture-0006";
const AMP_KEY: &str = "sgamp_user_amp-secrets-fixture-0007";
const PI_KEY: &str = "sk-ant-api03-pi-auth-fixture-0008";
const PI_OAUTH: &str = "pi-openai-codex-oauth-fixture-0009";
const PI_MODELS_KEY: &str = "custom-provider-models-json-0010";
const GEMINI_KEY: &str = "AIzaSy-gemini-dotenv-fixture-0011";
const GEMINI_OAUTH: &str = "ya29.gemini-oauth-creds-fixture-0012";
const ENV_KEY: &str = "sk-ant-api03-from-the-environment-0013";

/// The builtin adapters, which know where each agent keeps its credentials.
fn adapter(agent: &str) -> std::sync::Arc<LoadedAdapter> {
    static REGISTRY: std::sync::OnceLock<agentplex_host::AdapterRegistry> =
        std::sync::OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            agentplex_builtins::builtin_registry(agentplex_host::HostConfig::default()).unwrap()
        })
        .get(agent)
        .unwrap_or_else(|| panic!("no builtin adapter {agent}"))
}

/// Writes a file, making its folders.
fn write(home: &Path, relative: &str, text: &str) {
    let path = home.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A home folder with every agent's credential files.
fn fixture_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        ".claude/.credentials.json",
        &format!(
            r#"{{"claudeAiOauth":{{"accessToken":"{CLAUDE_OAUTH}","refreshToken":"r","expiresAt":1,"scopes":[],"subscriptionType":"max"}}}}"#
        ),
    );
    write(
        h,
        ".claude.json",
        &format!(r#"{{"numStartups":3,"primaryApiKey":"{CLAUDE_KEY}"}}"#),
    );
    write(
        h,
        ".codex/auth.json",
        &format!(
            r#"{{"auth_mode":"apikey","OPENAI_API_KEY":"{CODEX_KEY}","tokens":{{"id_token":"i","access_token":"{CODEX_OAUTH}","refresh_token":"r","account_id":"a"}}}}"#
        ),
    );
    write(
        h,
        ".local/share/opencode/auth.json",
        &format!(
            r#"{{"anthropic":{{"type":"api","key":"{OPENCODE_KEY}"}},"openai":{{"type":"oauth","access":"{OPENCODE_OAUTH}","refresh":"r","expires":1}}}}"#
        ),
    );
    write(
        h,
        ".local/share/amp/secrets.json",
        &format!(r#"{{"apiKey@https://ampcode.com/":"{AMP_KEY}"}}"#),
    );
    write(
        h,
        ".pi/agent/auth.json",
        &format!(
            r#"{{"anthropic":{{"type":"api_key","key":"{PI_KEY}"}},"openai-codex":{{"type":"oauth","access":"{PI_OAUTH}","refresh":"r","expires":1}}}}"#
        ),
    );
    write(
        h,
        ".pi/agent/models.json",
        &format!(
            r#"{{"providers":{{"my-proxy":{{"baseUrl":"http://127.0.0.1:1","apiKey":"{PI_MODELS_KEY}"}}}}}}"#
        ),
    );
    write(
        h,
        ".gemini/.env",
        &format!("# Gemini\nexport GEMINI_API_KEY=\"{GEMINI_KEY}\"\nOTHER=1\n"),
    );
    write(
        h,
        ".gemini/oauth_creds.json",
        &format!(r#"{{"access_token":"{GEMINI_OAUTH}","refresh_token":"r","expiry_date":1}}"#),
    );
    home
}

/// A lookup with no environment but `HOME`, plus `env`.
fn lookup(home: &Path, env: &[(&str, &str)]) -> Lookup {
    Lookup::new(
        std::iter::once(("HOME".to_owned(), home.display().to_string())).chain(
            env.iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
        ),
    )
}

fn scan_agent(agent: &str, lookup: &Lookup) -> Scan {
    scan(&adapter(agent), lookup)
}

/// The credential with this value, which must be there.
fn with_value<'a>(scan: &'a Scan, value: &str) -> &'a Credential {
    scan.credentials
        .iter()
        .find(|c| c.value.expose() == value)
        .unwrap_or_else(|| panic!("no credential {value:?} in {:#?}", scan.credentials))
}

/// The file source of a credential: its path relative to `home`, and the key.
fn file_source(credential: &Credential, home: &Path) -> (String, String) {
    match &credential.source {
        Source::File { path, key } => (
            path.strip_prefix(home).unwrap().display().to_string(),
            key.clone(),
        ),
        other => panic!("not a file source: {other}"),
    }
}

#[test]
fn redaction_shows_a_prefix_and_the_last_four_only() {
    let key = Secret::new("sk-ant-api03-0123456789abcdefghijklmnop-wxyz");
    assert_eq!(key.redacted(), "sk-ant-…wxyz");
    assert_eq!(key.to_string(), key.redacted());
    assert_eq!(format!("{key:?}"), "Secret(sk-ant-…wxyz)");
    assert_eq!(serde_json::to_string(&key).unwrap(), "\"sk-ant-…wxyz\"");
    assert_eq!(
        Secret::new("AIzaSyA0123456789abcdefghij-klm").redacted(),
        "AIza…-klm"
    );
    assert_eq!(
        Secret::new("abcdefghijklmnopqrstuvwxyz").redacted(),
        "abcd…wxyz"
    );
    assert_eq!(Secret::new("short-secret-1234").redacted(), "…");
    assert_eq!(Secret::new("").redacted(), "…");
    // Multi-byte characters are cut at character boundaries.
    assert_eq!(
        Secret::new("ééééééééééééééééééééééééé").redacted(),
        "éééé…éééé"
    );
}

#[test]
fn redacted_forms_never_hold_the_middle_of_a_secret() {
    let home = fixture_home();
    let lookup = lookup(home.path(), &[]);
    for agent in ["claude", "codex", "opencode", "amp", "pi", "gemini"] {
        let scan = scan_agent(agent, &lookup);
        assert!(!scan.credentials.is_empty(), "{agent}: nothing found");
        for credential in &scan.credentials {
            let value = credential.value.expose();
            let middle = &value[8..value.len() - 4];
            let shown = format!(
                "{credential} {credential:?} {}",
                serde_json::to_string(credential).unwrap()
            );
            assert!(!shown.contains(middle), "{agent}: {shown}");
        }
    }
}

#[test]
fn every_agents_files_are_read() {
    let home = fixture_home();
    let h = home.path();
    let lookup = lookup(h, &[]);
    // (agent, value, provider, kind, file, key, passed as)
    let expected = [
        (
            "claude",
            CLAUDE_OAUTH,
            "anthropic",
            Kind::OauthToken,
            ".claude/.credentials.json",
            "claudeAiOauth.accessToken",
            None,
        ),
        (
            "claude",
            CLAUDE_KEY,
            "anthropic",
            Kind::ApiKey,
            ".claude.json",
            "primaryApiKey",
            Some("ANTHROPIC_API_KEY"),
        ),
        (
            "codex",
            CODEX_KEY,
            "openai",
            Kind::ApiKey,
            ".codex/auth.json",
            "OPENAI_API_KEY",
            Some("OPENAI_API_KEY"),
        ),
        (
            "codex",
            CODEX_OAUTH,
            "openai",
            Kind::OauthToken,
            ".codex/auth.json",
            "tokens.access_token",
            None,
        ),
        (
            "opencode",
            OPENCODE_KEY,
            "anthropic",
            Kind::ApiKey,
            ".local/share/opencode/auth.json",
            "anthropic.key",
            Some("ANTHROPIC_API_KEY"),
        ),
        (
            "opencode",
            OPENCODE_OAUTH,
            "openai",
            Kind::OauthToken,
            ".local/share/opencode/auth.json",
            "openai.access",
            None,
        ),
        (
            "amp",
            AMP_KEY,
            "amp",
            Kind::ApiKey,
            ".local/share/amp/secrets.json",
            "apiKey@https://ampcode.com/",
            Some("AMP_API_KEY"),
        ),
        (
            "pi",
            PI_KEY,
            "anthropic",
            Kind::ApiKey,
            ".pi/agent/auth.json",
            "anthropic.key",
            Some("ANTHROPIC_API_KEY"),
        ),
        (
            "pi",
            PI_OAUTH,
            "openai-codex",
            Kind::OauthToken,
            ".pi/agent/auth.json",
            "openai-codex.access",
            None,
        ),
        (
            "pi",
            PI_MODELS_KEY,
            "my-proxy",
            Kind::ApiKey,
            ".pi/agent/models.json",
            "providers.my-proxy.apiKey",
            None,
        ),
        (
            "gemini",
            GEMINI_KEY,
            "google",
            Kind::ApiKey,
            ".gemini/.env",
            "GEMINI_API_KEY",
            Some("GEMINI_API_KEY"),
        ),
        (
            "gemini",
            GEMINI_OAUTH,
            "google",
            Kind::OauthToken,
            ".gemini/oauth_creds.json",
            "access_token",
            None,
        ),
    ];
    for agent in ["claude", "codex", "opencode", "amp", "pi", "gemini"] {
        let scan = scan_agent(agent, &lookup);
        assert!(scan.warnings.is_empty(), "{agent}: {:?}", scan.warnings);
        let mine: Vec<_> = expected.iter().filter(|e| e.0 == agent).collect();
        assert_eq!(
            scan.credentials.len(),
            mine.len(),
            "{agent}: {:#?}",
            scan.credentials
        );
        for (_, value, provider, kind, file, key, passed_as) in mine {
            let credential = with_value(&scan, value);
            assert_eq!(credential.agent, agent);
            assert_eq!(credential.provider, *provider, "{value}");
            assert_eq!(credential.kind, *kind, "{value}");
            assert_eq!(
                file_source(credential, h),
                ((*file).to_owned(), (*key).to_owned())
            );
            assert_eq!(credential.passed_as.as_deref(), *passed_as, "{value}");
        }
        assert!(scan.available(), "{agent}");
    }
}

#[test]
fn a_key_only_in_a_file_is_passed_as_the_agents_variable() {
    let home = fixture_home();
    let env = scan_agent("codex", &lookup(home.path(), &[])).session_env();
    assert_eq!(env, [("OPENAI_API_KEY".to_owned(), CODEX_KEY.to_owned())]);
    let env = scan_agent("amp", &lookup(home.path(), &[])).session_env();
    assert_eq!(env, [("AMP_API_KEY".to_owned(), AMP_KEY.to_owned())]);
}

#[test]
fn the_environment_wins_over_files() {
    let home = fixture_home();
    let lookup = lookup(
        home.path(),
        &[("ANTHROPIC_API_KEY", ENV_KEY), ("OPENAI_API_KEY", "")],
    );
    let scan = scan_agent("claude", &lookup);
    let from_env = &scan.credentials[0];
    assert_eq!(
        from_env.source,
        Source::Env {
            variable: "ANTHROPIC_API_KEY".into()
        }
    );
    assert_eq!(from_env.value.expose(), ENV_KEY);
    assert_eq!(from_env.kind, Kind::ApiKey);
    assert_eq!(with_value(&scan, CLAUDE_KEY).passed_as, None);
    assert_eq!(
        scan.session_env(),
        [("ANTHROPIC_API_KEY".to_owned(), ENV_KEY.to_owned())]
    );
    // An empty variable counts as unset: the file's key is passed.
    let codex = scan_agent("codex", &lookup);
    assert_eq!(
        codex.session_env(),
        [("OPENAI_API_KEY".to_owned(), CODEX_KEY.to_owned())]
    );
}

#[test]
fn logins_stay_in_their_files() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".claude/.credentials.json",
        &format!(r#"{{"claudeAiOauth":{{"accessToken":"{CLAUDE_OAUTH}"}}}}"#),
    );
    let scan = scan_agent("claude", &lookup(home.path(), &[]));
    assert!(scan.available());
    assert_eq!(scan.credentials.len(), 1);
    assert!(scan.session_env().is_empty());
}

#[test]
fn an_agent_gets_none_of_the_other_agents_credentials() {
    let home = fixture_home();
    let lookup = lookup(
        home.path(),
        &[("AMP_API_KEY", "sgamp_user_from-env-0000000000000000")],
    );
    let claude = scan_agent("claude", &lookup);
    let values: Vec<&str> = claude
        .credentials
        .iter()
        .map(|c| c.value.expose())
        .collect();
    assert_eq!(values, [CLAUDE_OAUTH, CLAUDE_KEY]);
    let names: Vec<String> = claude
        .session_env()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, ["ANTHROPIC_API_KEY"]);
    // An agent without config files of its own (the mock, a third-party adapter)
    // gets only its variables.
    let none = scan_agent("mock", &lookup);
    assert!(none.credentials.is_empty() && none.warnings.is_empty());
}

#[test]
fn other_agents_variables_are_removed_from_a_session() {
    let lists: Vec<Vec<String>> = [
        &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"][..],
        &["OPENAI_API_KEY", "CODEX_API_KEY"],
        &["AMP_API_KEY"],
        &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENCODE_API_KEY"],
    ]
    .iter()
    .map(|names| names.iter().map(|name| (*name).to_owned()).collect())
    .collect();
    let foreign = foreign_variables(&lists[0], lists.iter().cloned());
    assert_eq!(
        foreign,
        [
            "AMP_API_KEY",
            "CODEX_API_KEY",
            "OPENAI_API_KEY",
            "OPENCODE_API_KEY"
        ]
    );
    let all = foreign_variables(&[], lists.iter().cloned());
    assert!(
        all.contains(&"ANTHROPIC_API_KEY".to_owned()) && all.len() == 6,
        "{all:?}"
    );
}

#[test]
fn malformed_files_give_warnings_and_the_rest_still_counts() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(h, ".claude/.credentials.json", "{not json");
    write(
        h,
        ".claude.json",
        &format!(r#"{{"primaryApiKey":"{CLAUDE_KEY}"}}"#),
    );
    write(
        h,
        ".codex/auth.json",
        r#"{"OPENAI_API_KEY":42,"tokens":"x"}"#,
    );
    write(
        h,
        ".local/share/opencode/auth.json",
        &format!(
            r#"{{"bad":{{"type":"magic"}},"anthropic":{{"type":"api","key":"{OPENCODE_KEY}"}}}}"#
        ),
    );
    write(h, ".local/share/amp/secrets.json", "[1, 2]");
    write(h, ".pi/agent/models.json", r#"{"providers":["x"]}"#);
    write(h, ".gemini/.env", "GEMINI_API_KEY=\"unterminated\n");
    std::fs::create_dir_all(h.join(".pi/agent/auth.json")).unwrap();
    let lookup = lookup(h, &[]);

    let warnings = |agent: &str| -> Vec<String> {
        scan_agent(agent, &lookup)
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let claude = scan_agent("claude", &lookup);
    assert_eq!(claude.warnings.len(), 1, "{:?}", claude.warnings);
    assert!(claude.warnings[0].message.starts_with("not valid JSON"));
    assert!(claude.warnings[0]
        .path
        .ends_with(".claude/.credentials.json"));
    assert_eq!(claude.session_env()[0].1, CLAUDE_KEY);

    let codex = warnings("codex");
    assert!(
        codex[0].ends_with("`OPENAI_API_KEY` is not a string"),
        "{codex:?}"
    );
    assert!(codex[1].ends_with("`tokens` is not an object"), "{codex:?}");

    let opencode = scan_agent("opencode", &lookup);
    assert!(opencode.warnings[0]
        .message
        .contains("`bad` has no known `type`"));
    assert_eq!(opencode.credentials.len(), 1);

    assert!(warnings("amp")[0].ends_with("not a JSON object"));
    let pi = warnings("pi");
    assert!(pi[0].contains("auth.json: cannot read"), "{pi:?}");
    assert!(pi[1].ends_with("`providers` is not an object"), "{pi:?}");
    assert!(warnings("gemini")[0].contains("not a valid dotenv file"));
}

#[test]
fn pi_keys_resolve_like_pi_does() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".pi/agent/auth.json",
        r#"{"anthropic":{"type":"api_key","key":"MY_ANTHROPIC_KEY"},
            "openai":{"type":"api_key","key":"!pass show openai-key-for-pi"}}"#,
    );
    let scan = scan_agent("pi", &lookup(home.path(), &[("MY_ANTHROPIC_KEY", ENV_KEY)]));
    let resolved = with_value(&scan, ENV_KEY);
    assert_eq!(resolved.kind, Kind::ApiKey);
    assert_eq!(resolved.passed_as.as_deref(), Some("ANTHROPIC_API_KEY"));
    let command = with_value(&scan, "!pass show openai-key-for-pi");
    assert_eq!(command.kind, Kind::Command);
    assert_eq!(command.passed_as, None);
}

/// The value of `variable` among a session's variables.
fn passed<'a>(env: &'a [(String, String)], variable: &str) -> Option<&'a str> {
    env.iter()
        .find(|(name, _)| name == variable)
        .map(|(_, value)| value.as_str())
}

#[test]
fn a_key_a_file_names_a_variable_for_is_the_sessions_when_it_sets_it() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".codex/config.toml",
        "model_provider = \"proxy\"\n[model_providers.proxy]\n\
         base_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"PROXY_KEY\"\n",
    );
    write(
        home.path(),
        ".pi/agent/auth.json",
        r#"{"anthropic":{"type":"api_key","key":"MY_ANTHROPIC_KEY"}}"#,
    );
    let daemon = [
        ("PROXY_KEY", "key-of-the-daemon"),
        ("MY_ANTHROPIC_KEY", ENV_KEY),
    ];
    let session = [
        ("PROXY_KEY".to_owned(), "key-of-the-session".to_owned()),
        ("MY_ANTHROPIC_KEY".to_owned(), PI_KEY.to_owned()),
    ];
    // The daemon's environment alone, then a session's over it.
    let env = |agent: &str, daemon: &[(&str, &str)], session: &[(String, String)]| {
        let lookup = lookup(home.path(), daemon).with_overrides(session);
        scan_agent(agent, &lookup).session_env()
    };
    let codex = scan_agent("codex", &lookup(home.path(), &daemon));
    // The variable the adapter passes the custom provider's key in.
    let key = codex
        .credentials
        .iter()
        .find(|c| matches!(&c.source, Source::File { key, .. } if key.ends_with("env_key")))
        .and_then(|c| c.passed_as.clone())
        .expect("the provider's key");
    let key = key.as_str();
    assert_eq!(
        passed(&env("codex", &daemon, &[]), key),
        Some("key-of-the-daemon")
    );
    assert_eq!(
        passed(&env("codex", &daemon, &session), key),
        Some("key-of-the-session")
    );
    let key = "ANTHROPIC_API_KEY";
    assert_eq!(passed(&env("pi", &daemon, &[]), key), Some(ENV_KEY));
    assert_eq!(passed(&env("pi", &daemon, &session), key), Some(PI_KEY));
    // Unset in the daemon's environment, the name is the value until a session sets it.
    assert_eq!(passed(&env("pi", &[], &[]), key), Some("MY_ANTHROPIC_KEY"));
    assert_eq!(passed(&env("pi", &[], &session), key), Some(PI_KEY));
}

#[test]
fn agents_folder_variables_move_files_unless_a_home_is_given() {
    let home = fixture_home();
    let elsewhere = tempfile::tempdir().unwrap();
    let moved_key = "sk-proj-codex-home-elsewhere-0000";
    write(
        elsewhere.path(),
        "codex/auth.json",
        &format!(r#"{{"OPENAI_API_KEY":"{moved_key}"}}"#),
    );
    write(
        elsewhere.path(),
        "data/amp/secrets.json",
        &format!(r#"{{"apiKey@https://ampcode.com/":"{moved_key}"}}"#),
    );
    let env = [
        ("CODEX_HOME", elsewhere.path().join("codex")),
        ("XDG_DATA_HOME", elsewhere.path().join("data")),
    ];
    let env: Vec<(&str, &str)> = env
        .iter()
        .map(|(name, path)| (*name, path.to_str().unwrap()))
        .collect();
    let honored = lookup(home.path(), &env);
    for agent in ["codex", "amp"] {
        let scan = scan_agent(agent, &honored);
        assert_eq!(scan.session_env()[0].1, moved_key, "{agent}");
    }
    let ignored = honored.with_home(home.path().to_owned());
    assert_eq!(scan_agent("codex", &ignored).session_env()[0].1, CODEX_KEY);
    assert_eq!(scan_agent("amp", &ignored).session_env()[0].1, AMP_KEY);
}

#[test]
fn no_home_and_no_files_find_nothing() {
    let empty = tempfile::tempdir().unwrap();
    let no_home = Lookup::new(Vec::new());
    for agent in ["claude", "codex", "opencode", "amp", "pi", "gemini"] {
        for lookup in [&no_home, &lookup(empty.path(), &[])] {
            let scan = scan_agent(agent, lookup);
            assert!(scan.credentials.is_empty() && scan.warnings.is_empty());
            assert!(!scan.available());
        }
    }
}

#[test]
fn a_setting_is_passed_but_is_no_credential() {
    let home = tempfile::tempdir().unwrap();
    let scan = scan_agent(
        "gemini",
        &lookup(
            home.path(),
            &[("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")],
        ),
    );
    assert_eq!(scan.credentials[0].kind, Kind::Setting);
    assert!(!scan.available());
    assert_eq!(scan.session_env().len(), 1);
}

#[test]
fn a_sessions_directory_and_a_variables_text_are_read_merged_where_the_adapter_names_them() {
    let home = tempfile::tempdir().unwrap();
    let global = r#"{"provider": {"openai": {"options":
        {"baseURL": "https://global.test/v1", "apiKey": "sk-global-fixture-0101"}}}}"#;
    write(home.path(), ".config/opencode/opencode.json", global);
    let project = tempfile::tempdir().unwrap();
    let project_config =
        r#"{"provider": {"openai": {"options": {"baseURL": "https://project.test/v1"}}}}"#;
    write(project.path(), "opencode.json", project_config);
    std::fs::create_dir_all(project.path().join("sub")).unwrap();
    let content = r#"{"provider": {"openai": {"options": {"apiKey": "{env:TEAM_KEY}"}}}} // set"#;
    let env = [
        ("PWD", project.path().to_str().unwrap()),
        ("TEAM_KEY", "sk-team-fixture-0102"),
    ];
    let daemon = lookup(home.path(), &env);
    // The values passed to sessions (those no earlier place set): these are, and
    // those are not.
    let expect = |lookup: &Lookup, passed: &[&str], not_passed: &[&str]| {
        let env = scan_agent("opencode", lookup).session_env();
        let found: Vec<&str> = env.iter().map(|(_, value)| value.as_str()).collect();
        for value in passed {
            assert!(found.contains(value), "{value} not passed: {found:?}");
        }
        for value in not_passed {
            assert!(!found.contains(value), "{value} passed: {found:?}");
        }
    };
    // The daemon's own PWD is never the agent's directory.
    expect(&daemon, &["https://global.test/v1"], &[]);
    let session = daemon.clone().in_directory(project.path().join("sub"));
    expect(
        &session,
        &["https://project.test/v1", "sk-global-fixture-0101"],
        &["https://global.test/v1"],
    );
    // A git work tree in `sub` (a `.git` folder): the project's file above it is
    // not OpenCode's, nor read.
    write(
        &project.path().join("sub"),
        ".git/HEAD",
        "ref: refs/heads/main\n",
    );
    expect(&session, &["https://global.test/v1"], &[]);
    std::fs::remove_dir_all(project.path().join("sub/.git")).unwrap();
    let overrides = [("OPENCODE_CONFIG_CONTENT".to_owned(), content.to_owned())];
    let session = session.with_overrides(&overrides);
    // The key the variable's text gives, and the setting itself.
    expect(
        &session,
        &["sk-team-fixture-0102", content],
        &["sk-global-fixture-0101"],
    );
    let scan = scan_agent("opencode", &session);
    let from_text = with_value(&scan, "sk-team-fixture-0102");
    let key = "provider.openai.options.apiKey in env:OPENCODE_CONFIG_CONTENT";
    assert_eq!(from_text.source, Source::Merged { key: key.into() });
    assert_eq!(
        from_text.source.to_string(),
        format!("merged configuration ({key})")
    );
    let broken = [("OPENCODE_CONFIG_CONTENT".to_owned(), "{bad".to_owned())];
    let scan = scan_agent("opencode", &session.with_overrides(&broken));
    let warned: Vec<String> = scan.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warned.iter().any(|w| w.starts_with(
            "opencode: merged configuration: env:OPENCODE_CONFIG_CONTENT: not valid JSON"
        )),
        "{warned:?}"
    );
}
