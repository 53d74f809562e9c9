//! A session's skills: its sources fetched (git, see [`git`]) or read (local) and
//! searched for skill folders at create, then placed in the session's scratch
//! folder at each launch, where the adapter finds them. A git skill is copied
//! there from the shared cache (the session's own copy: what its agent writes in
//! it changes nothing for another session); a local one is linked.

mod copy;
pub mod git;
mod source;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentplex_api::{redact_url, SkillSource, SkillsConfig};
use agentplex_host::Skill;

use crate::SessionError;
pub use git::{GitCache, GitSettings};

/// The skills of a request: every source fetched (git sources into `cache`) and
/// searched, filtered by name; a later skill replaces an earlier one of the same
/// name. Answers (name, absolute folder) pairs.
pub async fn resolve_skills(
    skills: &SkillsConfig,
    directory: &Path,
    cache: &GitCache,
) -> Result<Vec<(String, String)>, SessionError> {
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    for source in &skills.sources {
        let shown = match source.source_type.as_str() {
            "git" => redact_url(&source.source),
            _ => source.source.clone(),
        };
        let (root, confine) = match source.source_type.as_str() {
            "local" => (directory.join(&source.source), None),
            "git" => {
                let clone = cache.fetch(source, directory).await?;
                (clone.clone(), Some(clone))
            }
            other => {
                return Err(SessionError::InvalidRequest(format!(
                    "skill source type {other:?} is not one of \"local\", \"git\""
                )))
            }
        };
        let root = match &source.subpath {
            Some(subpath) => inside(&root, subpath)?,
            None => root,
        };
        let available = skill_folders(&root, confine.as_deref()).map_err(|detail| {
            SessionError::InvalidRequest(format!("skill source {shown:?}: {detail}"))
        })?;
        for (name, path) in select(source, &shown, available)? {
            found.insert(name, path.display().to_string());
        }
    }
    Ok(found.into_iter().collect())
}

/// The skills of `available` the source asks for (all when it names none).
fn select(
    source: &SkillSource,
    shown: &str,
    mut available: BTreeMap<String, PathBuf>,
) -> Result<BTreeMap<String, PathBuf>, SessionError> {
    let Some(wanted) = &source.skills else {
        return Ok(available);
    };
    let mut chosen = BTreeMap::new();
    for name in wanted {
        let Some(path) = available.remove(name) else {
            return Err(SessionError::InvalidRequest(format!(
                "skill source {shown:?} has no skill {name:?}; it has {:?}",
                available.keys().chain(chosen.keys()).collect::<Vec<_>>()
            )));
        };
        chosen.insert(name.clone(), path);
    }
    Ok(chosen)
}

/// Places each skill at `<scratch>/skills/<name>` (the layout the contract
/// promises adapters) and answers the skills as the adapter receives them. A skill
/// from the git cache `cache` is copied there at the session's first launch (later
/// launches keep that copy) and given to the adapter at its copy; a local one is
/// linked there again at each launch and given at its own folder.
pub fn place_skills(
    scratch: &Path,
    skills: &[(String, String)],
    cache: &Path,
) -> Result<Vec<Skill>, SessionError> {
    if skills.is_empty() {
        return Ok(Vec::new());
    }
    let dir = scratch.join("skills");
    let failed = |error| {
        SessionError::io(
            format!("placing the session's skills in {}", dir.display()),
            error,
        )
    };
    std::fs::create_dir_all(&dir).map_err(failed)?;
    let cache = std::fs::canonicalize(cache).ok();
    let mut placed = Vec::new();
    for (name, path) in skills {
        let place = dir.join(name);
        let existing = std::fs::symlink_metadata(&place).ok();
        let cached = cache
            .as_ref()
            .is_some_and(|cache| Path::new(path).starts_with(cache));
        if cached {
            if !existing.is_some_and(|meta| meta.is_dir()) {
                remove(&place).map_err(failed)?;
                copy::copy_folder(Path::new(path), &place).map_err(failed)?;
            }
            placed.push(Skill {
                name: name.clone(),
                path: place.display().to_string(),
            });
        } else {
            remove(&place).map_err(failed)?;
            std::os::unix::fs::symlink(path, &place).map_err(failed)?;
            placed.push(Skill {
                name: name.clone(),
                path: path.clone(),
            });
        }
    }
    Ok(placed)
}

/// Removes what is at `path` (a link, a file or a folder), if anything.
fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// `root/subpath`, refusing a subpath that climbs out of `root`.
fn inside(root: &Path, subpath: &str) -> Result<PathBuf, SessionError> {
    let relative = Path::new(subpath);
    let climbs = relative.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if climbs {
        return Err(SessionError::InvalidRequest(format!(
            "skill subpath {subpath:?} must be relative and stay inside its source"
        )));
    }
    Ok(root.join(relative))
}

/// The skill folders of a source: the folder itself when it holds a `SKILL.md`,
/// else each of its sub-folders that does, by folder name. With `confine`, a
/// folder that a link takes out of `confine` (a git clone) is refused or skipped.
fn skill_folders(root: &Path, confine: Option<&Path>) -> Result<BTreeMap<String, PathBuf>, String> {
    let resolve = |path: &Path| {
        std::fs::canonicalize(path).map_err(|error| format!("{}: {error}", path.display()))
    };
    let confine = confine.map(resolve).transpose()?;
    let stays = |path: &Path| {
        confine
            .as_ref()
            .is_none_or(|confine| path.starts_with(confine))
    };
    let root = resolve(root)?;
    if !stays(&root) {
        return Err("the subpath leaves the repository through a link".into());
    }
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
        let inside = confine.is_none() || resolve(&path).is_ok_and(|path| stays(&path));
        if inside && path.join("SKILL.md").is_file() {
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

#[cfg(test)]
mod tests;
