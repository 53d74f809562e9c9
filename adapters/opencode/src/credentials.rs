//! Where OpenCode keeps credentials (checked in its package, 1.18.33):
//! `~/.local/share/opencode/auth.json` (under `$XDG_DATA_HOME` when set) holds, per
//! provider, `{"type": "api", "key"}`, `{"type": "oauth", "access", "refresh",
//! "expires"}` or `{"type": "wellknown", "token"}`; its configuration gives
//! providers base URLs and keys ([`crate::providers`]), merged key by key from
//! these places, the one that wins first (checked with `opencode debug config` on
//! 1.18.33):
//!
//! 1. `OPENCODE_CONFIG_CONTENT`, a variable holding a config file's text;
//! 2. `$OPENCODE_CONFIG_DIR/opencode.jsonc`, `opencode.json`;
//! 3. `~/.opencode/opencode.jsonc`, `opencode.json`;
//! 4. the `.opencode` folders from the session's directory up, the farthest first;
//! 5. the project's `opencode.jsonc`, `opencode.json` from the session's directory
//!    up, the nearest first;
//! 6. the file `OPENCODE_CONFIG` names;
//! 7. the global configuration (`~/.config/opencode/`, under `$XDG_CONFIG_HOME`
//!    when set): `opencode.jsonc`, `opencode.json`, `config.json`.
//!
//! OpenCode stops looking up at the root of the git work tree the directory is in:
//! the adapter names each folder's `.git` and `.git/HEAD` up to `/` too, and the
//! nearest repository (a `HEAD`) or linked work tree (a `.git` file) the host finds
//! is that root ([`in_work_tree`]).

use std::path::{Path, PathBuf};

use sandbox_agent_adapter_kit::configured::{Slot, CUSTOM};
use sandbox_agent_adapter_kit::credentials::{self, found, json_file, JsonFields, Locations};
use sandbox_agent_adapter_kit::prelude::*;
use serde_json::Value;

use crate::gateway::{AGENT, BUILTINS};
use crate::providers::{self, CONFIG_FILES};

/// The variable holding configuration text that OpenCode reads last (it wins).
pub(crate) const CONFIG_CONTENT: &str = "OPENCODE_CONFIG_CONTENT";

/// Provider keys OpenCode reads from its environment (plus its own
/// `OPENCODE_API_KEY` for OpenCode Zen), [`CONFIG_CONTENT`] (a setting, so that the
/// daemon's reaches the session, where the adapter adds to it), then the variables
/// the adapter reports the configuration's base URLs and keys in (which OpenCode
/// never reads).
pub(crate) fn variables() -> Vec<CredentialVariable> {
    let mut variables = credentials::api_keys(&[
        ("ANTHROPIC_API_KEY", "anthropic"),
        ("OPENAI_API_KEY", "openai"),
        ("OPENROUTER_API_KEY", "openrouter"),
        ("GOOGLE_GENERATIVE_AI_API_KEY", "google"),
        ("GEMINI_API_KEY", "google"),
        ("OPENCODE_API_KEY", "opencode"),
    ]);
    variables.extend(credentials::settings(&[(CONFIG_CONTENT, AGENT)]));
    for builtin in BUILTINS {
        let provider = builtin.provider;
        variables.extend(Slot::builtin(AGENT, provider).variables(provider));
        variables.extend(Slot::custom(AGENT, builtin.format).variables(CUSTOM));
    }
    variables
}

/// The variables that move OpenCode's files: its data (`auth.json`), its global
/// configuration, the extra config file and folder, and the session's directory
/// (for the project's files).
pub(crate) const LOCATION_ENV: [&str; 5] = [
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "OPENCODE_CONFIG",
    "OPENCODE_CONFIG_DIR",
    "PWD",
];

/// The names of the config files OpenCode reads in a project folder or a config
/// folder, the one it prefers first.
const FOLDER_FILES: [&str; 2] = ["opencode.jsonc", "opencode.json"];

/// `auth.json`, then every place of OpenCode's configuration in the order of
/// precedence above, read together (`merge:`) as OpenCode merges them.
pub(crate) fn files(at: &Locations) -> Vec<String> {
    let in_folder =
        |dir: Option<PathBuf>| FOLDER_FILES.map(|name| dir.as_ref().map(|d| d.join(name)));
    let ancestors: Vec<PathBuf> = at
        .dir("PWD")
        .iter()
        .flat_map(|dir| dir.ancestors())
        .map(PathBuf::from)
        .collect();
    let global = at.config_home().map(|home| home.join("opencode"));
    let mut config = in_folder(at.dir("OPENCODE_CONFIG_DIR")).to_vec();
    config.extend(in_folder(at.under_home(".opencode")));
    for folder in ancestors.iter().rev() {
        config.extend(in_folder(Some(folder.join(".opencode"))));
    }
    for folder in &ancestors {
        config.extend(in_folder(Some(folder.clone())));
    }
    config.push(at.dir("OPENCODE_CONFIG"));
    config.extend(CONFIG_FILES.map(|name| global.as_ref().map(|dir| dir.join(name))));
    // Where the work tree's root is: the nearest folder up with a repository
    // (`.git/HEAD`) or a linked work tree's `.git` file.
    for folder in &ancestors {
        config.push(Some(folder.join(".git")));
        config.push(Some(folder.join(".git/HEAD")));
    }
    let mut names = credentials::paths([at.data_home().map(|dir| dir.join("opencode/auth.json"))]);
    names.push(format!("{MERGE}env:{CONFIG_CONTENT}"));
    names.extend(
        credentials::paths(config)
            .into_iter()
            .map(|path| format!("{MERGE}{path}")),
    );
    names
}

/// How a place read together with the others is named to the host, and the path
/// of that read.
const MERGE: &str = "merge:";

/// The places of the configuration OpenCode reads, of those the host found (origin
/// and text, `None` for a folder; the one that wins first): the `.git` markers
/// taken out, and the project's files and `.opencode` folders above the work
/// tree's root with them (OpenCode looks up from the session's directory to that
/// root only). A place named twice (the file `OPENCODE_CONFIG` names,
/// `~/.opencode`, which may be a project's place too) is read wherever it is.
pub(crate) fn in_work_tree(places: Vec<(String, Option<String>)>) -> Vec<(String, Option<String>)> {
    let root = places
        .iter()
        .filter_map(|(origin, text)| root_marked(origin, text.is_some()))
        .max_by_key(|folder| folder.as_os_str().len());
    let named = |origin: &str| places.iter().filter(|(o, _)| o == origin).count();
    let above_root = |origin: &str| {
        let Some(root) = root else {
            return false;
        };
        let path = Path::new(origin);
        let in_folder = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| FOLDER_FILES.contains(&name));
        let mut folder = path.parent();
        if folder
            .and_then(Path::file_name)
            .is_some_and(|name| name == ".opencode")
        {
            folder = folder.and_then(Path::parent);
        }
        in_folder && folder.is_some_and(|folder| root.starts_with(folder) && root != folder)
    };
    places
        .iter()
        .filter(|(origin, _)| !is_git(origin))
        .filter(|(origin, _)| !above_root(origin) || named(origin) > 1)
        .cloned()
        .collect()
}

/// Whether `origin` is one of the `.git` places of [`files`], not configuration.
fn is_git(origin: &str) -> bool {
    let path = Path::new(origin);
    path.file_name() == Some(".git".as_ref()) || path.ends_with(".git/HEAD")
}

/// The work tree root a `.git` place found marks: a repository's (`.git/HEAD`, a
/// file) or a linked work tree's (`.git`, a file); a `.git` folder without a `HEAD`
/// is no repository to git, nor here.
fn root_marked(origin: &str, file: bool) -> Option<&Path> {
    let path = Path::new(origin);
    if !file {
        return None;
    }
    if path.ends_with(".git/HEAD") {
        return path.parent()?.parent();
    }
    (path.file_name()? == ".git").then(|| path.parent())?
}

/// `auth.json`, or the configuration's places read together.
pub(crate) fn parse(path: &str, text: &str) -> CredentialRead {
    if path == MERGE {
        return providers::parse_merged(text);
    }
    json_file(text, |json, read| {
        for (provider, entry) in read.entries(json, "") {
            let (field, kind, env) = match entry.get("type").and_then(Value::as_str) {
                Some("api") => ("key", CredentialKind::ApiKey, variable(provider)),
                Some("oauth") => ("access", CredentialKind::OauthToken, None),
                Some("wellknown") => ("token", CredentialKind::Token, None),
                _ => {
                    read.problems.push(format!(
                        "`{provider}` has no known `type` (api, oauth, wellknown)"
                    ));
                    continue;
                }
            };
            read.string(entry, &[field], |value| {
                found(provider, kind, &format!("{provider}.{field}"), value, env)
            });
        }
    })
}

/// The variable OpenCode reads for a provider's key.
fn variable(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "anthropic" => "ANTHROPIC_API_KEY",
        "openai" => "OPENAI_API_KEY",
        "openrouter" => "OPENROUTER_API_KEY",
        "google" => "GOOGLE_GENERATIVE_AI_API_KEY",
        "opencode" => "OPENCODE_API_KEY",
        _ => return None,
    })
}
