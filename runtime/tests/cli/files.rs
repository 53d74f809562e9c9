//! `fs` subcommands: files streamed both ways, a directory uploaded as a tar archive
//! built on the fly, and the problem of a failed call.

use std::io::Write;

use super::*;

fn fs_cli(daemon: &Daemon, args: &[&str]) -> Output {
    let mut full = vec!["fs"];
    full.extend_from_slice(args);
    cli(daemon, &full)
}

#[test]
fn fs_commands_cover_every_route() {
    let daemon = start_daemon();
    let work = tempfile::tempdir().unwrap();
    let root = work.path();
    let at = |p: &str| root.join(p).display().to_string();

    let local = root.join("local.txt");
    std::fs::write(&local, "from a file").unwrap();
    let written = json_ok(&fs_cli(
        &daemon,
        &["put", &at("d/a.txt"), "--from", local.to_str().unwrap()],
    ));
    assert_eq!(
        written,
        json!({ "path": at("d/a.txt"), "bytesWritten": 11 })
    );

    // From stdin.
    let mut put = client_command(&daemon, &["fs", "put", &at("d/b.txt")]);
    put.stdin(Stdio::piped());
    let mut child = put.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"from stdin")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(json_ok(&output)["bytesWritten"], 10);

    let cat = fs_cli(&daemon, &["cat", &at("d/b.txt")]);
    assert!(cat.status.success(), "{}", describe(&cat));
    assert_eq!(cat.stdout, b"from stdin");

    let listing = json_ok(&fs_cli(&daemon, &["ls", &at("d")]));
    let names: Vec<_> = listing
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, [json!("a.txt"), json!("b.txt")]);
    assert_eq!(
        json_ok(&fs_cli(&daemon, &["stat", &at("d/a.txt")]))["size"],
        11
    );
    assert_eq!(
        json_ok(&fs_cli(&daemon, &["mkdir", &at("d/e")]))["path"],
        at("d/e")
    );
    let moved = json_ok(&fs_cli(&daemon, &["mv", &at("d/a.txt"), &at("d/e/a.txt")]));
    assert_eq!(moved["to"], at("d/e/a.txt"));
    problem_failure(
        &fs_cli(&daemon, &["mv", &at("d/b.txt"), &at("d/e/a.txt")]),
        "path_conflict",
        409,
    );
    json_ok(&fs_cli(
        &daemon,
        &["mv", &at("d/b.txt"), &at("d/e/a.txt"), "--overwrite"],
    ));
    problem_failure(&fs_cli(&daemon, &["rm", &at("d")]), "path_conflict", 409);
    json_ok(&fs_cli(&daemon, &["rm", "-r", &at("d")]));
    assert!(!root.join("d").exists());
    problem_failure(
        &fs_cli(&daemon, &["cat", &at("d/b.txt")]),
        "path_not_found",
        404,
    );

    // A local directory goes up as a tar archive.
    let tree = root.join("tree");
    std::fs::create_dir_all(tree.join("src")).unwrap();
    std::fs::write(tree.join("src/main.rs"), "fn main() {}").unwrap();
    std::fs::write(tree.join("README.md"), "# tree").unwrap();
    let uploaded = json_ok(&fs_cli(
        &daemon,
        &["upload", tree.to_str().unwrap(), "--to", &at("copy")],
    ));
    assert_eq!(uploaded["truncated"], false);
    assert_eq!(
        std::fs::read_to_string(root.join("copy/src/main.rs")).unwrap(),
        "fn main() {}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("copy/README.md")).unwrap(),
        "# tree"
    );
}
