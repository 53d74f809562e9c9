//! Moving Claude Code's own session: where its files are at a place (the slug of the
//! working directory, with the hash of long paths), and where they go at another.

use sandbox_agent_adapter_kit::prelude::*;

use crate::native_files::{base36, slug};
use crate::Claude;
use sandbox_agent_adapter_kit::native_session::place;
use sandbox_agent_adapter_kit::native_session::replace_folder;

/// Claude Code's sessions, as the kit's exports reach them.
fn sessions() -> NativeSessions {
    <Claude as Adapter>::NATIVE_SESSIONS.expect("Claude Code's sessions move")
}

fn files(id: &str, at: &Place) -> Vec<NativeSource> {
    (sessions().files)(id, at)
}

fn relocate(path: &str, contents: Vec<u8>, from: &Place, to: &Place) -> Result<MovedFile, String> {
    (sessions().relocate)(path, contents, from, to)
}

#[test]
fn the_slug_replaces_every_other_character_and_hashes_long_paths() {
    assert_eq!(slug("/tmp/ncqg/claude/C1/proj"), "-tmp-ncqg-claude-C1-proj");
    assert_eq!(slug("/a/other.dir_x b"), "-a-other-dir-x-b");
    // `é` is one UTF-16 unit, an astral character two: three dashes.
    assert_eq!(slug("/a/é😀"), "-a----");
    // The 262-character path of the notes; the CLI's folder ended in `-aqam5l`.
    let long = format!(
        "/tmp/ncqg/claudelong{}",
        (0..12)
            .map(|n| format!("/segment_with.dots-{n}"))
            .collect::<String>()
    );
    assert_eq!(long.len(), 262);
    let expected = format!(
        "-tmp-ncqg-claudelong{}-aqam5l",
        (0..9)
            .map(|n| format!("-segment-with-dots-{n}"))
            .collect::<String>()
    );
    assert_eq!(expected.len(), 200 + "-aqam5l".len());
    assert_eq!(slug(&long), expected);
    // Exactly 200: kept whole.
    let edge = format!("/{}", "x".repeat(199));
    assert_eq!(slug(&edge), format!("-{}", "x".repeat(199)));
    assert_eq!(base36(0), "0");
    assert_eq!(base36(i64::from(i32::MIN).unsigned_abs()), "zik0zk");
}

#[test]
fn session_files_are_in_the_directorys_slug_folder_of_the_config_dir() {
    let id = "58d818ed-1111-2222-3333-444455556666";
    let at = place("/home/a", "/work/C1/proj", &[]);
    let folder = "/home/a/.claude/projects/-work-C1-proj";
    assert_eq!(
        files(id, &at),
        vec![
            NativeSource::File(format!("{folder}/{id}.jsonl")),
            NativeSource::Search(FileSearch {
                folder: format!("{folder}/{id}"),
                depth: 3,
                suffix: String::new(),
            }),
        ]
    );
    let at = place(
        "/home/a",
        "/work/C1/proj",
        &[("CLAUDE_CONFIG_DIR", "/cfg/claude/")],
    );
    assert_eq!(
        files(id, &at)[0],
        NativeSource::File(format!("/cfg/claude/projects/-work-C1-proj/{id}.jsonl"))
    );
    assert!(files("../x", &at).is_empty());
    assert!(files("", &at).is_empty());
}

#[test]
fn a_transcript_moves_to_the_new_slug_folder_with_its_paths_rewritten() {
    let id = "58d818ed-1111-2222-3333-444455556666";
    let from = place("/tmp/t/homeA", "/tmp/t/C1/proj", &[]);
    let to = place("/tmp/t/homeB", "/tmp/t/C2/other.dir_x", &[]);
    let old = "/tmp/t/homeA/.claude/projects/-tmp-t-C1-proj";
    let new = "/tmp/t/homeB/.claude/projects/-tmp-t-C2-other-dir-x";
    let line = format!(
        r#"{{"type":"user","cwd":"/tmp/t/C1/proj","sessionId":"{id}","message":{{"role":"user","content":[{{"type":"tool_result","content":"<persisted-output>\nOutput too large (340.7KB). Full output saved to: {old}/{id}/tool-results/b15710sh7.txt"}}]}},"toolUseResult":{{"filePath":"/tmp/t/C1/proj/hello.txt"}},"other":"/tmp/t/C1/projects"}}"#
    );
    let moved = relocate(&format!("{old}/{id}.jsonl"), line.into_bytes(), &from, &to).unwrap();
    assert_eq!(moved.path, format!("{new}/{id}.jsonl"));
    let text = String::from_utf8(moved.contents).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"type":"user","cwd":"/tmp/t/C2/other.dir_x","sessionId":"{id}","message":{{"role":"user","content":[{{"type":"tool_result","content":"<persisted-output>\nOutput too large (340.7KB). Full output saved to: {new}/{id}/tool-results/b15710sh7.txt"}}]}},"toolUseResult":{{"filePath":"/tmp/t/C2/other.dir_x/hello.txt"}},"other":"/tmp/t/C1/projects"}}"#
        )
    );
    // A saved output keeps its name under the new folder.
    let output = format!("{old}/{id}/tool-results/b15710sh7.txt");
    let moved = relocate(&output, b"1\n2\n".to_vec(), &from, &to).unwrap();
    assert_eq!(moved.path, format!("{new}/{id}/tool-results/b15710sh7.txt"));
    assert_eq!(moved.contents, b"1\n2\n");
    // The same home (two sandboxes alike): the slug folder in saved-output paths
    // changes all the same.
    let from = place("/root", "/work/a", &[]);
    let to = place("/root", "/srv/b", &[]);
    let line = format!(
        r#"{{"cwd":"/work/a","text":"saved to: /root/.claude/projects/-work-a/{id}/tool-results/x.txt"}}"#
    );
    let moved = relocate(
        &format!("/root/.claude/projects/-work-a/{id}.jsonl"),
        line.into_bytes(),
        &from,
        &to,
    )
    .unwrap();
    assert_eq!(
        moved.path,
        format!("/root/.claude/projects/-srv-b/{id}.jsonl")
    );
    assert_eq!(
        String::from_utf8(moved.contents).unwrap(),
        format!(
            r#"{{"cwd":"/srv/b","text":"saved to: /root/.claude/projects/-srv-b/{id}/tool-results/x.txt"}}"#
        )
    );
    // A new directory with characters JSON escapes: the transcript stays JSON, a
    // saved output is plain text.
    let odd = place("/root", r#"/srv/a"b"#, &[]);
    let line = r#"{"cwd":"/work/a","path":"/work/a/x"}"#;
    let moved = relocate(
        &format!("/root/.claude/projects/-work-a/{id}.jsonl"),
        line.into(),
        &from,
        &odd,
    )
    .unwrap();
    assert_eq!(
        moved.path,
        format!("/root/.claude/projects/-srv-a-b/{id}.jsonl")
    );
    let record: serde_json::Value = serde_json::from_slice(&moved.contents).unwrap();
    assert_eq!(record["path"], r#"/srv/a"b/x"#);
    let output = format!("/root/.claude/projects/-work-a/{id}/tool-results/x.txt");
    let moved = relocate(&output, b"in /work/a\n".to_vec(), &from, &odd).unwrap();
    assert_eq!(moved.contents, b"in /srv/a\"b\n");
    // With CLAUDE_CONFIG_DIR at the new place only.
    let from = place("/tmp/t/homeA", "/tmp/t/C1/proj", &[]);
    let to = place("/root", "/srv/p", &[("CLAUDE_CONFIG_DIR", "/cfg")]);
    let moved = relocate(&format!("{old}/{id}.jsonl"), Vec::new(), &from, &to).unwrap();
    assert_eq!(moved.path, format!("/cfg/projects/-srv-p/{id}.jsonl"));
    // Not a file of the old place's sessions.
    assert!(relocate("/tmp/t/homeA/.bashrc", Vec::new(), &from, &to).is_err());
    assert!(relocate(old, Vec::new(), &from, &to).is_err());
}

#[test]
fn a_folder_is_replaced_only_where_it_ends() {
    assert_eq!(
        replace_folder("/a/b /a/bc /a/b/c \"/a/b\"", "/a/b", "/x"),
        "/x /a/bc /x/c \"/x\""
    );
}
