//! `--fs-root` against the daemon binary: every file route, the working directories of
//! sessions and processes, refused outside the root and through a link inside it that
//! leads out; inside, everything works, and relative paths start at the root.

use std::path::{Path, PathBuf};

use super::common::api::*;
use super::common::{Daemon, Options};
use serde_json::json;

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    daemon: Daemon,
}

/// A root holding `inside.txt`, a link `esc` to a folder outside holding `secret`, a
/// link `abs` to `/etc`, and a link `ok` to its own `sub` folder.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let (root, outside, home) = (base.join("root"), base.join("outside"), base.join("home"));
    for folder in [&root.join("sub"), &outside, &home] {
        std::fs::create_dir_all(folder).unwrap();
    }
    std::fs::write(root.join("inside.txt"), "inside").unwrap();
    std::fs::write(outside.join("secret"), "secret").unwrap();
    std::os::unix::fs::symlink("../outside", root.join("esc")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("abs")).unwrap();
    std::os::unix::fs::symlink("sub", root.join("ok")).unwrap();
    let daemon = Daemon::start_with(Options {
        env: vec![("HOME".into(), home.display().to_string())],
        args: vec!["--fs-root".into(), root.display().to_string()],
        ..Options::default()
    });
    Setup {
        _dir: dir,
        root,
        outside,
        daemon,
    }
}

fn q(path: &Path) -> String {
    path.display().to_string().replace('/', "%2F")
}

#[track_caller]
fn denied(response: reqwest::blocking::Response) {
    let problem = expect_problem(response, 403, "permission_denied");
    assert!(
        problem["detail"].as_str().unwrap().contains("--fs-root"),
        "{problem}"
    );
}

#[test]
fn the_file_routes_stay_beneath_the_root() {
    let setup = setup();
    let api = Api::new(&setup.daemon);
    let client = api.client();
    let url = |path: &str| setup.daemon.url(path);
    let secret = setup.outside.join("secret");
    for path in [
        q(&secret),
        "esc%2Fsecret".into(),
        "..%2Foutside%2Fsecret".into(),
    ] {
        denied(api.get(&format!("/v1/fs/file?path={path}")));
        denied(api.get(&format!("/v1/fs/stat?path={path}")));
        denied(api.delete(&format!("/v1/fs/entry?path={path}")));
        let put = client
            .put(url(&format!("/v1/fs/file?path={path}")))
            .body("x");
        denied(put.send().unwrap());
    }
    for path in [q(&setup.outside), "esc".into(), "abs".into()] {
        denied(api.get(&format!("/v1/fs/entries?path={path}")));
        denied(api.post_empty(&format!("/v1/fs/mkdir?path={path}%2Fnew")));
        let upload = client
            .post(url(&format!("/v1/fs/upload-batch?path={path}")))
            .header("content-type", "application/x-tar")
            .body(vec![0u8; 1024]);
        denied(upload.send().unwrap());
    }
    denied(api.get("/v1/fs/stat?path=abs%2Fpasswd"));
    let moves = [
        json!({"from": "inside.txt", "to": secret.with_file_name("moved").display().to_string()}),
        json!({"from": "inside.txt", "to": "esc/moved"}),
        json!({"from": secret.display().to_string(), "to": "stolen"}),
    ];
    for body in moves {
        denied(api.post_json("/v1/fs/move", body));
    }
    assert_eq!(
        std::fs::read_dir(&setup.outside).unwrap().count(),
        1,
        "only the secret is outside"
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret");

    // Inside, relative paths start at the root and links that stay inside work.
    let read = api.get("/v1/fs/file?path=inside.txt");
    assert_eq!(read.text().unwrap(), "inside");
    let put = client.put(url("/v1/fs/file?path=ok%2Fnew.txt")).body("new");
    let written = ok_json(put.send().unwrap());
    let real = setup.root.join("sub/new.txt");
    assert_eq!(written["path"], real.display().to_string());
    assert_eq!(std::fs::read_to_string(real).unwrap(), "new");
    let listed = ok_json(api.get("/v1/fs/entries"));
    let names: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["abs", "esc", "inside.txt", "ok", "sub"]);
    ok_json(api.post_json(
        "/v1/fs/move",
        json!({"from": "inside.txt", "to": "sub/moved"}),
    ));
    // The link itself is inside: deleting it removes the link, not what it points to.
    ok_json(api.delete("/v1/fs/entry?path=esc"));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret");
}

#[test]
fn sessions_and_processes_work_only_beneath_the_root() {
    let setup = setup();
    let api = Api::new(&setup.daemon);
    let outside = setup.outside.display().to_string();
    for cwd in [outside.as_str(), "esc", "/"] {
        let run = json!({"command": "pwd", "cwd": cwd});
        denied(api.post_json("/v1/processes/run", run.clone()));
        denied(api.post_json("/v1/processes", run));
        let session = json!({"agent": "mock", "directory": cwd});
        denied(api.post_json("/v1/sessions/s-out", session));
    }
    let pwd = |cwd: Option<&str>| {
        let mut body = json!({"command": "pwd"});
        if let Some(cwd) = cwd {
            body["cwd"] = json!(cwd);
        }
        let ran = ok_json(api.post_json("/v1/processes/run", body));
        ran["stdout"].as_str().unwrap().trim().to_owned()
    };
    assert_eq!(pwd(None), setup.root.display().to_string());
    assert_eq!(
        pwd(Some("ok")),
        setup.root.join("sub").display().to_string()
    );
    let session = json!({"agent": "mock", "directory": "sub"});
    let created = ok_json(api.post_json("/v1/sessions/s-in", session));
    assert_eq!(created["healthy"], true, "{created}");
    let read = api.get("/v1/fs/file?path=..%2Finside.txt&sessionId=s-in");
    assert_eq!(read.text().unwrap(), "inside");
}
