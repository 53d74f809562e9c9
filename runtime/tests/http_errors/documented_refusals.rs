//! Requests the OpenAPI document allows are not refused as bad requests: what the
//! filesystem holds (a directory where a file is needed, a working directory that
//! does not exist) is a `404` or a `409`, an empty working directory is none, and
//! what is a bad request (an empty agent id, a malformed version) the document
//! says is one.

use super::*;

/// A daemon confined to a fresh folder (`--fs-root`), which holds `dir/` and `file`.
fn confined() -> (Daemon, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("dir")).unwrap();
    std::fs::write(root.path().join("file"), "x").unwrap();
    let daemon = Daemon::start_with(Options {
        args: vec!["--fs-root".into(), root.path().display().to_string()],
        ..Options::default()
    });
    (daemon, root)
}

#[test]
fn the_wrong_kind_of_entry_is_a_conflict_and_a_missing_one_not_found() {
    let (daemon, _root) = confined();
    let api = Api::new(&daemon);
    let put = |path: &str| {
        api.client()
            .put(daemon.url(&format!("/v1/fs/file?path={path}")))
            .body("x")
            .send()
            .unwrap()
    };
    expect_problem(api.get("/v1/fs/file?path=dir"), 409, "path_conflict");
    expect_problem(put("dir"), 409, "path_conflict");
    expect_problem(put("file/below"), 409, "path_conflict");
    expect_problem(api.get("/v1/fs/entries?path=file"), 409, "path_conflict");
    for route in ["/v1/processes/run", "/v1/processes"] {
        let run = |cwd: &str| api.post_json(route, json!({ "command": "true", "cwd": cwd }));
        let problem = expect_problem(run("missing"), 404, "path_not_found");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .starts_with("working directory "),
            "{problem}"
        );
        expect_problem(run("file"), 409, "path_conflict");
    }
    let create = |directory: &str| {
        api.post_json(
            "/v1/sessions/s",
            json!({ "agent": "mock", "directory": directory }),
        )
    };
    expect_problem(create("missing"), 404, "path_not_found");
    expect_problem(create("file"), 409, "path_conflict");
    assert_eq!(api.get_ok("/v1/sessions")["sessions"], json!([]));
}

#[test]
fn an_empty_working_directory_is_none() {
    let (daemon, root) = confined();
    let api = Api::new(&daemon);
    let real_root = std::fs::canonicalize(root.path()).unwrap();
    let run = ok_json(api.post_json("/v1/processes/run", json!({ "command": "pwd", "cwd": "" })));
    assert_eq!(
        run["stdout"].as_str().unwrap().trim_end(),
        real_root.display().to_string(),
        "{run}"
    );
    let process = ok_json(api.post_json("/v1/processes", json!({ "command": "true", "cwd": "" })));
    assert_eq!(process["cwd"], real_root.display().to_string(), "{process}");
    ok_json(api.post_json(
        "/v1/sessions/s",
        json!({ "agent": "mock", "directory": "" }),
    ));
    assert_eq!(
        api.session_info("s")["directory"],
        real_root.display().to_string()
    );
}

#[test]
fn what_the_document_refuses_the_daemon_refuses() {
    let daemon = Daemon::start();
    let api = Api::new(&daemon);
    let document = api.get_ok("/v1/openapi.json");
    let schemas = &document["components"]["schemas"];
    let session = &schemas["CreateSessionRequest"]["properties"];
    assert_eq!(session["agent"]["minLength"], 1);
    let problem = expect_problem(
        api.post_json("/v1/sessions/s", json!({ "agent": "" })),
        400,
        "unsupported_agent",
    );
    assert_eq!(problem["agent"], "", "{problem}");
    // A version is checked whatever the agent (the builtin mock installs nothing).
    let version = &schemas["AgentInstallRequest"]["properties"]["version"]["pattern"];
    assert_eq!(session["agentVersion"]["pattern"], *version);
    for bad in ["", "1 2", "../1"] {
        expect_problem(
            api.post_json(
                "/v1/sessions/s",
                json!({ "agent": "mock", "agentVersion": bad }),
            ),
            400,
            "invalid_request",
        );
        expect_problem(
            api.post_json("/v1/agents/mock/install", json!({ "version": bad })),
            400,
            "invalid_request",
        );
    }
    // Input is base64 with the unused bits of its last character at zero.
    assert!(
        schemas["ProcessInputRequest"]["else"]["properties"]["data"]["pattern"]
            .as_str()
            .unwrap()
            .contains("[AQgw]==")
    );
    let process = ok_json(api.post_json(
        "/v1/processes",
        json!({ "command": "cat", "interactive": true }),
    ));
    let input = format!("/v1/processes/{}/input", process["id"].as_str().unwrap());
    ok_json(api.post_json(&input, json!({ "data": "aGk=" })));
    expect_problem(
        api.post_json(&input, json!({ "data": "aGl=" })),
        400,
        "invalid_request",
    );
}
