//! A session moves to another daemon (another home, data dir and working
//! directory) as one archive: `GET /v1/sessions/{id}/export`, then
//! `POST /v1/sessions/{id}/import`. The mock keeps its whole session in its
//! adapter state, so these show the universal side; the conformance suite moves
//! the real agents' own sessions.

use std::io::Read;

use serde_json::{json, Value};

use crate::common::api::{expect_no_content, expect_problem, ok_json, types, Api};
use crate::common::{Daemon, Options};

/// A daemon whose agents' home is a folder of its own.
fn daemon_at_home() -> (Daemon, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(Options {
        env: vec![("HOME".into(), home.path().display().to_string())],
        ..Options::default()
    });
    (daemon, home)
}

/// The files of a gzip-compressed tar, by name.
fn entries(archive: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    tar.entries()
        .unwrap()
        .map(|entry| {
            let mut entry = entry.unwrap();
            let name = entry.path().unwrap().display().to_string();
            let mut contents = Vec::new();
            entry.read_to_end(&mut contents).unwrap();
            (name, contents)
        })
        .collect()
}

/// A gzip-compressed tar of `files`.
fn pack(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (name, contents) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(contents.len() as u64);
        header.set_mode(0o600);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        tar.append_data(&mut header, name, contents.as_slice())
            .unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// The manifest of an archive.
fn manifest(archive: &[u8]) -> Value {
    let (_, json) = entries(archive)
        .into_iter()
        .find(|(name, _)| name == "manifest.json")
        .expect("a manifest");
    serde_json::from_slice(&json).unwrap()
}

/// Events without what differs between two daemons' copies of them.
fn comparable(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .map(|event| {
            let mut event = event.clone();
            event.as_object_mut().unwrap().remove("session_id");
            event
        })
        .collect()
}

#[test]
fn a_session_moves_to_another_daemon_and_carries_on() {
    let (first, _first_home) = daemon_at_home();
    let api = Api::new(&first);
    let old_dir = tempfile::tempdir().unwrap();
    ok_json(api.post_json(
        "/v1/sessions/talk",
        json!({
            "agent": "mock",
            "directory": old_dir.path(),
            "env": { "GREETING": "hi", "ACME_API_KEY": "sk-not-for-the-archive" },
        }),
    ));
    api.turn("talk", "echo before the move");
    // A session waiting for its permission when it moves.
    api.create("asking", "mock");
    api.send("asking", "permission ls");
    api.wait_for_type("asking", 0, "permission.requested");

    let talk = api.export("talk");
    let asking = api.export("asking");
    let listed = manifest(&talk);
    assert_eq!(listed["format"], "agentplex-session");
    assert_eq!(listed["agent"], "mock");
    assert_eq!(listed["secrets"], json!(["ACME_API_KEY"]));
    assert_eq!(listed["events"], json!(api.last_sequence("talk")));
    assert_eq!(
        listed["native"]["lost"],
        Value::Null,
        "the mock's session moves: {listed}"
    );
    let bytes: Vec<u8> = entries(&talk).into_iter().flat_map(|(_, c)| c).collect();
    assert!(
        !String::from_utf8_lossy(&bytes).contains("sk-not-for-the-archive"),
        "a secret variable went into the archive"
    );
    let before = api.events("talk");
    let asked_before = api.events("asking");

    let (second, _second_home) = daemon_at_home();
    let moved = Api::new(&second);
    let new_dir = tempfile::tempdir().unwrap();
    let query = format!("?directory={}", new_dir.path().display());
    let answer = ok_json(moved.import("moved", &query, talk.clone(), &[("ACME_API_KEY", "sk-2")]));
    assert_eq!(answer["session"]["sessionId"], "moved");
    assert_eq!(answer["session"]["directory"], json!(new_dir.path()));
    assert_eq!(answer["missingSecrets"], json!([]));
    assert_eq!(answer["session"]["eventCount"], json!(before.len()));
    // The transcript is the same, under the new id.
    let after = moved.events("moved");
    assert!(after.iter().all(|e| e["session_id"] == "moved"));
    assert_eq!(comparable(&after), comparable(&before));
    // It carries on from where it was: numbering, item ids and turns go on.
    let last = moved.last_sequence("moved");
    let turn = moved.turn("moved", "echo after the move");
    assert!(turn.iter().all(|e| e["sequence"].as_u64().unwrap() > last));
    assert!(types(&turn).contains(&"turn.ended".to_owned()), "{turn:?}");
    let turn_ids: Vec<&Value> = turn
        .iter()
        .filter_map(|e| e["data"].get("turn_id"))
        .collect();
    assert_eq!(
        turn_ids[0], "turn_2",
        "the mock's own state moved too: {turn:?}"
    );

    // The permission asked before the move is answerable after it.
    let answer = ok_json(moved.import("asking", "", asking, &[]));
    assert_eq!(answer["session"]["status"], "awaiting_input");
    let permission = asked_before
        .iter()
        .find(|e| e["type"] == "permission.requested")
        .unwrap();
    let permission_id = permission["data"]["permission_id"].as_str().unwrap();
    let offset = moved.last_sequence("asking");
    expect_no_content(
        moved.post_json(
            &format!("/v1/sessions/asking/permissions/{permission_id}/reply"),
            json!({ "reply": "once" }),
        ),
        "replying after the move",
    );
    let rest = moved.wait_for_type("asking", offset, "turn.ended");
    assert_eq!(
        rest.iter()
            .find(|e| e["type"] == "permission.resolved")
            .unwrap()["data"]["status"],
        json!("accept")
    );

    // An import onto an id that is taken is a conflict.
    expect_problem(
        moved.import("moved", &query, talk.clone(), &[]),
        409,
        "session_already_exists",
    );
    // Several variables in one header, form-encoded (what a `fetch` client sends),
    // reach the agent's processes.
    let response = moved
        .client()
        .post(second.url(&format!("/v1/sessions/keyed/import{query}")))
        .header("content-type", "application/gzip")
        .header("x-agentplex-env", "ACME_API_KEY=sk-3&SHOWN=a%26b+c")
        .body(talk.clone())
        .send()
        .unwrap();
    let answer = ok_json(response);
    assert_eq!(answer["missingSecrets"], json!([]), "{answer}");
    let shown = moved.turn("keyed", "shell echo \"$SHOWN/$ACME_API_KEY\"");
    assert!(
        serde_json::to_string(&shown)
            .unwrap()
            .contains("a&b c/sk-3"),
        "{}",
        crate::common::api::pretty(&shown)
    );
    // A header that is not NAME=value pairs is refused.
    for header in ["ACME_API_KEY", "A%3DB=x", "A=x%00y", "1A=x"] {
        let response = moved
            .client()
            .post(second.url("/v1/sessions/refused/import"))
            .header("content-type", "application/gzip")
            .header("x-agentplex-env", header)
            .body(talk.clone())
            .send()
            .unwrap();
        expect_problem(response, 400, "invalid_request");
    }
    // A secret the import was not given is named; the directory defaults to the
    // session's own when it exists here.
    let answer = ok_json(moved.import("unkeyed", "", talk.clone(), &[]));
    assert_eq!(answer["missingSecrets"], json!(["ACME_API_KEY"]));
    assert_eq!(answer["session"]["directory"], json!(old_dir.path()));
    // Without a directory and with the old one gone, the import asks for one.
    drop(old_dir);
    let problem = expect_problem(moved.import("again", "", talk, &[]), 400, "invalid_request");
    assert!(
        problem["detail"].as_str().unwrap().contains("directory"),
        "{problem}"
    );
}

#[test]
fn an_ended_session_moves_readable() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    api.create("done", "mock");
    api.turn("done", "echo one turn");
    expect_no_content(api.post_empty("/v1/sessions/done/terminate"), "terminating");
    api.wait_for_type("done", 0, "session.ended");
    let archive = api.export("done");
    let other = Daemon::start();
    let moved = Api::new(&other);
    let answer = ok_json(moved.import("done", "", archive, &[]));
    assert_eq!(answer["session"]["ended"], true);
    assert_eq!(
        comparable(&moved.events("done")),
        comparable(&api.events("done"))
    );
    expect_problem(
        moved.post_json("/v1/sessions/done/messages", json!({ "message": "hi" })),
        409,
        "session_ended",
    );
}

/// An export asked for while its session ends answers with the archive, whichever
/// comes first (a request the ending task left unanswered once gave 409).
#[test]
fn a_session_ending_while_it_is_exported_still_exports() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    for round in 0..20 {
        let id = format!("ending-{round}");
        api.create(&id, "mock");
        api.turn(&id, "echo one turn");
        std::thread::scope(|scope| {
            scope.spawn(|| {
                expect_no_content(
                    api.post_empty(&format!("/v1/sessions/{id}/terminate")),
                    "terminating",
                )
            });
            for _ in 0..3 {
                assert!(!api.export(&id).is_empty());
            }
        });
    }
}

#[test]
fn a_bad_archive_is_refused_and_writes_nothing() {
    let source = Daemon::start();
    let api = Api::new(&source);
    api.create("s", "mock");
    api.turn("s", "echo something to carry");
    let good = api.export("s");
    let files = entries(&good);

    let target = Daemon::start();
    let moved = Api::new(&target);
    let refused = |archive: Vec<u8>, status: u16, code: &str, says: &str| {
        let problem = expect_problem(moved.import("s", "", archive, &[]), status, code);
        let detail = problem["detail"].as_str().unwrap_or_default().to_owned();
        assert!(detail.contains(says), "expected {says:?} in {detail:?}");
        let sessions = moved.get_ok("/v1/sessions");
        assert_eq!(
            sessions["sessions"],
            json!([]),
            "a refused import left a session"
        );
    };
    // Not an archive at all.
    refused(
        b"hello, not an archive".to_vec(),
        400,
        "invalid_archive",
        "cannot be unpacked",
    );
    // Cut short on the way.
    refused(good[..good.len() / 2].to_vec(), 400, "invalid_archive", "");
    // Another kind of archive.
    refused(
        pack(&[("notes.txt".into(), b"just notes".to_vec())]),
        400,
        "invalid_archive",
        "no manifest.json",
    );
    // A newer version than this daemon reads.
    let mut newer = files.clone();
    for (name, contents) in &mut newer {
        if name == "manifest.json" {
            let mut value: Value = serde_json::from_slice(contents).unwrap();
            value["version"] = json!(99);
            *contents = serde_json::to_vec(&value).unwrap();
        }
    }
    refused(pack(&newer), 400, "invalid_archive", "newer");
    // A file changed after the export.
    let mut damaged = files.clone();
    for (name, contents) in &mut damaged {
        if name.starts_with("events/") {
            let at = contents.len() / 2;
            contents[at] ^= 0x20;
        }
    }
    refused(pack(&damaged), 400, "invalid_archive", "damaged");
    // A file the manifest does not name.
    let mut extra = files.clone();
    extra.push(("native/99".into(), b"smuggled".to_vec()));
    refused(pack(&extra), 400, "invalid_archive", "does not name");
    // An entry that climbs out of the unpacking folder.
    let mut climbing = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let mut header = tar::Header::new_gnu();
    header.set_size(4);
    header.set_mode(0o600);
    header.set_entry_type(tar::EntryType::Regular);
    {
        let name = b"../escaped";
        let bytes = header.as_old_mut();
        bytes.name[..name.len()].copy_from_slice(name);
    }
    header.set_cksum();
    climbing.append(&header, &b"evil"[..]).unwrap();
    let climbing = climbing.into_inner().unwrap().finish().unwrap();
    refused(climbing, 400, "invalid_archive", "cannot be unpacked");
    // And the good archive goes in.
    ok_json(moved.import("s", "", good, &[]));
}
