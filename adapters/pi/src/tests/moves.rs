//! Moving Pi's own session to another sandbox: the file Pi keeps it in
//! (`native-session-files`) and where it goes with what (`move-native-file`).

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::types::Guest;
use serde_json::{json, Value};

use crate::Pi;
use sandbox_agent_adapter_kit::native_session::place;

const SESSION: &str = "01a23a8b-20d6-7547-8d1f-337bc850e6ba";

/// A session Pi 0.73.1 recorded at home `/tmp/mig/pi/A` in `/tmp/mig/pi/C1`, with a
/// tool call added that names a file there.
const RECORDED: &str = concat!(
    r#"{"type":"session","version":3,"id":"01a23a8b-20d6-7547-8d1f-337bc850e6ba","timestamp":"2026-12-03T06:15:26.167Z","cwd":"/tmp/mig/pi/C1"}"#,
    "\n",
    r#"{"type":"model_change","id":"676c889f","parentId":null,"timestamp":"2026-12-03T06:15:26.187Z","provider":"fake","modelId":"fake"}"#,
    "\n",
    r#"{"type":"message","id":"08144de5","parentId":"676c889f","timestamp":"2026-12-03T06:15:26.200Z","message":{"role":"user","content":[{"type":"text","text":"FIRST-MESSAGE-PINEAPPLE"}],"timestamp":1796278526198}}"#,
    "\n",
    r#"{"type":"message","id":"6e18921b","parentId":"08144de5","timestamp":"2026-12-03T06:15:26.262Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"/tmp/mig/pi/C1/notes.md"}}],"provider":"fake","model":"fake","stopReason":"toolUse","timestamp":1796278526240}}"#,
    "\n",
);

const FILE_NAME: &str = "2026-12-03T06-15-26-167Z_01a23a8b-20d6-7547-8d1f-337bc850e6ba.jsonl";

fn search(folder: &str) -> Result<Vec<NativeSource>, String> {
    Ok(vec![NativeSource::Search(FileSearch {
        folder: folder.into(),
        depth: 0,
        suffix: format!("_{SESSION}.jsonl"),
    })])
}

#[test]
fn the_folder_is_named_after_the_working_directory_as_pi_names_it() {
    use crate::session_file::folder_name;
    assert_eq!(folder_name("/tmp/mig/pi/C1"), "--tmp-mig-pi-C1--");
    assert_eq!(folder_name("/a-b/c.d e"), "--a-b-c.d e--");
    assert_eq!(folder_name("C:\\Users\\me\\proj"), "--C--Users-me-proj--");
    assert_eq!(folder_name("\\\\server\\share"), "---server-share--");
    assert_eq!(folder_name("/"), "----");
}

#[test]
fn a_session_is_the_file_ending_in_its_id_in_the_folder_of_the_directory() {
    let files = |at: Place| <Pi as Guest>::native_session_files(SESSION.into(), at);
    assert_eq!(
        files(place("/tmp/mig/pi/A", "/tmp/mig/pi/C1", &[])),
        search("/tmp/mig/pi/A/.pi/agent/sessions/--tmp-mig-pi-C1--")
    );
    assert_eq!(
        files(place(
            "/home/a",
            "/work/p/",
            &[("PI_CODING_AGENT_DIR", "/data/pi/")]
        )),
        search("/data/pi/sessions/--work-p--")
    );
    assert_eq!(
        files(place(
            "/home/a",
            "/work/p",
            &[("PI_CODING_AGENT_DIR", "~/pi")]
        )),
        search("/home/a/pi/sessions/--work-p--")
    );
    assert!(<Pi as Guest>::info()
        .capabilities
        .iter()
        .any(|name| name == "move"));
}

#[test]
fn a_session_moves_to_the_new_directorys_folder_with_its_cwd() {
    let from = place("/tmp/mig/pi/A", "/tmp/mig/pi/C1", &[]);
    let to = place("/tmp/mig/pi/B", "/tmp/mig/pi/C2", &[]);
    let moved = <Pi as Guest>::move_native_file(
        format!("/tmp/mig/pi/A/.pi/agent/sessions/--tmp-mig-pi-C1--/{FILE_NAME}"),
        RECORDED.as_bytes().to_vec(),
        from.clone(),
        to,
    )
    .unwrap()
    .into_file()
    .unwrap();
    assert_eq!(
        moved.path,
        format!("/tmp/mig/pi/B/.pi/agent/sessions/--tmp-mig-pi-C2--/{FILE_NAME}")
    );
    let text = String::from_utf8(moved.contents).unwrap();
    // Only the paths change, byte for byte.
    assert_eq!(text, RECORDED.replace("/tmp/mig/pi/C1", "/tmp/mig/pi/C2"));
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["cwd"], "/tmp/mig/pi/C2");
    assert_eq!(lines[0]["id"], SESSION);
    assert_eq!(
        lines[3]["message"]["content"][0]["arguments"],
        json!({ "path": "/tmp/mig/pi/C2/notes.md" })
    );

    // To an agent folder set by `PI_CODING_AGENT_DIR`.
    let to = place("/root", "/srv/p", &[("PI_CODING_AGENT_DIR", "/data/pi")]);
    let moved = <Pi as Guest>::move_native_file(
        format!("/tmp/mig/pi/A/.pi/agent/sessions/--tmp-mig-pi-C1--/{FILE_NAME}"),
        RECORDED.as_bytes().to_vec(),
        from,
        to,
    )
    .unwrap()
    .into_file()
    .unwrap();
    assert_eq!(
        moved.path,
        format!("/data/pi/sessions/--srv-p--/{FILE_NAME}")
    );
    assert!(String::from_utf8(moved.contents).unwrap().starts_with(
        r#"{"type":"session","version":3,"id":"01a23a8b-20d6-7547-8d1f-337bc850e6ba","timestamp":"2026-12-03T06:15:26.167Z","cwd":"/srv/p"}"#
    ));
}

#[test]
fn the_header_cwd_is_the_new_directory_whatever_it_was() {
    // Recorded through a link: the header names another spelling of the directory.
    let from = place("/home/a", "/work/real", &[]);
    let to = place("/root", "/srv/p", &[]);
    let recorded = RECORDED.replace("/tmp/mig/pi/C1", "/work/link");
    let moved = <Pi as Guest>::move_native_file(
        format!("/home/a/.pi/agent/sessions/--work-real--/{FILE_NAME}"),
        recorded.into_bytes(),
        from.clone(),
        to.clone(),
    )
    .unwrap()
    .into_file()
    .unwrap();
    let text = String::from_utf8(moved.contents).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["cwd"], "/srv/p");
    assert!(text.contains("/work/link/notes.md"), "{text}");

    // A file whose first line is no session header is refused.
    let refused = <Pi as Guest>::move_native_file(
        format!("/home/a/.pi/agent/sessions/--work-real--/{FILE_NAME}"),
        b"{\"type\":\"message\"}\n".to_vec(),
        from,
        to,
    );
    assert!(refused.unwrap_err().contains("no session header"));
}
