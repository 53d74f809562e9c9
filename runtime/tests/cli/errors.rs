//! Failures: unknown sessions, tokens, unreachable daemons, bad flags.

use super::*;

#[test]
fn unknown_session_is_session_not_found() {
    let daemon = start_daemon();
    let commands: [&[&str]; 10] = [
        &["sessions", "send", "ghost", "hello"],
        &["sessions", "send", "ghost", "hello", "--stream"],
        &["sessions", "events", "ghost"],
        &["sessions", "watch", "ghost"],
        &["sessions", "cancel", "ghost"],
        &["sessions", "terminate", "ghost"],
        &["sessions", "delete", "ghost"],
        &["questions", "reply", "ghost", "q", "--answer", "x"],
        &["questions", "reject", "ghost", "q"],
        &["permissions", "reply", "ghost", "p", "once"],
    ];
    for args in commands {
        let output = cli(&daemon, args);
        let failure = problem_failure(&output, "session_not_found", 404);
        assert!(
            output.stdout.is_empty(),
            "{args:?} printed on stdout: {}",
            describe(&output)
        );
        let problem = failure.problem.unwrap();
        assert!(
            problem.to_string().contains("ghost"),
            "{args:?}: the problem should name the session: {problem}"
        );
    }
}

#[test]
fn wrong_token_is_token_invalid() {
    let daemon = Daemon::start_with(Options {
        token: Some("right-token".into()),
        ..Default::default()
    });
    let endpoint = daemon.endpoint.as_str();
    // The right token works, by flag and by environment.
    let ok = run_command(
        command(&[
            "sessions",
            "list",
            "--endpoint",
            endpoint,
            "--token",
            "right-token",
        ]),
        COMMAND_TIMEOUT,
    );
    assert_eq!(json_ok(&ok), json!({ "sessions": [] }));
    let mut by_env = command(&["sessions", "list"]);
    by_env
        .env("AGENTPLEX_ENDPOINT", endpoint)
        .env("AGENTPLEX_TOKEN", "right-token");
    assert_eq!(
        json_ok(&run_command(by_env, COMMAND_TIMEOUT)),
        json!({ "sessions": [] })
    );
    // The variables of 0.2 are still read, with one line saying what to rename;
    // one that names no setting (another program's, or cargo's) is left alone.
    let mut by_old_env = command(&["sessions", "list"]);
    by_old_env
        .env("SANDBOX_AGENT_ENDPOINT", endpoint)
        .env("SANDBOX_AGENT_TOKEN", "right-token")
        .env("SANDBOX_AGENT_COMMIT", "0123456789ab");
    let old = run_command(by_old_env, COMMAND_TIMEOUT);
    assert_eq!(json_ok(&old), json!({ "sessions": [] }));
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("warning: the SANDBOX_AGENT_* variables are deprecated")
            && stderr.contains("SANDBOX_AGENT_ENDPOINT -> AGENTPLEX_ENDPOINT")
            && stderr.contains("SANDBOX_AGENT_TOKEN -> AGENTPLEX_TOKEN")
            && !stderr.contains("right-token")
            && !stderr.contains("COMMIT"),
        "{stderr}"
    );
    // A wrong or missing one is refused, on plain and streaming routes.
    for args in [
        &["sessions", "list", "--token", "wrong-token"][..],
        &["agents", "list", "--token", "wrong-token"],
        &[
            "sessions",
            "create",
            "x",
            "--agent",
            "mock",
            "--token",
            "wrong-token",
        ],
        &["sessions", "watch", "x", "--token", "wrong-token"],
        &["sessions", "list"],
    ] {
        let mut full = args.to_vec();
        full.extend(["--endpoint", endpoint]);
        let output = run_command(command(&full), COMMAND_TIMEOUT);
        let failure = problem_failure(&output, "token_invalid", 401);
        assert!(
            failure
                .error_line
                .ends_with("; pass the daemon's token with --token or AGENTPLEX_TOKEN"),
            "the error says what to do: {}",
            failure.error_line
        );
        assert!(
            !failure.stderr.contains("right-token"),
            "the token leaked: {}",
            failure.stderr
        );
    }
    // Nothing was created by the refused request.
    let ok = run_command(
        command(&[
            "sessions",
            "list",
            "--endpoint",
            endpoint,
            "--token",
            "right-token",
        ]),
        COMMAND_TIMEOUT,
    );
    assert_eq!(json_ok(&ok), json!({ "sessions": [] }));
}

#[test]
fn daemon_not_running_is_a_connection_error() {
    let port = free_port();
    let endpoint = format!("http://127.0.0.1:{port}");
    for args in [
        &["health"][..],
        &["agents", "list"],
        &["sessions", "list"],
        &["sessions", "watch", "x"],
    ] {
        let mut full = args.to_vec();
        full.extend(["--endpoint", &endpoint]);
        let output = run_command(command(&full), COMMAND_TIMEOUT);
        let failure = expect_failure(&output);
        assert!(failure.problem.is_none(), "{}", failure.stderr);
        assert_eq!(
            failure.stderr.trim_end().lines().count(),
            1,
            "expected a one-line error: {}",
            failure.stderr
        );
        let line = failure.error_line.to_lowercase();
        assert!(
            line.contains("connect") || line.contains("refused"),
            "not a clear connection error: {line}"
        );
        assert!(
            failure
                .error_line
                .contains("Start one with `agentplex server`"),
            "the error says what to do: {line}"
        );
        assert!(
            failure.error_line.contains(&endpoint),
            "the error should name the endpoint: {}",
            failure.error_line
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn bad_endpoint_is_refused() {
    let output = run_command(
        command(&["health", "--endpoint", "not a url"]),
        COMMAND_TIMEOUT,
    );
    let failure = expect_failure(&output);
    assert!(
        failure.error_line.contains("not a url"),
        "{}",
        failure.error_line
    );
}

#[test]
fn server_without_token_flag_refuses_to_start() {
    let data_dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let args = [
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--data-dir",
        data_dir.path().to_str().unwrap(),
    ];
    let output = run_command(command(&args), Duration::from_secs(30));
    let failure = expect_failure(&output);
    assert_eq!(
        failure.stderr.trim_end().lines().count(),
        1,
        "expected a one-line error: {}",
        failure.stderr
    );
    assert!(
        failure.error_line.contains("--token") && failure.error_line.contains("--no-token"),
        "the message should say to pass --token or --no-token: {}",
        failure.error_line
    );
    // Nothing listens on the port.
    assert!(std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).is_err());

    // An empty token is refused too.
    let mut with_empty = args.to_vec();
    with_empty.extend(["--token", ""]);
    let failure = expect_failure(&run_command(command(&with_empty), Duration::from_secs(30)));
    assert!(
        failure.error_line.contains("--token"),
        "{}",
        failure.error_line
    );

    // Both flags at once are refused by the parser.
    let mut both = args.to_vec();
    both.extend(["--token", "t", "--no-token"]);
    let output = run_command(command(&both), Duration::from_secs(30));
    assert!(!output.status.success(), "{}", describe(&output));
}

#[test]
fn a_switch_variable_with_another_value_is_refused() {
    let mut server = command(&["server", "--no-token", "--port", "0", "--ephemeral"]);
    server.env("AGENTPLEX_DEBUGGABLE", "maybe");
    let output = run_command(server, Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: invalid value 'maybe' for '--debuggable'"),
        "{stderr}"
    );
}

#[test]
fn server_takes_the_token_from_the_environment() {
    let data_dir = tempfile::tempdir().unwrap();
    let mut server = command(&["server", "--host", "127.0.0.1", "--port", "0"]);
    server
        .arg("--data-dir")
        .arg(data_dir.path())
        .arg("--cache-dir")
        .arg(common::shared_cache_dir())
        .env("AGENTPLEX_TOKEN", "env-token")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = server.spawn().unwrap();
    let port = common::listening_port(&mut child, None, Duration::from_secs(60));
    struct Kill(Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let endpoint = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("server exited: {status}");
        }
        if reqwest::blocking::get(format!("{endpoint}/v1/health"))
            .is_ok_and(|r| r.status().is_success())
        {
            break;
        }
        assert!(Instant::now() < deadline, "server did not become healthy");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _guard = Kill(child);
    let ok = run_command(
        command(&[
            "agents",
            "list",
            "--endpoint",
            &endpoint,
            "--token",
            "env-token",
        ]),
        COMMAND_TIMEOUT,
    );
    json_ok(&ok);
    let refused = run_command(
        command(&["agents", "list", "--endpoint", &endpoint]),
        COMMAND_TIMEOUT,
    );
    problem_failure(&refused, "token_invalid", 401);
}
