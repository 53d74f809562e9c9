//! The filesystem routes (`/v1/fs/*`) end to end against the daemon binary: the 0.1.x
//! wire shapes, paths relative to a session's directory or the home directory, the
//! precise problem statuses, tar uploads (plain and gzip, hostile entries refused),
//! the size limit, and files far larger than memory streamed both ways.

#[path = "common/mod.rs"]
mod common;

use std::io::{Read, Write};
use std::path::Path;

use common::api::*;
use common::{Daemon, Options};
use serde_json::{json, Value};

/// A daemon whose home directory (the base of session-less relative paths) is `home`.
fn daemon_with_home(home: &Path, args: &[&str]) -> Daemon {
    Daemon::start_with(Options {
        env: vec![("HOME".into(), home.display().to_string())],
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    })
}

fn put(
    api: &Api,
    query: &str,
    body: impl Into<reqwest::blocking::Body>,
) -> reqwest::blocking::Response {
    api.client()
        .put(api.daemon.url(&format!("/v1/fs/file?{query}")))
        .body(body)
        .send()
        .expect("PUT")
}

fn upload(api: &Api, query: &str, archive: Vec<u8>) -> reqwest::blocking::Response {
    api.client()
        .post(api.daemon.url(&format!("/v1/fs/upload-batch?{query}")))
        .header("content-type", "application/x-tar")
        .body(archive)
        .send()
        .expect("POST upload-batch")
}

fn encoded(path: &Path) -> String {
    path.display().to_string().replace('/', "%2F")
}

#[test]
fn files_round_trip_with_the_0_1_shapes() {
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon_with_home(home.path(), &[]);
    let api = Api::new(&daemon);
    let root = home.path();

    // A relative path without a session starts at the home directory.
    let written = ok_json(put(&api, "path=notes/deep/a.txt", "hello"));
    let file = root.join("notes/deep/a.txt");
    assert_eq!(
        written,
        json!({ "path": file.display().to_string(), "bytesWritten": 5 })
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello");

    let read = api.get(&format!("/v1/fs/file?path={}", encoded(&file)));
    assert_eq!(read.status(), 200);
    assert_eq!(read.headers()["content-type"], "application/octet-stream");
    assert_eq!(read.headers()["content-length"], "5");
    assert_eq!(read.text().unwrap(), "hello");

    let stat = api.get_ok("/v1/fs/stat?path=notes/deep/a.txt");
    assert_eq!(stat["path"], file.display().to_string());
    assert_eq!(
        (&stat["entryType"], &stat["size"]),
        (&json!("file"), &json!(5))
    );
    assert!(is_rfc3339(stat["modified"].as_str().unwrap()), "{stat}");

    let made = ok_json(api.post_empty("/v1/fs/mkdir?path=notes/empty"));
    assert_eq!(
        made,
        json!({ "path": root.join("notes/empty").display().to_string() })
    );
    let listing = api.get_ok("/v1/fs/entries?path=notes");
    let names: Vec<_> = listing
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].clone(), e["entryType"].clone()))
        .collect();
    assert_eq!(
        names,
        [
            (json!("deep"), json!("directory")),
            (json!("empty"), json!("directory"))
        ]
    );
    let entry = &listing[0];
    assert_eq!(entry["path"], root.join("notes/deep").display().to_string());
    for field in ["name", "path", "entryType", "size", "modified"] {
        assert!(!entry[field].is_null(), "{field} missing: {entry}");
    }
    // No path: the home directory itself.
    let home_listing = api.get_ok("/v1/fs/entries");
    assert_eq!(home_listing[0]["name"], "notes");

    let moved = ok_json(api.post_json(
        "/v1/fs/move",
        json!({ "from": "notes/deep/a.txt", "to": "notes/b.txt" }),
    ));
    assert_eq!(
        moved,
        json!({ "from": file.display().to_string(), "to": root.join("notes/b.txt").display().to_string() })
    );
    ok_json(put(&api, "path=notes/c.txt", "c"));
    let conflict = api.post_json(
        "/v1/fs/move",
        json!({ "from": "notes/c.txt", "to": "notes/b.txt" }),
    );
    expect_problem(conflict, 409, "path_conflict");
    ok_json(api.post_json(
        "/v1/fs/move",
        json!({ "from": "notes/c.txt", "to": "notes/b.txt", "overwrite": true }),
    ));
    assert_eq!(
        std::fs::read_to_string(root.join("notes/b.txt")).unwrap(),
        "c"
    );

    ok_json(put(&api, "path=notes/deep/x", "x"));
    expect_problem(
        api.delete("/v1/fs/entry?path=notes/deep"),
        409,
        "path_conflict",
    );
    let deleted = ok_json(api.delete("/v1/fs/entry?path=notes/deep&recursive=true"));
    assert_eq!(
        deleted,
        json!({ "path": root.join("notes/deep").display().to_string() })
    );
    assert!(!root.join("notes/deep").exists());
}

#[test]
fn failures_are_problems_with_precise_statuses() {
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon_with_home(home.path(), &[]);
    let api = Api::new(&daemon);
    std::fs::create_dir(home.path().join("dir")).unwrap();

    expect_problem(
        api.get("/v1/fs/file?path=missing.txt"),
        404,
        "path_not_found",
    );
    expect_problem(
        api.get("/v1/fs/stat?path=missing.txt"),
        404,
        "path_not_found",
    );
    expect_problem(
        api.get("/v1/fs/entries?path=missing"),
        404,
        "path_not_found",
    );
    expect_problem(
        api.delete("/v1/fs/entry?path=missing"),
        404,
        "path_not_found",
    );
    expect_problem(
        api.post_json("/v1/fs/move", json!({ "from": "missing", "to": "b" })),
        404,
        "path_not_found",
    );
    // A directory where a file is needed: a conflict with what is there.
    expect_problem(api.get("/v1/fs/file?path=dir"), 409, "path_conflict");
    expect_problem(put(&api, "path=dir", "x"), 409, "path_conflict");
    expect_problem(api.get("/v1/fs/file"), 400, "invalid_request");
    expect_problem(api.get("/v1/fs/file?path="), 400, "invalid_request");
    expect_problem(
        api.post_json("/v1/fs/move", json!({ "from": "a" })),
        400,
        "invalid_request",
    );
    expect_problem(
        api.post_json("/v1/fs/move", json!({ "from": "dir", "to": "dir/inside" })),
        400,
        "invalid_request",
    );
    expect_problem(
        api.get("/v1/fs/stat?path=x&sessionId=nobody"),
        404,
        "session_not_found",
    );
    expect_problem(
        api.delete("/v1/fs/entry?path=/&recursive=true"),
        400,
        "invalid_request",
    );
    let form = api
        .client()
        .post(daemon.url("/v1/fs/upload-batch?path=up"))
        .header("content-type", "multipart/form-data; boundary=x")
        .body("--x--")
        .send()
        .unwrap();
    expect_problem(form, 415, "unsupported_media_type");
    // A file in the way of a directory.
    ok_json(put(&api, "path=plain", "x"));
    expect_problem(
        api.post_empty("/v1/fs/mkdir?path=plain"),
        409,
        "path_conflict",
    );
    expect_problem(
        api.post_empty("/v1/fs/mkdir?path=plain/sub"),
        409,
        "path_conflict",
    );

    // Not permitted (root ignores permission bits, so only checked as another user).
    let locked = home.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("secret"), "s").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read_dir(&locked).is_err() {
        expect_problem(
            api.get("/v1/fs/entries?path=locked"),
            403,
            "permission_denied",
        );
        expect_problem(
            api.get("/v1/fs/file?path=locked/secret"),
            403,
            "permission_denied",
        );
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn relative_paths_of_a_session_start_at_its_directory() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let daemon = daemon_with_home(home.path(), &[]);
    let api = Api::new(&daemon);
    let created = api.post_json(
        "/v1/sessions/s1",
        json!({ "agent": "mock", "directory": work.path().display().to_string() }),
    );
    ok_json(created);
    for session in ["sessionId=s1", "session_id=s1"] {
        ok_json(put(
            &api,
            &format!("path=src/lib.rs&{session}"),
            "fn f() {}",
        ));
        let listing = api.get_ok(&format!("/v1/fs/entries?{session}"));
        assert_eq!(
            listing[0]["path"],
            work.path().join("src").display().to_string()
        );
    }
    assert_eq!(
        std::fs::read_to_string(work.path().join("src/lib.rs")).unwrap(),
        "fn f() {}"
    );
    assert!(!home.path().join("src").exists());
    // An absolute path ignores the session, known or not.
    let elsewhere = home.path().join("abs.txt");
    ok_json(put(
        &api,
        &format!("path={}&sessionId=unknown", encoded(&elsewhere)),
        "a",
    ));
    assert!(elsewhere.exists());
}

fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, path, *data).unwrap();
    }
    builder.into_inner().unwrap()
}

/// A tar archive with an entry named `../escape`, which `tar::Builder` refuses to write.
fn escaping_tar() -> Vec<u8> {
    let mut header = tar::Header::new_gnu();
    header.as_old_mut().name[..9].copy_from_slice(b"../escape");
    header.set_size(1);
    header.set_mode(0o644);
    header.set_cksum();
    let mut builder = tar::Builder::new(Vec::new());
    builder.append(&header, &b"x"[..]).unwrap();
    builder.into_inner().unwrap()
}

#[test]
fn archives_unpack_under_the_target_and_hostile_ones_write_nothing() {
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon_with_home(home.path(), &[]);
    let api = Api::new(&daemon);
    let archive = tar_of(&[("src/main.rs", b"fn main() {}"), ("README.md", b"# hi")]);
    let answer = ok_json(upload(&api, "path=repo", archive.clone()));
    let repo = home.path().join("repo");
    assert_eq!(
        answer,
        json!({
            "paths": [repo.join("src/main.rs").display().to_string(), repo.join("README.md").display().to_string()],
            "truncated": false,
        })
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("src/main.rs")).unwrap(),
        "fn main() {}"
    );

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&archive).unwrap();
    ok_json(upload(&api, "path=zipped", gz.finish().unwrap()));
    assert!(home.path().join("zipped/README.md").is_file());

    let mut hostile = tar_of(&[("first.txt", b"1")]);
    hostile.truncate(hostile.len() - 1024); // drop the end-of-archive blocks
    hostile.extend(escaping_tar());
    let problem = expect_problem(upload(&api, "path=evil", hostile), 400, "invalid_request");
    assert!(
        problem["detail"].as_str().unwrap().contains("outside"),
        "{problem}"
    );
    assert!(!home.path().join("escape").exists());
    assert_eq!(
        std::fs::read_dir(home.path().join("evil")).unwrap().count(),
        0
    );

    expect_problem(
        upload(&api, "path=junk", b"not an archive".repeat(100)),
        400,
        "invalid_request",
    );
}

#[test]
fn bodies_over_the_limit_are_refused_and_leave_nothing() {
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon_with_home(home.path(), &["--fs-max-bytes", "1000"]);
    let api = Api::new(&daemon);
    ok_json(put(&api, "path=f", "old"));
    let problem = expect_problem(
        put(&api, "path=f", vec![b'x'; 1001]),
        413,
        "payload_too_large",
    );
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("--fs-max-bytes") && detail.contains("1000"),
        "{problem}"
    );
    // Without a declared length (chunked), the limit is found while streaming.
    let chunked = reqwest::blocking::Body::new(std::io::Cursor::new(vec![b'y'; 5000]));
    expect_problem(put(&api, "path=f", chunked), 413, "payload_too_large");
    assert_eq!(
        std::fs::read_to_string(home.path().join("f")).unwrap(),
        "old"
    );
    let archive = tar_of(&[("big", &[0u8; 4096])]);
    expect_problem(
        upload(&api, "path=up", archive.clone()),
        413,
        "payload_too_large",
    );
    let chunked = reqwest::blocking::Body::new(std::io::Cursor::new(archive));
    let streamed = api
        .client()
        .post(daemon.url("/v1/fs/upload-batch?path=up"))
        .header("content-type", "application/x-tar")
        .body(chunked)
        .send()
        .unwrap();
    expect_problem(streamed, 413, "payload_too_large");
    assert_eq!(
        std::fs::read_dir(home.path().join("up")).unwrap().count(),
        0
    );
    let names: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "only f and the empty up folder: {names:?}");
}

/// Deterministic bytes: a counter pattern, `len` of them.
struct Pattern {
    at: u64,
    len: u64,
}

impl Read for Pattern {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min((self.len - self.at) as usize);
        for (i, byte) in buf[..n].iter_mut().enumerate() {
            *byte = ((self.at + i as u64) % 251) as u8;
        }
        self.at += n as u64;
        Ok(n)
    }
}

fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn files_larger_than_memory_budgets_stream_both_ways() {
    const LEN: u64 = 256 << 20;
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon_with_home(home.path(), &[]);
    let client = reqwest::blocking::Client::builder()
        .timeout(None)
        .build()
        .unwrap();
    let body = reqwest::blocking::Body::sized(Pattern { at: 0, len: LEN }, LEN);
    let written: Value = client
        .put(daemon.url("/v1/fs/file?path=big.bin"))
        .body(body)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(written["bytesWritten"], json!(LEN));
    let mut response = client
        .get(daemon.url("/v1/fs/file?path=big.bin"))
        .send()
        .unwrap();
    assert_eq!(response.headers()["content-length"], LEN.to_string());
    let (mut expected, mut buf, mut got) = (
        Pattern { at: 0, len: LEN },
        vec![0u8; 1 << 16],
        vec![0u8; 1 << 16],
    );
    let mut total = 0u64;
    loop {
        let n = response.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        expected.read_exact(&mut got[..n]).unwrap();
        assert!(buf[..n] == got[..n], "bytes differ near offset {total}");
        total += n as u64;
    }
    assert_eq!(total, LEN);
    let peak = peak_rss_kib(daemon.pid());
    assert!(
        peak < 128 << 10,
        "the daemon peaked at {peak} KiB moving a {LEN}-byte file: it buffered it"
    );
}
