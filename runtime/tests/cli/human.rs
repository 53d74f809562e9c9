//! On a terminal the client subcommands print for people (tables, a transcript,
//! a line saying what happened and what to do next); `--json` or a pipe gets
//! JSON. Run under a pseudo-terminal, as a person would.

use super::*;

/// Runs a client subcommand with stdout on a pseudo-terminal; what it printed
/// there (line ends as `\n`).
fn on_terminal(daemon: &Daemon, args: &[&str]) -> String {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().unwrap())
        .unwrap();
    let mut command = client_command(daemon, args);
    command
        .stdout(Stdio::from(terminal))
        .stderr(Stdio::inherit());
    let mut child = command.spawn().expect("starting agentplex");
    // The command holds the terminal's side until dropped: then, once the child
    // has exited too, reading gives what was written and ends (EIO).
    drop(command);
    let printed = read_in_background(std::fs::File::from(master));
    let status = wait_with_deadline(&mut child, COMMAND_TIMEOUT).expect("the command to finish");
    assert!(status.success(), "{args:?} exited with {status}");
    let bytes = printed.recv().unwrap();
    text(&bytes).replace("\r\n", "\n")
}

#[test]
fn a_person_gets_tables_and_transcripts_and_a_pipe_gets_json() {
    let daemon = start_daemon();
    let empty = on_terminal(&daemon, &["sessions", "list"]);
    assert!(empty.starts_with("no sessions (create one: "), "{empty}");

    let created = on_terminal(
        &daemon,
        &["sessions", "create", "people", "--agent", "mock"],
    );
    assert!(
        created.starts_with(
            "created session people (mock); send it a message: agentplex sessions send people"
        ),
        "{created}"
    );
    let sent = on_terminal(
        &daemon,
        &["sessions", "send", "people", "echo", "hello there"],
    );
    assert!(
        sent.starts_with("sent; follow it: agentplex sessions watch people"),
        "{sent}"
    );
    wait_for_events(&daemon, "people", "the turn's end", |events| {
        types(events).iter().any(|t| t == "turn.ended")
    });

    let list = on_terminal(&daemon, &["sessions", "list"]);
    let lines: Vec<&str> = list.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        ["SESSION", "AGENT", "STATUS", "EVENTS", "QUEUED", "UPDATED", "TITLE"]
    );
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(&row[..3], ["people", "mock", "idle"], "{list}");

    let transcript = on_terminal(&daemon, &["sessions", "events", "people"]);
    assert!(transcript.contains("> echo hello there\n"), "{transcript}");
    assert!(transcript.contains("\nhello there\n"), "{transcript}");
    assert!(transcript.contains("-- turn ended"), "{transcript}");

    // A request that waits for an answer says how to give it.
    let waiting = on_terminal(
        &daemon,
        &["sessions", "send", "people", "--stream", "permission"],
    );
    let asked = waiting
        .lines()
        .find_map(|line| line.strip_prefix("? permission "))
        .unwrap_or_else(|| panic!("no permission request shown: {waiting}"));
    let (id, what) = asked.split_once(' ').unwrap();
    assert_eq!(what, "(command_execution: echo mock)");
    let hint = format!("  answer: agentplex permissions reply people {id} once|always|reject");
    assert!(waiting.lines().any(|line| line == hint), "{waiting}");
    let answered = on_terminal(&daemon, &["permissions", "reply", "people", id, "once"]);
    assert_eq!(answered.trim_end(), format!("answered {id}"));

    let changed = on_terminal(
        &daemon,
        &[
            "sessions",
            "modes",
            "people",
            "--model",
            "mock-large",
            "--variant",
            "high",
        ],
    );
    assert_eq!(
        changed.trim_end(),
        "people: agent mode build, permission mode default, model mock-large, variant high, \
         from the next message on"
    );

    let agents = on_terminal(&daemon, &["agents", "list"]);
    assert!(agents.starts_with("AGENT"), "{agents}");
    assert!(
        agents.lines().any(|line| line.starts_with("mock ")),
        "{agents}"
    );

    let made = on_terminal(&daemon, &["fs", "mkdir", "notes", "--session", "people"]);
    assert!(made.starts_with("created /"), "{made}");
    let listing = on_terminal(&daemon, &["fs", "ls", "--session", "people"]);
    let header: Vec<&str> = listing.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["TYPE", "SIZE", "MODIFIED", "NAME"], "{listing}");
    assert!(
        listing
            .lines()
            .any(|line| line.starts_with("directory") && line.ends_with(" notes")),
        "{listing}"
    );

    // `--json` on a terminal, and a pipe without it, get the JSON answer.
    let json: Value = serde_json::from_str(&on_terminal(
        &daemon,
        &["sessions", "get", "people", "--json"],
    ))
    .unwrap();
    assert_eq!(json["sessionId"], "people");
    let piped = json_ok(&cli(&daemon, &["sessions", "get", "people"]));
    assert_eq!(piped["sessionId"], "people");
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef agentplex"),
        ("fish", "complete -c agentplex"),
    ] {
        let output = run_command(command(&["completions", shell]), COMMAND_TIMEOUT);
        assert!(output.status.success(), "{}", describe(&output));
        let script = text(&output.stdout);
        assert!(script.contains(marker), "{shell}: {script:.200}");
        assert!(script.contains("sessions"), "{shell}: no subcommands");
    }
}
