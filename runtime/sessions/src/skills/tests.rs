use super::*;
use serde_json::json;

/// A cache that takes local repositories, in `dir`.
fn cache_in(dir: &Path) -> GitCache {
    let settings = GitSettings {
        allow_local: true,
        ..GitSettings::default()
    };
    GitCache::new(dir.join("cache"), settings)
}

fn config(sources: serde_json::Value) -> SkillsConfig {
    serde_json::from_value(json!({ "sources": sources })).unwrap()
}

#[tokio::test]
async fn local_skill_sources_are_searched_and_filtered() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["review", "deploy"] {
        std::fs::create_dir_all(dir.path().join("skills").join(name)).unwrap();
        std::fs::write(dir.path().join("skills").join(name).join("SKILL.md"), "# s").unwrap();
    }
    let cache = cache_in(dir.path());
    let chosen = config(json!([{ "type": "local", "source": "skills", "skills": ["review"] }]));
    let found = resolve_skills(&chosen, dir.path(), &cache).await.unwrap();
    let review = std::fs::canonicalize(dir.path().join("skills/review")).unwrap();
    assert_eq!(found, [("review".to_owned(), review.display().to_string())]);

    let single = config(json!([{ "type": "local", "source": ".", "subpath": "skills/deploy" }]));
    let found = resolve_skills(&single, dir.path(), &cache).await.unwrap();
    assert_eq!(found[0].0, "deploy");

    for bad in [
        json!({ "type": "local", "source": "skills", "skills": ["nope"] }),
        json!({ "type": "local", "source": "missing" }),
        json!({ "type": "local", "source": ".", "subpath": "../x" }),
        json!({ "type": "svn", "source": "x" }),
    ] {
        let error = resolve_skills(&config(json!([bad])), dir.path(), &cache)
            .await
            .unwrap_err();
        assert!(matches!(error, SessionError::InvalidRequest(_)), "{error}");
    }
}

#[test]
fn local_skills_are_linked_in_the_scratch_folder_again_at_each_launch() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("review");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), "# r").unwrap();
    let skills = [("review".to_owned(), skill.display().to_string())];
    let scratch = dir.path().join("scratch");
    let cache = dir.path().join("cache");
    place_skills(&scratch, &skills, &cache).unwrap();
    let placed = place_skills(&scratch, &skills, &cache).unwrap();
    assert_eq!(placed[0].path, skill.display().to_string());
    assert_eq!(
        std::fs::read_to_string(scratch.join("skills/review/SKILL.md")).unwrap(),
        "# r"
    );
    assert!(place_skills(&dir.path().join("untouched"), &[], &cache)
        .unwrap()
        .is_empty());
    assert!(!dir.path().join("untouched").exists());
}

/// A repository in `dir/repo` with `pack/lint/SKILL.md`, tagged `v1`.
fn repository(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("pack/lint")).unwrap();
    std::fs::write(repo.join("pack/lint/SKILL.md"), "# lint").unwrap();
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    };
    git(&["init", "--quiet"]);
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "skills"]);
    git(&["tag", "v1"]);
    repo
}

#[tokio::test]
async fn git_skills_are_cloned_at_their_ref_and_each_session_gets_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let source = json!([{ "type": "git", "source": repo.display().to_string(), "ref": "v1", "subpath": "pack" }]);
    let cache = cache_in(dir.path());
    let found = resolve_skills(&config(source), dir.path(), &cache)
        .await
        .unwrap();
    assert_eq!(found[0].0, "lint");
    let cache_root = std::fs::canonicalize(cache.root()).unwrap();
    assert!(Path::new(&found[0].1).starts_with(&cache_root));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(cache.root())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    let first = dir.path().join("first");
    let placed = place_skills(&first, &found, cache.root()).unwrap();
    let copy = first.join("skills/lint");
    assert_eq!(placed[0].path, copy.display().to_string());
    assert!(!std::fs::symlink_metadata(&copy).unwrap().is_symlink());
    std::fs::write(copy.join("SKILL.md"), "# changed by the agent").unwrap();
    // A later launch keeps the session's copy; another session gets the original.
    place_skills(&first, &found, cache.root()).unwrap();
    assert_eq!(
        std::fs::read_to_string(copy.join("SKILL.md")).unwrap(),
        "# changed by the agent"
    );
    let second = dir.path().join("second");
    place_skills(&second, &found, cache.root()).unwrap();
    assert_eq!(
        std::fs::read_to_string(second.join("skills/lint/SKILL.md")).unwrap(),
        "# lint"
    );
}

#[tokio::test]
async fn a_git_subpath_cannot_leave_the_clone_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside/secret");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("SKILL.md"), "# not from the repo").unwrap();
    let repo = repository(dir.path());
    std::os::unix::fs::symlink(dir.path().join("outside"), repo.join("out")).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("pack/secret")).unwrap();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap()
    };
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "links"]);
    let cache = cache_in(dir.path());
    let via_subpath =
        json!([{ "type": "git", "source": repo.display().to_string(), "subpath": "out" }]);
    let error = resolve_skills(&config(via_subpath), dir.path(), &cache)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("link"), "{error}");
    let listed =
        json!([{ "type": "git", "source": repo.display().to_string(), "subpath": "pack" }]);
    let found = resolve_skills(&config(listed), dir.path(), &cache)
        .await
        .unwrap();
    assert_eq!(
        found
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>(),
        ["lint"]
    );
}
