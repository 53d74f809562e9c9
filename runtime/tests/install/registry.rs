//! Agents of the ACP registry, added and installed by the daemon from a registry
//! snapshot: a release archive through the releases mirror (its sha256 checked),
//! a PyPI wheel from a loopback package index, each started through the launcher
//! with the registry's arguments and variables and run by the generic ACP adapter
//! (testing/acp-registry/echo_agent.py plays the agent); and the problems of a
//! registry that cannot be read or an agent that cannot be added.

use super::*;

/// The echo agent, as a program.
fn echo_agent() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testing/acp-registry/echo_agent.py");
    std::fs::read(path).unwrap()
}

/// A registry index of `agents`.
fn index(agents: Value) -> String {
    json!({ "version": "1.0.0", "agents": agents, "extensions": [] }).to_string()
}

/// An entry whose only distribution is this platform's archive at `url`.
fn archived(id: &str, url: &str, sha256: Option<String>) -> Value {
    let platform = format!("linux-{}", std::env::consts::ARCH);
    json!({
        "id": id, "name": "Echo", "version": "1.0.0", "description": "echoes",
        "distribution": { "binary": { platform: {
            "archive": url, "cmd": "./bin/echo-agent",
            "args": ["--acp", "two words"], "env": { "ECHO_GREETING": "it's me" },
            "sha256": sha256,
        } } },
    })
}

/// A daemon reading `snapshot`, installing into `install`, fetching vendor URLs
/// from `mirror`, with `env`.
fn daemon(snapshot: &Path, install: &Path, mirror: &str, env: Vec<(String, String)>) -> Daemon {
    Daemon::start_with(Options {
        env,
        ..options(snapshot, install, mirror)
    })
}

/// The options of [`daemon`], with no variables and a data dir of its own.
fn options(snapshot: &Path, install: &Path, mirror: &str) -> Options {
    Options {
        args: vec![
            "--acp-registry".into(),
            snapshot.display().to_string(),
            "--install-dir".into(),
            install.display().to_string(),
            "--releases-mirror".into(),
            mirror.into(),
        ],
        ..Options::default()
    }
}

/// The echo agent's release archive, served by `vendors`: its URL and sha256.
fn serve_echo_archive(vendors: &Vendors) -> (&'static str, String) {
    let archive = tar_gz(&[("bin/echo-agent", &echo_agent())]);
    vendors.body(
        "/releases.example/echo/echo-agent-1.0.0.tar.gz",
        archive.clone(),
    );
    let url = "https://releases.example/echo/echo-agent-1.0.0.tar.gz";
    (url, sha256(&archive))
}

/// A daemon with the echo agent added from a snapshot (in `dir`) whose entry
/// sets the agent's variable `name` to `value`; the snapshot's and the
/// install folder's paths, for a daemon after it.
fn echo_added_with(
    vendors: &Vendors,
    dir: &Path,
    name: &str,
    value: &str,
) -> (Daemon, PathBuf, PathBuf) {
    let (url, checksum) = serve_echo_archive(vendors);
    let snapshot = dir.join("registry.json");
    let mut entry = archived("echo-agent", url, Some(checksum));
    let platform = format!("linux-{}", std::env::consts::ARCH);
    entry["distribution"]["binary"][&platform]["env"][name] = json!(value);
    std::fs::write(&snapshot, index(json!([entry]))).unwrap();
    let install = dir.join("install");
    let daemon = daemon(&snapshot, &install, &vendors.base, Vec::new());
    assert_eq!(add(&daemon, "echo-agent").status().as_u16(), 201);
    (daemon, snapshot, install)
}

/// Adds `id` (an install may take minutes); the response.
fn add(daemon: &Daemon, id: &str) -> reqwest::blocking::Response {
    reqwest::blocking::Client::new()
        .post(daemon.url(&format!("/v1/registry/{id}")))
        .json(&json!({}))
        .timeout(Duration::from_secs(300))
        .send()
        .unwrap()
}

/// A turn of a new session of `agent`: the agent's answer.
fn answer(api: &Api, session: &str, agent: &str) -> String {
    api.create(session, agent);
    let events = api.turn(session, "hello registry");
    common::api::assistant_texts(&events).join("")
}

#[test]
fn an_archived_agent_is_checked_installed_launched_and_kept() {
    let vendors = Vendors::start();
    let (url, checksum) = serve_echo_archive(&vendors);
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("registry.json");
    let entries = json!([
        archived("echo-agent", url, Some(checksum)),
        archived("tampered", url, Some(sha256(b"something else"))),
    ]);
    std::fs::write(&snapshot, index(entries)).unwrap();
    let install = dir.path().join("install");
    let mut daemon = daemon(&snapshot, &install, &vendors.base, Vec::new());
    let api = Api::new(&daemon);

    let listed = api.get_ok("/v1/registry");
    assert_eq!(listed["source"], json!(snapshot.display().to_string()));
    assert_eq!(listed["agents"][0]["distributions"], json!(["binary"]));
    assert_eq!(listed["agents"][0]["installable"], json!(true));
    assert_eq!(listed["agents"][0]["added"], json!(false));

    let added = add(&daemon, "echo-agent");
    assert_eq!(added.status().as_u16(), 201);
    let info: Value = added.json().unwrap();
    assert_eq!(
        (info["installed"].clone(), info["version"].clone()),
        (json!(true), json!("1.0.0")),
        "{info}"
    );
    assert!(api.get_ok("/v1/registry")["agents"][0]["added"] == json!(true));
    let text = answer(&api, "s1", "echo-agent");
    assert!(
        text.contains("args=['--acp', 'two words'] greeting=it's me echo: hello registry"),
        "{text}"
    );

    // A download that is not the registry's is refused, and nothing is placed.
    let problem = expect_problem(add(&daemon, "tampered"), 500, "install_failed");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("checksum mismatch"),
        "{problem}"
    );
    assert!(!install.join("tampered").exists());

    // The added agent is kept: the next daemon runs it, and adding it again
    // installs nothing.
    let data = daemon.kill();
    daemon = Daemon::start_with(Options {
        data_dir: Some(data),
        ..options(&snapshot, &install, &vendors.base)
    });
    let api = Api::new(&daemon);
    let agents = api.get_ok("/v1/agents");
    let echo = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "echo-agent");
    assert_eq!(
        echo.map(|a| a["installed"].clone()),
        Some(json!(true)),
        "{agents}"
    );
    assert!(answer(&api, "s2", "echo-agent").contains("echo: hello registry"));
    let downloads = vendors.hits("/releases.example/echo/echo-agent-1.0.0.tar.gz");
    assert_eq!(add(&daemon, "echo-agent").status().as_u16(), 201);
    assert_eq!(
        vendors.hits("/releases.example/echo/echo-agent-1.0.0.tar.gz"),
        downloads
    );
}

/// A wheel of the echo agent (`echo-agent`, a console script).
fn wheel() -> Vec<u8> {
    let info = "echo_agent-1.0.0.dist-info";
    let files: Vec<(String, Vec<u8>)> = vec![
        ("echo_agent/__init__.py".into(), echo_agent()),
        (format!("{info}/METADATA"), b"Metadata-Version: 2.1\nName: echo-agent\nVersion: 1.0.0\n".to_vec()),
        (
            format!("{info}/WHEEL"),
            b"Wheel-Version: 1.0\nGenerator: agentplex-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n".to_vec(),
        ),
        (format!("{info}/entry_points.txt"), b"[console_scripts]\necho-agent = echo_agent:main\n".to_vec()),
    ];
    let mut record: String = files
        .iter()
        .map(|(name, _)| format!("{name},,\n"))
        .collect();
    record.push_str(&format!("{info}/RECORD,,\n"));
    let mut all: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let record_name = format!("{info}/RECORD");
    all.push((&record_name, record.as_bytes()));
    zip(&all)
}

#[test]
fn a_pypi_agent_is_installed_in_its_own_environment_and_launched() {
    let vendors = Vendors::start();
    let file = "echo_agent-1.0.0-py3-none-any.whl";
    vendors.body(&format!("/files/{file}"), wheel());
    let page = format!("<html><body><a href=\"/files/{file}\">{file}</a></body></html>");
    vendors.body("/simple/echo-agent/", page);
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("registry.json");
    let entry = json!({
        "id": "echo-pypi", "name": "Echo", "version": "1.0.0", "description": "echoes",
        "distribution": { "uvx": {
            "package": "echo-agent@1.0.0", "cmd": "echo-agent",
            "args": ["--acp"], "env": { "ECHO_GREETING": "from pypi" },
        } },
    });
    std::fs::write(&snapshot, index(json!([entry]))).unwrap();
    let pip = vec![
        (
            "PIP_INDEX_URL".to_owned(),
            format!("{}/simple", vendors.base),
        ),
        ("PIP_TRUSTED_HOST".to_owned(), "127.0.0.1".to_owned()),
        ("PIP_NO_CACHE_DIR".to_owned(), "1".to_owned()),
    ];
    let daemon = daemon(&snapshot, &dir.path().join("install"), &vendors.base, pip);
    let api = Api::new(&daemon);
    let added = add(&daemon, "echo-pypi");
    let status = added.status().as_u16();
    assert_eq!(status, 201, "{}", added.text().unwrap_or_default());
    let text = answer(&api, "s1", "echo-pypi");
    assert!(
        text.contains("args=['--acp'] greeting=from pypi echo: hello registry"),
        "{text}"
    );
}

/// The updates of `messages` until a `config_option_update` comes (within
/// 30 s); its options.
fn next_options(messages: &std::sync::mpsc::Receiver<Value>) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = messages.recv_timeout(left).expect("a config_option_update");
        let update = &message["params"]["update"];
        if update["sessionUpdate"] == "config_option_update" {
            return update["configOptions"].clone();
        }
    }
}

/// The ids and names of option `id`'s choices among `options`.
fn choices(options: &Value, id: &str) -> Vec<(String, String)> {
    let options = options.as_array().expect("options");
    let option = options.iter().find(|option| option["id"] == id);
    let choices = option.and_then(|option| option["options"].as_array());
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    choices
        .into_iter()
        .flatten()
        .map(|choice| (text(&choice["value"]), text(&choice["name"])))
        .collect()
}

/// A registry agent's own models and modes (the echo agent offers two of
/// each, a second after `session/new`) reach an ACP client: told as a
/// `config_option_update` once the agent listed them, the default model named
/// after the agent's choice; those picked with `session/set_model` and
/// `session/set_mode` reach the agent; the transcript records the offer, a
/// mode the agent does not have is refused, and the answer to `session/load`
/// lists them again after a daemon restart, with no agent running yet.
#[test]
fn an_added_agents_own_models_and_modes_are_offered_over_acp() {
    use common::acp::{acp_post, answer_to, stream_answers};
    let vendors = Vendors::start();
    let dir = tempfile::tempdir().unwrap();
    let (mut daemon, snapshot, install) =
        echo_added_with(&vendors, dir.path(), "ECHO_NEW_DELAY", "1");
    let api = Api::new(&daemon);
    let work = tempfile::tempdir().unwrap();
    let rpc = |id: u64, method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    let init = rpc(1, "initialize", json!({"protocolVersion": 1}));
    acp_post(&api, "offers", "?agent=echo-agent", &init);
    let messages = stream_answers(&api, "offers");
    let new = rpc(
        2,
        "session/new",
        json!({"cwd": work.path(), "mcpServers": []}),
    );
    let created: Value = acp_post(&api, "offers", "", &new).json().unwrap();
    let session = created["result"]["sessionId"].as_str().unwrap().to_owned();
    // The agent has not answered its own session/new yet: the daemon's default.
    let before = choices(&created["result"]["configOptions"], "model");
    assert_eq!(
        before,
        [("default".to_owned(), "Default".to_owned())],
        "{created}"
    );

    let told = next_options(&messages);
    let pair = |id: &str, name: &str| (id.to_owned(), name.to_owned());
    assert_eq!(
        choices(&told, "mode"),
        [
            pair("build", "Build"),
            pair("quiet", "Quiet"),
            pair("loud", "Loud")
        ]
    );
    assert_eq!(
        choices(&told, "model"),
        [
            pair("default", "Default (Echo Small)"),
            pair("echo-small", "Echo Small"),
            pair("echo-large", "Echo Large")
        ]
    );
    let set = rpc(
        3,
        "session/set_model",
        json!({"sessionId": session, "modelId": "echo-large"}),
    );
    acp_post(&api, "offers", "", &set);
    assert_eq!(answer_to(&messages, 3)["result"], json!({}));
    let set = rpc(
        4,
        "session/set_mode",
        json!({"sessionId": session, "modeId": "loud"}),
    );
    acp_post(&api, "offers", "", &set);
    assert_eq!(answer_to(&messages, 4)["result"], json!({}));
    let prompt =
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "hello models"}]});
    acp_post(&api, "offers", "", &rpc(5, "session/prompt", prompt));
    assert_eq!(answer_to(&messages, 5)["result"]["stopReason"], "end_turn");
    let refused = api.put_json(
        &format!("/v1/sessions/{session}/modes"),
        json!({"agentMode": "shout"}),
    );
    let problem = expect_problem(refused, 400, "mode_not_supported");
    assert!(
        problem["detail"].as_str().unwrap().contains(r#""loud""#),
        "{problem}"
    );
    let events = api.get_ok(&format!("/v1/sessions/{session}/events"))["events"].clone();
    let texts = common::api::assistant_texts(events.as_array().unwrap()).join("");
    assert!(
        texts.contains("echo: hello models (model echo-large) (mode loud)"),
        "{texts}"
    );
    let offers = common::api::status_records(events.as_array().unwrap(), "agent offered");
    assert_eq!(offers.len(), 1, "{events}");
    let offer = &offers[0];
    assert_eq!(
        offer["models"][1],
        json!({"id": "echo-large", "name": "Echo Large"})
    );
    assert_eq!(offer["currentModel"], "echo-small");
    assert_eq!(
        offer["modes"][1],
        json!({"id": "loud", "name": "Loud", "description": "echoes in capitals"})
    );
    assert_eq!(offer["currentMode"], "quiet");

    // After a restart the offer is the session's still, before its agent runs.
    let data = daemon.kill();
    daemon = Daemon::start_with(Options {
        data_dir: Some(data),
        ..options(&snapshot, &install, &vendors.base)
    });
    let api = Api::new(&daemon);
    let choices = api.get_ok(&format!("/v1/sessions/{session}/modes"));
    assert_eq!(
        choices["offered"]["models"][1]["id"], "echo-large",
        "{choices}"
    );
    assert_eq!(choices["agentMode"], "loud", "{choices}");
    acp_post(&api, "again", "?agent=echo-agent", &init);
    let load = rpc(
        2,
        "session/load",
        json!({"sessionId": session, "cwd": work.path()}),
    );
    let messages = stream_answers(&api, "again");
    acp_post(&api, "again", "", &load);
    let loaded = answer_to(&messages, 2);
    let models = &loaded["result"]["models"];
    assert_eq!(models["currentModelId"], "echo-large", "{loaded}");
    let ids: Vec<&str> = models["availableModels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|model| model["modelId"].as_str())
        .collect();
    assert_eq!(ids, ["echo-small", "echo-large"], "{loaded}");
    let modes = &loaded["result"]["modes"];
    assert_eq!(modes["currentModeId"], "loud", "{loaded}");
    assert_eq!(modes["availableModes"][2]["name"], "Loud", "{loaded}");
}

/// An added agent that offers its choices as session configuration options
/// (`configOptions`, which ACP prefers to `modes` and `models`) gets the
/// session's model, variant (its thought level) and agent mode through
/// `session/set_config_option`; the transcript records what it offers after
/// each answer, the levels as the model's variants; a level it does not take
/// is said once, and the turn runs at its own.
#[test]
fn an_added_agents_configuration_options_take_the_sessions_choices() {
    let vendors = Vendors::start();
    let dir = tempfile::tempdir().unwrap();
    let (daemon, _, _) = echo_added_with(&vendors, dir.path(), "ECHO_CONFIG_OPTIONS", "1");
    let api = Api::new(&daemon);
    let create = |id: &str, variant: &str| {
        let body = json!({"agent": "echo-agent", "model": "echo-large", "variant": variant});
        common::api::ok_json(api.post_json(&format!("/v1/sessions/{id}"), body));
    };

    create("levels", "high");
    let events = api.turn("levels", "hello options");
    let texts = common::api::assistant_texts(&events).join("");
    assert!(
        texts.contains("echo: hello options (model echo-large) (effort high)"),
        "{texts}"
    );
    let events = api.events("levels");
    let offers = common::api::status_records(&events, "agent offered");
    let offer = offers.last().expect("an offer");
    assert_eq!(
        offer["models"],
        json!([
            {"id": "echo-small", "name": "Echo Small"},
            {"id": "echo-large", "name": "Echo Large", "variants": ["low", "high"],
             "defaultVariant": "high"}
        ]),
        "{offer}"
    );
    assert_eq!(offer["currentModel"], "echo-large");
    assert_eq!(offer["modes"][1]["id"], "loud", "{offer}");
    let choices = api.get_ok("/v1/sessions/levels/modes");
    assert_eq!(&choices["offered"], offer, "{choices}");
    assert_eq!(
        (&choices["model"], &choices["variant"]),
        (&json!("echo-large"), &json!("high"))
    );
    let answer = common::api::ok_json(
        api.put_json("/v1/sessions/levels/modes", json!({"agentMode": "loud"})),
    );
    assert_eq!(answer["agentMode"], "loud", "{answer}");
    let events = api.turn("levels", "hello again");
    let texts = common::api::assistant_texts(&events).join("");
    assert!(texts.contains("(mode loud) (effort high)"), "{texts}");
    // The variant changed in the running session is the next turn's level.
    let answer =
        common::api::ok_json(api.put_json("/v1/sessions/levels/modes", json!({"variant": "low"})));
    assert_eq!(answer["variant"], "low", "{answer}");
    let events = api.turn("levels", "hello low");
    let texts = common::api::assistant_texts(&events).join("");
    assert!(
        texts.contains("hello low (model echo-large) (mode loud) (effort low)"),
        "{texts}"
    );

    create("unknown", "max");
    let events = api.turn("unknown", "hello max");
    let refused: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "error" && e["data"]["code"] == "variant_refused")
        .collect();
    assert_eq!(refused.len(), 1, "{events:#?}");
    let texts = common::api::assistant_texts(&events).join("");
    assert!(
        texts.ends_with("echo: hello max (model echo-large)"),
        "{texts}"
    );
}

#[test]
fn what_cannot_be_added_is_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("registry.json");
    let elsewhere = json!({
        "id": "elsewhere", "name": "Elsewhere", "version": "1.0.0", "description": "",
        "distribution": { "binary": { "windows-aarch64": {
            "archive": "http://127.0.0.1:9/x.zip", "cmd": "./x.exe" } } },
    });
    let mock = json!({
        "id": "mock", "name": "Not ours", "version": "1.0.0", "description": "",
        "distribution": { "npx": { "package": "not-installed" } },
    });
    let hostile = json!({
        "id": "hostile", "name": "Hostile", "version": "1.0.0", "description": "",
        "distribution": { "npx": { "package": "--registry=http://127.0.0.1:9/" } },
    });
    std::fs::write(&snapshot, index(json!([elsewhere, mock, hostile]))).unwrap();
    let install = dir.path().join("install");
    let daemon = daemon(&snapshot, &install, "http://127.0.0.1:9", Vec::new());
    let api = Api::new(&daemon);
    assert_eq!(
        api.get_ok("/v1/registry")["agents"][0]["installable"],
        json!(false)
    );
    let problem = expect_problem(add(&daemon, "nobody"), 404, "unsupported_agent");
    assert_eq!(problem["agent"], json!("nobody"));
    expect_problem(add(&daemon, "mock"), 409, "invalid_request");
    expect_problem(add(&daemon, "elsewhere"), 409, "not_configured");
    expect_problem(add(&daemon, "acp-generic"), 404, "unsupported_agent");
    let agents = api.get_ok("/v1/agents").to_string();
    assert!(
        !agents.contains("elsewhere") && !agents.contains("acp-generic"),
        "{agents}"
    );
    let refused = api.post_json("/v1/registry/elsewhere", json!({ "env": ["NOT A NAME"] }));
    expect_problem(refused, 400, "invalid_request");
    // A package that would be one of npm's options is never handed to it.
    let problem = expect_problem(add(&daemon, "hostile"), 500, "install_failed");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("invalid package"),
        "{problem}"
    );

    // A snapshot that is gone, or no index, is the registry's failure (502).
    std::fs::write(&snapshot, "{\"agents\": 1}").unwrap();
    let problem = expect_problem(api.get("/v1/registry"), 502, "stream_error");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("not an ACP registry index"),
        "{problem}"
    );
    std::fs::remove_file(&snapshot).unwrap();
    expect_problem(api.get("/v1/registry"), 502, "stream_error");
}

#[test]
fn a_fetched_index_is_cached_and_its_copy_serves_when_the_registry_is_down() {
    let vendors = Vendors::start();
    let one = json!([{ "id": "first", "name": "First", "version": "1.0.0", "description": "",
        "distribution": { "npx": { "package": "first" } } }]);
    vendors.body("/registry.example/v1/registry.json", index(one));
    let dir = tempfile::tempdir().unwrap();
    let install = dir.path().join("install");
    let url = "https://registry.example/v1/registry.json";
    let daemon = Daemon::start_with(Options {
        args: vec![
            "--acp-registry".into(),
            url.into(),
            "--install-dir".into(),
            install.display().to_string(),
            "--releases-mirror".into(),
            vendors.base.clone(),
        ],
        ..Options::default()
    });
    let api = Api::new(&daemon);
    let listed = api.get_ok("/v1/registry");
    assert_eq!(listed["source"], json!(url));
    assert_eq!(listed["agents"][0]["id"], json!("first"));
    // Within the hour the copy answers; `refresh` fetches anew.
    api.get_ok("/v1/registry");
    assert_eq!(vendors.hits("/registry.example/v1/registry.json"), 1);
    vendors.set("/registry.example/v1/registry.json", Reply::Status(503));
    let stale = api.get_ok("/v1/registry?refresh=true");
    assert_eq!(stale["agents"][0]["id"], json!("first"));
    assert!(stale["stale"].as_str().unwrap().contains("503"), "{stale}");
    assert_eq!(vendors.hits("/registry.example/v1/registry.json"), 2);
}
