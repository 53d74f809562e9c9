//! What the daemon shows of a session's MCP servers and skill sources: the same
//! shapes as created, with every value that may be a secret replaced.
//!
//! The rules, meant to be predictable rather than clever:
//! - whole values (header and environment values, each argument of a local server,
//!   the OAuth client secret) become [`REDACTED`];
//! - in a URL ([`redact_url`]) the password, the user name (kept for `ssh`, where it
//!   is never a secret), every query value (a parameter without a value as a whole)
//!   and the fragment become `redacted`; the scheme, host, port and path stay.

use crate::{McpCommand, McpOAuthConfigOrDisabled, McpServerConfig, SkillSource, SkillsConfig};

/// What replaces a whole secret value in an answer.
pub const REDACTED: &str = "<redacted>";

/// What replaces a secret part of a URL (plain: `<>` would be percent-encoded).
const REDACTED_PART: &str = "redacted";

impl McpServerConfig {
    /// The config as answers show it: the values of `headers` and `env`, every
    /// argument (`args`, and `command` past the program), the OAuth client secret
    /// and the credentials in `url` (see [`redact_url`]) redacted. Names (of
    /// headers, variables, the program) stay.
    pub fn redacted(&self) -> Self {
        let mut copy = self.clone();
        match &mut copy {
            McpServerConfig::Local {
                command, args, env, ..
            } => {
                if let McpCommand::Argv(argv) = command {
                    argv.iter_mut().skip(1).for_each(hide);
                }
                args.iter_mut().for_each(hide);
                hide_values(env);
            }
            McpServerConfig::Remote {
                url,
                headers,
                oauth,
                ..
            } => {
                *url = redact_url(url);
                hide_values(headers);
                if let Some(McpOAuthConfigOrDisabled::Config(config)) = oauth {
                    config.client_secret.iter_mut().for_each(hide);
                }
            }
        }
        copy
    }
}

impl SkillsConfig {
    /// The sources as answers show them: the credentials in a git source's URL
    /// redacted (see [`redact_url`]).
    pub fn redacted(&self) -> Self {
        Self {
            sources: self.sources.iter().map(SkillSource::redacted).collect(),
        }
    }
}

impl SkillSource {
    /// The source with the credentials in a git URL redacted (a local folder is
    /// shown as it is).
    pub fn redacted(&self) -> Self {
        let mut copy = self.clone();
        if copy.source_type == "git" {
            copy.source = redact_url(&copy.source);
        }
        copy
    }
}

fn hide(value: &mut String) {
    *value = REDACTED.to_owned();
}

fn hide_values(map: &mut Option<std::collections::BTreeMap<String, String>>) {
    map.iter_mut()
        .flat_map(|map| map.values_mut())
        .for_each(hide);
}

/// `text` (a URL, or git's `user@host:path`) without its credentials: the
/// password, the user name (kept for `ssh`), every query value (a parameter
/// without a value as a whole) and the fragment become `redacted`.
pub fn redact_url(text: &str) -> String {
    match url::Url::parse(text) {
        // `user@host:path` and `host:port/path` parse as URLs without an authority.
        Ok(mut url) if !url.cannot_be_a_base() => {
            let ssh = matches!(url.scheme(), "ssh" | "git+ssh" | "ssh+git");
            if url.password().is_some() {
                let _ = url.set_password(Some(REDACTED_PART));
            }
            if !ssh && !url.username().is_empty() {
                let _ = url.set_username(REDACTED_PART);
            }
            if url.query().is_some() {
                let query = redact_query(url.query().unwrap_or_default());
                url.set_query(Some(&query));
            }
            if url.fragment().is_some() {
                url.set_fragment(Some(REDACTED_PART));
            }
            url.into()
        }
        _ => redact_unparsed(text),
    }
}

/// Each `name=value` with its value redacted; a parameter without `=` whole.
fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) => format!("{name}={REDACTED_PART}"),
            None if pair.is_empty() => String::new(),
            None => REDACTED_PART.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Text that is not a URL (git's `user@host:path`, a path): a `user:password@`
/// before the host loses the password, and anything after a `?` or `#` is redacted.
fn redact_unparsed(text: &str) -> String {
    let (rest, fragment) = match text.split_once('#') {
        Some((rest, _)) => (rest, Some(REDACTED_PART)),
        None => (text, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(redact_query(query))),
        None => (rest, None),
    };
    let mut shown = redact_userinfo(rest);
    if let Some(query) = query {
        shown = format!("{shown}?{query}");
    }
    if let Some(fragment) = fragment {
        shown = format!("{shown}#{fragment}");
    }
    shown
}

/// `user:password@host...` as `user:redacted@host...` (the user information being
/// what comes before the first `@`, when that is before the first `/`); a user
/// alone stays.
fn redact_userinfo(text: &str) -> String {
    let end = text.find('/').unwrap_or(text.len());
    let Some(at) = text[..end].find('@') else {
        return text.to_owned();
    };
    match text[..at].split_once(':') {
        Some((user, _)) => format!("{user}:{REDACTED_PART}{}", &text[at..]),
        None => text.to_owned(),
    }
}

/// `text` (a message, git's error output...) with `url` and every secret part of it
/// (as [`redact_url`] hides them, in the form they take in `url`) redacted.
pub fn scrub_url(text: &str, url: &str) -> String {
    let mut scrubbed = text.replace(url, &redact_url(url));
    for secret in url_secrets(url) {
        scrubbed = scrubbed.replace(&secret, REDACTED_PART);
    }
    scrubbed
}

/// The parts of `url` that [`redact_url`] hides, as written in it.
fn url_secrets(url: &str) -> Vec<String> {
    let mut secrets = Vec::new();
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    secrets.push(fragment);
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    secrets.extend(
        query
            .split('&')
            .map(|pair| pair.split_once('=').map_or(pair, |(_, value)| value)),
    );
    let (scheme, authority) = rest.split_once("://").unwrap_or(("", rest));
    let authority = authority.split('/').next().unwrap_or_default();
    if let Some((userinfo, _)) = authority.rsplit_once('@') {
        let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
        secrets.push(password);
        if !matches!(scheme, "" | "ssh" | "git+ssh" | "ssh+git") {
            secrets.push(user);
        }
    }
    secrets
        .into_iter()
        .filter(|secret| !secret.is_empty() && *secret != REDACTED_PART)
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn url_credentials_are_redacted_and_the_rest_kept() {
        for (url, shown) in [
            ("https://mcp.example/mcp", "https://mcp.example/mcp"),
            (
                "https://alice:s3cret@mcp.example:8443/mcp?token=t0k&mode=x&flag#frag",
                "https://redacted:redacted@mcp.example:8443/mcp?token=redacted&mode=redacted&redacted#redacted",
            ),
            (
                "https://ghp_tokenAsUser@github.com/org/repo.git",
                "https://redacted@github.com/org/repo.git",
            ),
            (
                "ssh://git:pw@host/org/repo.git",
                "ssh://git:redacted@host/org/repo.git",
            ),
            ("ssh://git@host/org/repo.git", "ssh://git@host/org/repo.git"),
            ("git@github.com:org/repo.git", "git@github.com:org/repo.git"),
            (
                "git:pw@github.com:org/repo.git",
                "git:redacted@github.com:org/repo.git",
            ),
            ("/srv/repos/skills", "/srv/repos/skills"),
            ("relative/path?key=k#f", "relative/path?key=redacted#redacted"),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }

    #[test]
    fn url_secrets_are_scrubbed_from_messages() {
        let url = "https://alice:pw1@host/r.git?token=tk2&x#fr3";
        let message =
            format!("fatal: unable to access '{url}': no; 'https://host/r.git?token=tk2&x#fr3/'");
        let scrubbed = scrub_url(&message, url);
        for secret in ["alice", "pw1", "tk2", "fr3"] {
            assert!(!scrubbed.contains(secret), "{scrubbed}");
        }
        assert!(
            scrubbed.contains("https://redacted:redacted@host/r.git"),
            "{scrubbed}"
        );
        assert_eq!(
            scrub_url("git@host: denied", "git@host:r.git"),
            "git@host: denied"
        );
    }

    #[test]
    fn servers_keep_their_shape_with_every_secret_redacted() {
        let local: McpServerConfig = serde_json::from_value(json!({
            "type": "local", "command": ["node", "server.js", "--key=k1"], "args": ["--token", "k2"],
            "env": { "API_KEY": "k3" }, "cwd": "/w",
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(local.redacted()).unwrap(),
            json!({
                "type": "local", "command": ["node", REDACTED, REDACTED], "args": [REDACTED, REDACTED],
                "env": { "API_KEY": REDACTED }, "cwd": "/w",
            })
        );
        let remote: McpServerConfig = serde_json::from_value(json!({
            "type": "remote", "url": "https://u:p@mcp.example/?key=k4",
            "headers": { "X-Api-Key": "k5" }, "envHeaders": { "X-Other": "OTHER_VAR" },
            "bearerTokenEnvVar": "TOKEN_VAR",
            "oauth": { "clientId": "id", "clientSecret": "k6", "scope": "read" },
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(remote.redacted()).unwrap(),
            json!({
                "type": "remote", "url": "https://redacted:redacted@mcp.example/?key=redacted",
                "headers": { "X-Api-Key": REDACTED }, "envHeaders": { "X-Other": "OTHER_VAR" },
                "bearerTokenEnvVar": "TOKEN_VAR",
                "oauth": { "clientId": "id", "clientSecret": REDACTED, "scope": "read" },
            })
        );
    }

    #[test]
    fn git_skill_sources_lose_their_url_credentials_and_local_ones_stay() {
        let skills: SkillsConfig = serde_json::from_value(json!({ "sources": [
            { "type": "git", "source": "https://x-access-token:k7@github.com/o/r.git", "ref": "main" },
            { "type": "local", "source": "/srv/a@b:c" },
        ]}))
        .unwrap();
        let shown = skills.redacted();
        assert_eq!(
            shown.sources[0].source,
            "https://redacted:redacted@github.com/o/r.git"
        );
        assert_eq!(shown.sources[0].git_ref.as_deref(), Some("main"));
        assert_eq!(shown.sources[1], skills.sources[1]);
    }
}
