//! `sessions export`, `sessions import` and `sessions move`.

use super::*;
use common::api::Api;

#[test]
fn a_session_goes_out_as_an_archive_and_comes_back_in_another_daemon() {
    let from = start_daemon();
    let api = Api::new(&from);
    api.create("out", "mock");
    api.turn("out", "echo carried over");
    let events = api.events("out");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.tar.gz");
    let file_text = file.to_str().unwrap();

    let exported = json_ok(&cli(&from, &["sessions", "export", "out", "-o", file_text]));
    assert_eq!(exported["path"], file_text, "{exported}");
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(exported["bytes"], json!(bytes.len()));
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a gzip archive");

    let to = start_daemon();
    let workspace = tempfile::tempdir().unwrap();
    let imported = json_ok(&cli(
        &to,
        &[
            "sessions",
            "import",
            "in",
            file_text,
            "--directory",
            workspace.path().to_str().unwrap(),
            "--env",
            "ACME_TOKEN=t",
        ],
    ));
    assert_eq!(imported["session"]["sessionId"], "in", "{imported}");
    assert_eq!(imported["session"]["eventCount"], json!(events.len()));
    assert_eq!(imported["session"]["directory"], json!(workspace.path()));
    // The same archive again onto the same id is refused.
    problem_failure(
        &cli(&to, &["sessions", "import", "in", file_text]),
        "session_already_exists",
        409,
    );
    // A file that is not an archive is refused by the daemon, one that is not
    // there by the command.
    let junk = dir.path().join("junk");
    std::fs::write(&junk, "not an archive").unwrap();
    problem_failure(
        &cli(&to, &["sessions", "import", "junk", junk.to_str().unwrap()]),
        "invalid_archive",
        400,
    );
    let missing = expect_failure(&cli(&to, &["sessions", "import", "x", "/no/such/file"]));
    assert!(
        missing.error_line.contains("/no/such/file"),
        "{}",
        missing.stderr
    );
    assert!(missing.problem.is_none());
}

#[test]
fn a_session_moves_between_daemons_and_can_leave_the_first() {
    let from = start_daemon();
    let api = Api::new(&from);
    api.create("traveller", "mock");
    api.turn("traveller", "echo on the road");
    let to = start_daemon();
    let moved = json_ok(&cli(
        &from,
        &[
            "sessions",
            "move",
            "traveller",
            "--to",
            &to.endpoint,
            "--as-id",
            "arrived",
            "--delete",
        ],
    ));
    assert_eq!(moved["session"]["sessionId"], "arrived", "{moved}");
    assert_eq!(moved["lost"], Value::Null, "{moved}");
    let there = Api::new(&to);
    let turn = there.turn("arrived", "echo still going");
    assert!(turn.iter().any(|e| e["type"] == "turn.ended"));
    problem_failure(
        &cli(&from, &["sessions", "get", "traveller"]),
        "session_not_found",
        404,
    );
    // A move to a daemon that is not there fails with the problem of the
    // connection, and the session stays.
    api.create("stays", "mock");
    let failed = expect_failure(&cli(
        &from,
        &[
            "sessions",
            "move",
            "stays",
            "--to",
            &format!("http://127.0.0.1:{}", free_port()),
        ],
    ));
    assert!(failed.problem.is_none(), "{}", failed.stderr);
    json_ok(&cli(&from, &["sessions", "get", "stays"]));
}
