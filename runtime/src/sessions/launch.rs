//! A session's MCP servers and skills, from the create request to what the adapter
//! is given: disabled servers dropped, secrets read from the environment at each
//! launch (never stored), skill sources fetched (git) and searched for skill folders.
//! How an agent takes them is its adapter's business.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sandbox_agent_api::{
    McpCommand, McpOAuthConfigOrDisabled, McpRemoteTransport as ApiTransport, McpServerConfig,
    SkillSource, SkillsConfig,
};
use sandbox_agent_host::{
    AdapterInfo, McpAuth, McpLocal, McpOauth, McpRemote, McpRemoteTransport, McpServer,
    McpTransport, Skill,
};

use crate::error::ApiError;

/// The enabled servers of a request, by name.
pub fn enabled_servers(
    mcp: Option<BTreeMap<String, McpServerConfig>>,
) -> BTreeMap<String, McpServerConfig> {
    mcp.unwrap_or_default()
        .into_iter()
        .filter(|(_, server)| {
            let enabled = match server {
                McpServerConfig::Local { enabled, .. }
                | McpServerConfig::Remote { enabled, .. } => enabled,
            };
            enabled.unwrap_or(true)
        })
        .collect()
}

/// Refuses MCP servers or skills for an agent whose adapter cannot pass them on.
pub fn check_capabilities(info: &AdapterInfo, mcp: bool, skills: bool) -> Result<(), ApiError> {
    for (asked, capability, what) in [
        (mcp, "mcp-servers", "MCP servers (`mcp`)"),
        (skills, "skills", "skills (`skills`)"),
    ] {
        if asked && !info.has(capability) {
            return Err(ApiError::InvalidRequest(format!(
                "agent {:?} cannot take {what}: its adapter does not declare the {capability:?} capability (GET /v1/agents shows each agent's capabilities)",
                info.id
            )));
        }
    }
    Ok(())
}

/// The servers as the adapter receives them; header secrets are looked up with
/// `lookup` (the session's variables, then the daemon's environment).
pub fn servers(
    mcp: &BTreeMap<String, McpServerConfig>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<McpServer>, ApiError> {
    mcp.iter()
        .map(|(name, server)| {
            let transport = match server {
                McpServerConfig::Local {
                    command,
                    args,
                    env,
                    cwd,
                    timeout_ms,
                    ..
                } => McpTransport::Local(McpLocal {
                    command: argv(name, command, args)?,
                    env: env.clone().unwrap_or_default().into_iter().collect(),
                    cwd: cwd.clone(),
                    timeout_ms: *timeout_ms,
                }),
                McpServerConfig::Remote {
                    url,
                    transport,
                    headers,
                    env_headers,
                    bearer_token_env_var,
                    oauth,
                    timeout_ms,
                    ..
                } => {
                    let mut all: Vec<(String, String)> =
                        headers.clone().unwrap_or_default().into_iter().collect();
                    for (header, variable) in env_headers.iter().flatten() {
                        all.push((header.clone(), secret(name, variable, &lookup)?));
                    }
                    if let Some(variable) = bearer_token_env_var {
                        let token = secret(name, variable, &lookup)?;
                        all.push(("Authorization".into(), format!("Bearer {token}")));
                    }
                    McpTransport::Remote(McpRemote {
                        url: url.clone(),
                        transport: match transport {
                            Some(ApiTransport::Sse) => McpRemoteTransport::Sse,
                            _ => McpRemoteTransport::Http,
                        },
                        headers: all,
                        auth: match oauth {
                            None | Some(McpOAuthConfigOrDisabled::Enabled(true)) => {
                                McpAuth::AgentDefault
                            }
                            Some(McpOAuthConfigOrDisabled::Enabled(false)) => McpAuth::Disabled,
                            Some(McpOAuthConfigOrDisabled::Config(config)) => {
                                McpAuth::Oauth(McpOauth {
                                    client_id: config.client_id.clone(),
                                    client_secret: config.client_secret.clone(),
                                    scope: config.scope.clone(),
                                })
                            }
                        },
                        timeout_ms: *timeout_ms,
                    })
                }
            };
            Ok(McpServer {
                name: name.clone(),
                transport,
            })
        })
        .collect()
}

fn argv(name: &str, command: &McpCommand, args: &[String]) -> Result<Vec<String>, ApiError> {
    let mut argv = match command {
        McpCommand::Program(program) => vec![program.clone()],
        McpCommand::Argv(argv) => argv.clone(),
    };
    if argv.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(ApiError::InvalidRequest(format!(
            "MCP server {name:?}: `command` names no program"
        )));
    }
    argv.extend(args.iter().cloned());
    Ok(argv)
}

fn secret(
    server: &str,
    variable: &str,
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<String, ApiError> {
    lookup(variable).filter(|value| !value.is_empty()).ok_or_else(|| {
        ApiError::InvalidRequest(format!(
            "MCP server {server:?} reads {variable} from the environment, and neither the session's `env` nor the daemon's environment sets it"
        ))
    })
}

/// The skills of a request: every source fetched (git sources are cloned under
/// `cache`) and searched, filtered by name; a later skill replaces an earlier one
/// of the same name. Answers (name, absolute folder) pairs.
pub async fn resolve_skills(
    skills: &SkillsConfig,
    directory: &Path,
    cache: &Path,
) -> Result<Vec<(String, String)>, ApiError> {
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    for source in &skills.sources {
        let root = match source.source_type.as_str() {
            "local" => directory.join(&source.source),
            "git" => fetch_git(source, cache).await?,
            other => {
                return Err(ApiError::InvalidRequest(format!(
                    "skill source type {other:?} is not one of \"local\", \"git\""
                )))
            }
        };
        let root = match &source.subpath {
            Some(subpath) => inside(&root, subpath)?,
            None => root,
        };
        let available = skill_folders(&root).map_err(|detail| {
            ApiError::InvalidRequest(format!("skill source {:?}: {detail}", source.source))
        })?;
        if let Some(wanted) = &source.skills {
            for name in wanted {
                if !available.contains_key(name) {
                    return Err(ApiError::InvalidRequest(format!(
                        "skill source {:?} has no skill {name:?}; it has {:?}",
                        source.source,
                        available.keys().collect::<Vec<_>>()
                    )));
                }
            }
        }
        for (name, path) in available {
            if source
                .skills
                .as_ref()
                .is_none_or(|wanted| wanted.contains(&name))
            {
                found.insert(name, path.display().to_string());
            }
        }
    }
    Ok(found.into_iter().collect())
}

/// The skills as the adapter receives them.
pub fn skills(resolved: &[(String, String)]) -> Vec<Skill> {
    resolved
        .iter()
        .map(|(name, path)| Skill {
            name: name.clone(),
            path: path.clone(),
        })
        .collect()
}

/// Links each skill's folder at `<scratch>/skills/<name>` (the layout the contract
/// promises adapters), replacing links from an earlier launch.
pub fn link_skills(scratch: &Path, skills: &[(String, String)]) -> Result<(), ApiError> {
    if skills.is_empty() {
        return Ok(());
    }
    let dir = scratch.join("skills");
    let failed = |error: std::io::Error| {
        ApiError::Internal(format!(
            "linking the session's skills in {}: {error}",
            dir.display()
        ))
    };
    std::fs::create_dir_all(&dir).map_err(failed)?;
    for (name, path) in skills {
        let link = dir.join(name);
        if std::fs::symlink_metadata(&link).is_ok() {
            std::fs::remove_file(&link).map_err(failed)?;
        }
        std::os::unix::fs::symlink(path, &link).map_err(failed)?;
    }
    Ok(())
}

/// `root/subpath`, refusing a subpath that climbs out of `root`.
fn inside(root: &Path, subpath: &str) -> Result<PathBuf, ApiError> {
    let relative = Path::new(subpath);
    let climbs = relative.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if climbs {
        return Err(ApiError::InvalidRequest(format!(
            "skill subpath {subpath:?} must be relative and stay inside its source"
        )));
    }
    Ok(root.join(relative))
}

/// The skill folders of a source: the folder itself when it holds a `SKILL.md`,
/// else each of its sub-folders that does, by folder name.
fn skill_folders(root: &Path) -> Result<BTreeMap<String, PathBuf>, String> {
    let root =
        std::fs::canonicalize(root).map_err(|error| format!("{}: {error}", root.display()))?;
    let name_of = |path: &Path| path.file_name().map(|n| n.to_string_lossy().into_owned());
    if root.join("SKILL.md").is_file() {
        return Ok(name_of(&root)
            .map(|name| (name, root.clone()))
            .into_iter()
            .collect());
    }
    let mut found = BTreeMap::new();
    let entries =
        std::fs::read_dir(&root).map_err(|error| format!("{}: {error}", root.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.join("SKILL.md").is_file() {
            if let Some(name) = name_of(&path) {
                found.insert(name, path);
            }
        }
    }
    if found.is_empty() {
        return Err(format!(
            "{} holds no skill (a folder with a SKILL.md)",
            root.display()
        ));
    }
    Ok(found)
}

/// Clones (once per URL and ref) a git source under `cache`.
async fn fetch_git(source: &SkillSource, cache: &Path) -> Result<PathBuf, ApiError> {
    use sha2::Digest;
    let key = format!(
        "{}\n{}",
        source.source,
        source.git_ref.as_deref().unwrap_or("")
    );
    let dir = cache.join(format!("{:x}", sha2::Sha256::digest(key.as_bytes())));
    if dir.join(".git").is_dir() {
        return Ok(dir);
    }
    let partial = dir.with_extension("partial");
    let _ = tokio::fs::remove_dir_all(&partial).await;
    tokio::fs::create_dir_all(&partial)
        .await
        .map_err(|error| ApiError::Internal(format!("{}: {error}", partial.display())))?;
    let git_ref = source.git_ref.as_deref().unwrap_or("HEAD");
    let steps: [&[&str]; 3] = [
        &["init", "--quiet"],
        &["fetch", "--quiet", "--depth", "1", &source.source, git_ref],
        &[
            "-c",
            "advice.detachedHead=false",
            "checkout",
            "--quiet",
            "FETCH_HEAD",
        ],
    ];
    for args in steps {
        let output = tokio::process::Command::new("git")
            .args(args)
            .current_dir(&partial)
            .env("GIT_TERMINAL_PROMPT", "0")
            .output()
            .await
            .map_err(|error| {
                ApiError::InvalidRequest(format!(
                    "skill source {:?}: cannot run git: {error}",
                    source.source
                ))
            })?;
        if !output.status.success() {
            let _ = tokio::fs::remove_dir_all(&partial).await;
            return Err(ApiError::InvalidRequest(format!(
                "skill source {:?} (ref {git_ref}): git {} failed: {}",
                source.source,
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
    }
    tokio::fs::rename(&partial, &dir)
        .await
        .map_err(|error| ApiError::Internal(format!("{}: {error}", dir.display())))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> BTreeMap<String, McpServerConfig> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn local_and_remote_servers_take_the_0_1_shapes() {
        let mcp = enabled_servers(Some(parse(json!({
            "calc": { "type": "local", "command": ["node", "server.js"], "args": ["--x"], "env": { "A": "1" } },
            "off": { "type": "local", "command": "x", "enabled": false },
            "web": { "type": "remote", "url": "https://mcp.example/", "transport": "sse",
                     "headers": { "X-A": "a" }, "envHeaders": { "X-Key": "KEY" },
                     "bearerTokenEnvVar": "TOKEN", "oauth": false },
        }))));
        assert_eq!(mcp.keys().collect::<Vec<_>>(), ["calc", "web"]);
        let lookup = |name: &str| Some(format!("<{name}>"));
        let servers = servers(&mcp, lookup).unwrap();
        let McpTransport::Local(local) = &servers[0].transport else {
            panic!()
        };
        assert_eq!(local.command, ["node", "server.js", "--x"]);
        assert_eq!(local.env, [("A".to_owned(), "1".to_owned())]);
        let McpTransport::Remote(remote) = &servers[1].transport else {
            panic!()
        };
        assert!(matches!(remote.transport, McpRemoteTransport::Sse));
        assert!(matches!(remote.auth, McpAuth::Disabled));
        assert_eq!(
            remote.headers,
            [
                ("X-A".to_owned(), "a".to_owned()),
                ("X-Key".to_owned(), "<KEY>".to_owned()),
                ("Authorization".to_owned(), "Bearer <TOKEN>".to_owned()),
            ]
        );
    }

    #[test]
    fn a_missing_secret_or_program_is_a_clear_400() {
        let mcp =
            parse(json!({ "web": { "type": "remote", "url": "u", "bearerTokenEnvVar": "NOPE" } }));
        let error = servers(&mcp, |_| None).unwrap_err();
        assert!(error.to_string().contains("NOPE"), "{error}");
        let mcp = parse(json!({ "x": { "type": "local", "command": [] } }));
        assert!(matches!(
            servers(&mcp, |_| None),
            Err(ApiError::InvalidRequest(_))
        ));
    }

    #[tokio::test]
    async fn local_skill_sources_are_searched_and_filtered() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["review", "deploy"] {
            std::fs::create_dir_all(dir.path().join("skills").join(name)).unwrap();
            std::fs::write(dir.path().join("skills").join(name).join("SKILL.md"), "# s").unwrap();
        }
        let config: SkillsConfig = serde_json::from_value(json!({ "sources": [
            { "type": "local", "source": "skills", "skills": ["review"] },
        ]}))
        .unwrap();
        let found = resolve_skills(&config, dir.path(), dir.path())
            .await
            .unwrap();
        let review = std::fs::canonicalize(dir.path().join("skills/review")).unwrap();
        assert_eq!(found, [("review".to_owned(), review.display().to_string())]);

        let single: SkillsConfig = serde_json::from_value(json!({ "sources": [
            { "type": "local", "source": ".", "subpath": "skills/deploy" },
        ]}))
        .unwrap();
        assert_eq!(
            resolve_skills(&single, dir.path(), dir.path())
                .await
                .unwrap()[0]
                .0,
            "deploy"
        );

        for bad in [
            json!({ "type": "local", "source": "skills", "skills": ["nope"] }),
            json!({ "type": "local", "source": "missing" }),
            json!({ "type": "local", "source": ".", "subpath": "../x" }),
            json!({ "type": "svn", "source": "x" }),
        ] {
            let config: SkillsConfig = serde_json::from_value(json!({ "sources": [bad] })).unwrap();
            let error = resolve_skills(&config, dir.path(), dir.path())
                .await
                .unwrap_err();
            assert!(matches!(error, ApiError::InvalidRequest(_)), "{error}");
        }
    }

    #[test]
    fn skills_are_linked_in_the_scratch_folder_again_at_each_launch() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("review");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "# r").unwrap();
        let skills = [("review".to_owned(), skill.display().to_string())];
        let scratch = dir.path().join("scratch");
        link_skills(&scratch, &skills).unwrap();
        link_skills(&scratch, &skills).unwrap();
        assert_eq!(
            std::fs::read_to_string(scratch.join("skills/review/SKILL.md")).unwrap(),
            "# r"
        );
        link_skills(&dir.path().join("untouched"), &[]).unwrap();
        assert!(!dir.path().join("untouched").exists());
    }

    #[tokio::test]
    async fn git_skill_sources_are_cloned_at_their_ref() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("pack/lint")).unwrap();
        std::fs::write(repo.join("pack/lint/SKILL.md"), "# lint").unwrap();
        let git = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "init.defaultBranch=main",
                ])
                .args(args)
                .current_dir(&repo)
                .output()
                .unwrap();
            assert!(status.status.success(), "{status:?}");
        };
        git(&["init", "--quiet"]);
        git(&["add", "."]);
        git(&["commit", "--quiet", "-m", "skills"]);
        git(&["tag", "v1"]);
        let config: SkillsConfig = serde_json::from_value(json!({ "sources": [
            { "type": "git", "source": repo.display().to_string(), "ref": "v1", "subpath": "pack" },
        ]}))
        .unwrap();
        let cache = dir.path().join("cache");
        let found = resolve_skills(&config, dir.path(), &cache).await.unwrap();
        assert_eq!(found[0].0, "lint");
        assert!(found[0]
            .1
            .starts_with(&std::fs::canonicalize(&cache).unwrap().display().to_string()));
    }
}
