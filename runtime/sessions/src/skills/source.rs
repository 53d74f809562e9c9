//! What a git skill source may name before git sees it: the transports allowed
//! (`https`, `ssh`, and `file` only when the daemon allows local repositories) and
//! the refs (valid git ref names, never an option).

use crate::SessionError;

/// How git reaches a skill source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// `https://...`
    Https,
    /// `ssh://...` or git's `[user@]host:path`.
    Ssh,
    /// `file://...` or a path on this machine.
    Local,
}

impl Transport {
    /// Git's name of the transport (for its `protocol.<name>.allow` settings).
    pub fn protocol(self) -> &'static str {
        match self {
            Transport::Https => "https",
            Transport::Ssh => "ssh",
            Transport::Local => "file",
        }
    }
}

/// What the refusals name as allowed.
const ALLOWED: &str = "use https://, ssh:// or user@host:path (file:// and local paths only when \
    the daemon runs with --allow-local-skill-repos; plain http:// and git:// are refused: nothing \
    authenticates what they serve)";

/// The transport of `source` (shown to the client as `shown`, its credentials
/// redacted), refusing every other kind of URL, and local ones unless `allow_local`.
pub fn transport(source: &str, shown: &str, allow_local: bool) -> Result<Transport, SessionError> {
    let refuse = |why: &str| {
        SessionError::InvalidRequest(format!("git skill source {shown:?} {why}: {ALLOWED}"))
    };
    if source.is_empty() || source.starts_with('-') {
        return Err(refuse("is empty or starts with '-'"));
    }
    if source.chars().any(char::is_control) {
        return Err(refuse("holds control characters"));
    }
    let transport = if let Some(scheme) = scheme_before(source, "::") {
        return Err(refuse(&format!(
            "names git's remote helper {scheme:?} (`<helper>::<address>`)"
        )));
    } else if let Some(scheme) = scheme_before(source, "://") {
        match scheme.to_ascii_lowercase().as_str() {
            "https" => Transport::Https,
            "ssh" | "git+ssh" | "ssh+git" => Transport::Ssh,
            "file" => Transport::Local,
            other => return Err(refuse(&format!("uses the {other}:// scheme"))),
        }
    } else if let Some(host) = scp_host(source) {
        if host.is_empty() || host.starts_with('-') {
            return Err(refuse("names no host, or one that starts with '-'"));
        }
        return Ok(Transport::Ssh);
    } else {
        Transport::Local
    };
    if transport == Transport::Local && !allow_local {
        return Err(refuse(
            "is on this machine, and local repositories are not allowed",
        ));
    }
    if transport != Transport::Local {
        let url =
            url::Url::parse(source).map_err(|error| refuse(&format!("is not a URL ({error})")))?;
        let host = url.host_str().unwrap_or_default();
        if host.is_empty() || host.starts_with('-') || url.username().starts_with('-') {
            return Err(refuse(
                "names no host, or a host or user that starts with '-'",
            ));
        }
    }
    Ok(transport)
}

/// The scheme of `source` when it starts with `<scheme><separator>` (a scheme: a
/// letter, then letters, digits, `+`, `-` and `.`).
fn scheme_before<'s>(source: &'s str, separator: &str) -> Option<&'s str> {
    let (scheme, _) = source.split_once(separator)?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// The host of git's scp-like `[user@]host:path` form (a `:` before any `/`), the
/// user information dropped; `None` for anything else (a local path).
fn scp_host(source: &str) -> Option<&str> {
    let colon = source.find(':')?;
    if source.find('/').is_some_and(|slash| slash < colon) {
        return None;
    }
    let host = &source[..colon];
    Some(host.rsplit_once('@').map_or(host, |(_, host)| host))
}

/// Refuses a ref that is not a valid git ref name (`main`, `v1.2`, `refs/tags/x`,
/// a commit id), or that starts with `-` (git would read it as an option).
pub fn check_ref(git_ref: &str) -> Result<(), SessionError> {
    let refuse = |why: String| {
        SessionError::InvalidRequest(format!(
            "skill source ref {git_ref:?} is not a git ref name: {why}"
        ))
    };
    if git_ref.starts_with('-') {
        return Err(refuse("it starts with '-'".into()));
    }
    gix_validate::reference::name_partial(git_ref.as_bytes().into())
        .map(|_| ())
        .map_err(|error| refuse(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_ssh_and_allowed_local_sources_pass() {
        for (source, expected) in [
            ("https://github.com/org/skills.git", Transport::Https),
            ("HTTPS://github.com/org/skills", Transport::Https),
            ("ssh://git@github.com/org/skills.git", Transport::Ssh),
            ("git@github.com:org/skills.git", Transport::Ssh),
            ("host:skills", Transport::Ssh),
        ] {
            assert_eq!(
                transport(source, source, false).unwrap(),
                expected,
                "{source}"
            );
        }
        for source in ["file:///srv/skills", "/srv/skills", "./skills", "skills"] {
            assert!(transport(source, source, false).is_err(), "{source}");
            assert_eq!(transport(source, source, true).unwrap(), Transport::Local);
        }
        for source in [
            "",
            "--upload-pack=touch /tmp/x",
            "-oProxyCommand=x:y",
            "ext::sh -c touch% /tmp/x",
            "fd::3",
            "file::/srv/skills",
            "http://github.com/org/skills",
            "git://github.com/org/skills",
            "ftp://host/skills",
            "ssh://-oProxyCommand=x/skills",
            "ssh://-user@host/skills",
            "git@-oProxyCommand=x:skills",
            ":skills",
            "https://github.com/org\n/skills",
        ] {
            let error = transport(source, source, true).unwrap_err();
            assert!(matches!(error, SessionError::InvalidRequest(_)), "{source}");
            assert!(error.to_string().contains("https://"), "{error}");
        }
    }

    #[test]
    fn refs_are_git_ref_names_and_never_options() {
        for ok in [
            "main",
            "v1.2.3",
            "refs/tags/v1",
            "feature/x",
            "HEAD",
            "0a1b2c3d",
        ] {
            assert!(check_ref(ok).is_ok(), "{ok}");
        }
        for bad in [
            "--upload-pack=touch /tmp/x",
            "-x",
            "",
            "a..b",
            "a b",
            "main:refs/heads/x",
            "x.lock",
            "a@{1}",
            "*",
        ] {
            assert!(check_ref(bad).is_err(), "{bad}");
        }
    }
}
