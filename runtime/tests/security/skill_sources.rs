//! Git skill sources, attacked through the real daemon with real git: options
//! smuggled in a source or a ref run nothing, only https and ssh are fetched (and
//! local repositories with `--allow-local-skill-repos`), a fetch that never ends
//! is killed at `--skill-fetch-timeout-ms` with its whole process group, creates
//! that want the same source share one clone, and each session gets its own copy
//! of its skills (what its agent writes there changes nothing for another).
//!
//! The ssh "server" is a stand-in `GIT_SSH_COMMAND` that notes each connection,
//! waits, and runs the remote command (`git-upload-pack '<path>'`) here.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::common::api::*;
use super::common::{fake_claude, Daemon, Options};
use serde_json::{json, Value};
use tempfile::TempDir;

/// A daemon whose `claude` is a stand-in, whose ssh is `ssh` (see [`fake_ssh`]),
/// with `args` more.
fn daemon(install: &Path, ssh: &Path, args: &[&str]) -> Daemon {
    fake_claude(install, "");
    let mut all = vec!["--install-dir".to_owned(), path(install)];
    all.extend(args.iter().map(|arg| (*arg).to_owned()));
    Daemon::start_with(Options {
        args: all,
        env: vec![("GIT_SSH_COMMAND".into(), path(ssh))],
        ..Options::default()
    })
}

fn path(path: &Path) -> String {
    path.display().to_string()
}

/// A stand-in ssh in `dir`: past git's `-G` probe (which asks whether it is
/// OpenSSH), notes its pid in `connections`, runs `wait` (shell), then runs the
/// command git asked the server for, here.
fn fake_ssh(dir: &Path, connections: &Path, wait: &str) -> PathBuf {
    let script = dir.join("fake-ssh");
    let body = format!(
        "#!/bin/sh\n[ \"$1\" = -G ] && exit 0\necho $$ >> '{}'\n{wait}\nfor last; do :; done\nexec sh -c \"$last\"\n",
        connections.display()
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// A repository in `dir/repo` holding the skill `lint`.
fn repository(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("lint")).unwrap();
    std::fs::write(repo.join("lint/SKILL.md"), "# lint\n").unwrap();
    for args in [
        &["init", "--quiet"][..],
        &["add", "."],
        &["commit", "--quiet", "-m", "skills"],
    ] {
        let output = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    }
    repo
}

/// A create request for `claude` with one git skill source.
fn with_source(source: &str, git_ref: Option<&str>) -> Value {
    let mut source = json!({ "type": "git", "source": source });
    if let Some(git_ref) = git_ref {
        source["ref"] = json!(git_ref);
    }
    json!({ "agent": "claude", "skills": { "sources": [source] } })
}

/// The entries of the daemon's skills cache (none when it was never made).
fn cache_entries(daemon: &Daemon) -> Vec<String> {
    let cache = daemon.data_dir.path().join("skills");
    let Ok(entries) = std::fs::read_dir(cache) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// The session's skill folder `<scratch>/skills/<name>`.
fn placed(daemon: &Daemon, session: &str, name: &str) -> PathBuf {
    daemon
        .data_dir
        .path()
        .join("scratch")
        .join(session)
        .join("skills")
        .join(name)
}

#[test]
fn options_smuggled_in_a_source_or_a_ref_run_nothing_and_other_schemes_are_refused() {
    let dir = TempDir::new().unwrap();
    let repo = repository(dir.path());
    let connections = dir.path().join("connections");
    let ssh = fake_ssh(dir.path(), &connections, "");
    let daemon = daemon(dir.path(), &ssh, &[]);
    let api = Api::new(&daemon);
    let marker = dir.path().join("pwned");
    let touch = format!("--upload-pack=touch {};", marker.display());
    let attacks = [
        // The source is an option; the repository hides in the ref.
        with_source(&touch, Some(&path(&repo))),
        // The ref is an option of a good ssh source.
        with_source(&format!("host:{}", repo.display()), Some(&touch)),
        with_source(&format!("ext::sh -c touch% {}", marker.display()), None),
        with_source(&format!("fd::3,{}", marker.display()), None),
        with_source("http://127.0.0.1:9/skills.git", None),
        with_source("git://127.0.0.1:9/skills.git", None),
        with_source("ssh://-oProxyCommand=touch%20pwned/skills", None),
        with_source(&format!("file://{}", repo.display()), None),
        with_source(&path(&repo), None),
    ];
    for (n, attack) in attacks.into_iter().enumerate() {
        let problem = expect_problem(
            api.post_json(&format!("/v1/sessions/attack-{n}"), attack.clone()),
            400,
            "invalid_request",
        );
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("https://") || detail.contains("not a git ref name"),
            "{attack}: {detail}"
        );
    }
    assert!(!marker.exists(), "a smuggled git option ran");
    assert!(!connections.exists(), "git connected to a refused source");
    assert!(
        cache_entries(&daemon).is_empty(),
        "{:?}",
        cache_entries(&daemon)
    );
}

#[test]
fn a_fetch_that_never_answers_is_killed_at_the_timeout_with_its_process_group() {
    let dir = TempDir::new().unwrap();
    let repo = repository(dir.path());
    let connections = dir.path().join("connections");
    // The "server" and a child of its own wait for ten minutes.
    let ssh = fake_ssh(
        dir.path(),
        &connections,
        &format!("sleep 600 & echo $! >> '{}'; wait", connections.display()),
    );
    let daemon = daemon(dir.path(), &ssh, &["--skill-fetch-timeout-ms", "1000"]);
    let api = Api::new(&daemon);
    let started = Instant::now();
    let problem = expect_problem(
        api.post_json(
            "/v1/sessions/slow",
            with_source(&format!("host:{}", repo.display()), None),
        ),
        504,
        "timeout",
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("--skill-fetch-timeout-ms"),
        "{problem}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let pids = std::fs::read_to_string(&connections).unwrap();
    let pids: Vec<&str> = pids.lines().collect();
    assert_eq!(pids.len(), 2, "{pids:?}");
    super::common::wait_until(DEADLINE, "the fetch's processes gone", || {
        pids.iter().all(|pid| !alive(pid))
    });
    assert!(
        cache_entries(&daemon).is_empty(),
        "a clone was left behind: {:?}",
        cache_entries(&daemon)
    );
}

/// Whether process `pid` still runs (a zombie does not).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

#[test]
fn concurrent_creates_share_one_clone_and_each_session_writes_its_own_copy() {
    let dir = TempDir::new().unwrap();
    let repo = repository(dir.path());
    let connections = dir.path().join("connections");
    let ssh = fake_ssh(dir.path(), &connections, "sleep 1");
    let daemon = daemon(dir.path(), &ssh, &[]);
    let source = format!("host:{}", repo.display());
    std::thread::scope(|scope| {
        let creates: Vec<_> = (0..4)
            .map(|n| {
                let (daemon, source) = (&daemon, &source);
                scope.spawn(move || {
                    let api = Api::new(daemon);
                    let created = ok_json(
                        api.post_json(&format!("/v1/sessions/s{n}"), with_source(source, None)),
                    );
                    assert_eq!(created["healthy"], json!(true), "{created}");
                })
            })
            .collect();
        for create in creates {
            create.join().unwrap();
        }
    });
    let connections = std::fs::read_to_string(&connections).unwrap();
    assert_eq!(connections.lines().count(), 1, "one fetch for four creates");
    assert_eq!(
        cache_entries(&daemon).len(),
        1,
        "{:?}",
        cache_entries(&daemon)
    );
    let cache = daemon.data_dir.path().join("skills");
    let mode = std::fs::metadata(&cache).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o700,
        "the skills cache is the daemon's alone"
    );

    // Session s0's agent rewrites its skill; a later session gets the original.
    let first = placed(&daemon, "s0", "lint");
    assert!(!std::fs::symlink_metadata(&first).unwrap().is_symlink());
    std::fs::write(first.join("SKILL.md"), "# hijacked\n").unwrap();
    let api = Api::new(&daemon);
    ok_json(api.post_json("/v1/sessions/later", with_source(&source, None)));
    for session in ["s1", "later"] {
        let skill = placed(&daemon, session, "lint").join("SKILL.md");
        assert_eq!(
            std::fs::read_to_string(skill).unwrap(),
            "# lint\n",
            "{session}"
        );
    }
}

#[test]
fn local_repositories_are_fetched_with_allow_local_skill_repos() {
    let dir = TempDir::new().unwrap();
    let repo = repository(dir.path());
    let ssh = fake_ssh(dir.path(), &dir.path().join("connections"), "");
    let daemon = daemon(dir.path(), &ssh, &["--allow-local-skill-repos"]);
    let api = Api::new(&daemon);
    for (session, source) in [
        ("by-url", format!("file://{}", repo.display())),
        ("by-path", path(&repo)),
    ] {
        let created = ok_json(api.post_json(
            &format!("/v1/sessions/{session}"),
            with_source(&source, None),
        ));
        assert_eq!(created["healthy"], json!(true), "{created}");
        let skill = placed(&daemon, session, "lint").join("SKILL.md");
        assert_eq!(std::fs::read_to_string(skill).unwrap(), "# lint\n");
    }
    // Still no other scheme.
    expect_problem(
        api.post_json("/v1/sessions/ext", with_source("ext::sh -c true", None)),
        400,
        "invalid_request",
    );
}
