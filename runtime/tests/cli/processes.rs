//! `processes ...` and `terminal ID`: every process subcommand against a daemon, a
//! run's exit status passed on, a bad request's problem, and a local terminal
//! attached to a shell on the daemon (typing, the exit status, the terminal put back).

use std::io::Write;
use std::os::fd::AsFd;

use super::*;

/// `processes <sub> --endpoint E <flags...> -- <trailing...>`: the connection goes
/// before the command, which takes every word after it.
fn processes_cli(daemon: &Daemon, sub: &[&str], trailing: &[&str]) -> Output {
    let mut args = vec!["processes"];
    args.extend_from_slice(sub);
    args.extend(["--endpoint", &daemon.endpoint]);
    if !trailing.is_empty() {
        args.push("--");
        args.extend_from_slice(trailing);
    }
    run_command(command(&args), COMMAND_TIMEOUT)
}

/// A pseudo-terminal: the daemon-side master and the path of its other side.
fn pty() -> (std::fs::File, String) {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    (
        std::fs::File::from(master),
        name.to_str().unwrap().to_owned(),
    )
}

#[test]
fn process_commands_cover_every_route() {
    let daemon = start_daemon();
    let done = json_ok(&processes_cli(
        &daemon,
        &["run", "--json"],
        &["sh", "-c", "echo hi; exit 3"],
    ));
    assert_eq!(
        (done["exitCode"].clone(), done["timedOut"].clone()),
        (json!(3), json!(false))
    );
    // The output comes base64-encoded, exact.
    assert_eq!(done["stdout"], "aGkK");

    let started = json_ok(&processes_cli(
        &daemon,
        &["start", "--interactive"],
        &["cat"],
    ));
    let id = started["id"].as_str().unwrap().to_owned();
    assert_eq!(started["status"], "running");
    let listed = json_ok(&cli(&daemon, &["processes", "list"]));
    assert_eq!(listed["processes"][0]["id"], id.as_str());

    let mut input = client_command(&daemon, &["processes", "input", &id]);
    input.stdin(Stdio::piped());
    let mut child = input.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"from stdin\n")
        .unwrap();
    assert_eq!(
        json_ok(&child.wait_with_output().unwrap())["bytesWritten"],
        11
    );
    assert_eq!(
        json_ok(&cli(&daemon, &["processes", "input", &id, "typed\n"]))["bytesWritten"],
        6
    );

    let stopped = json_ok(&cli(
        &daemon,
        &["processes", "stop", &id, "--wait-ms", "5000"],
    ));
    assert_eq!(
        (stopped["status"].clone(), stopped["signal"].clone()),
        (json!("exited"), json!(15))
    );
    assert_eq!(
        json_ok(&cli(&daemon, &["processes", "get", &id]))["signal"],
        15
    );

    // For a person, `logs` prints the bytes; `--follow` ends once the process exited.
    let logs = cli(&daemon, &["processes", "logs", &id, "--follow", "--json"]);
    let events = json_lines_ok(&logs);
    assert_eq!(events.last().unwrap()["event"], "exit");
    let page = json_ok(&cli(&daemon, &["processes", "logs", &id]));
    assert_eq!(page["nextOffset"], 17);

    let sleeper = json_ok(&processes_cli(&daemon, &["start"], &["sleep", "30"]));
    let sleeper = sleeper["id"].as_str().unwrap();
    let killed = json_ok(&cli(
        &daemon,
        &["processes", "kill", sleeper, "--wait-ms", "5000"],
    ));
    assert_eq!(killed["signal"], 9);
    assert_eq!(
        json_ok(&cli(&daemon, &["processes", "delete", sleeper])),
        json!({ "ok": true })
    );

    let failure = expect_failure(&cli(&daemon, &["processes", "get", sleeper]));
    assert_eq!(failure.problem.unwrap()["status"], 404);
    let failure = expect_failure(&processes_cli(&daemon, &["run"], &["no-such-program-here"]));
    assert!(
        failure.error_line.contains("spawn_failed"),
        "{}",
        failure.error_line
    );
    assert!(
        failure.error_line.contains("No such file or directory"),
        "{}",
        failure.error_line
    );
}

#[test]
fn a_run_on_a_terminal_prints_its_output_and_exits_with_its_status() {
    let daemon = start_daemon();
    let (master, terminal) = pty();
    let mut run = command(&[
        "processes",
        "run",
        "--endpoint",
        &daemon.endpoint,
        "--",
        "sh",
        "-c",
        "echo out; echo err >&2; exit 3",
    ]);
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(terminal)
        .unwrap();
    run.stdout(Stdio::from(terminal));
    let mut child = run.spawn().unwrap();
    drop(run);
    let printed = read_in_background(master);
    let status = wait_with_deadline(&mut child, COMMAND_TIMEOUT).expect("the run to finish");
    assert_eq!(status.code(), Some(3));
    assert_eq!(
        text(&printed.recv().unwrap()).replace("\r\n", "\n"),
        "out\n"
    );
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(stderr, "err\n");
}

/// `agentplex terminal ID` with its stdin and stdout on a fresh pseudo-terminal
/// of 97×31: the child, what we type into it, and a reader of what it shows.
struct Attached {
    child: Child,
    keys: std::fs::File,
    shown: mpsc::Receiver<Vec<u8>>,
    seen: String,
    terminal: std::fs::File,
}

impl Attached {
    fn start(daemon: &Daemon, id: &str) -> Attached {
        let (master, path) = pty();
        let terminal = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        rustix::termios::tcsetwinsize(
            terminal.as_fd(),
            rustix::termios::Winsize {
                ws_row: 31,
                ws_col: 97,
                ws_xpixel: 0,
                ws_ypixel: 0,
            },
        )
        .unwrap();
        let mut attach = client_command(daemon, &["terminal", id]);
        attach
            .stdin(Stdio::from(terminal.try_clone().unwrap()))
            .stdout(Stdio::from(terminal.try_clone().unwrap()));
        let child = attach.spawn().unwrap();
        let keys = master.try_clone().unwrap();
        let (sender, shown) = mpsc::channel();
        let mut reader = master;
        std::thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                let _ = sender.send(buf[..n].to_vec());
            }
        });
        Attached {
            child,
            keys,
            shown,
            seen: String::new(),
            terminal,
        }
    }

    fn expect(&mut self, needle: &str) {
        let deadline = Instant::now() + EVENT_TIMEOUT;
        while !self.seen.contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = self
                .shown
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("{needle:?} never came: {:?}", self.seen));
            self.seen.push_str(&text(&chunk));
        }
    }

    fn finish(&mut self) -> ExitStatus {
        wait_with_deadline(&mut self.child, COMMAND_TIMEOUT).expect("terminal to end")
    }
}

#[test]
fn terminal_attaches_this_terminal_to_a_shell_and_puts_it_back() {
    let daemon = start_daemon();
    let shell = json_ok(&processes_cli(&daemon, &["start", "--tty"], &["sh"]));
    let id = shell["id"].as_str().unwrap();

    let mut first = Attached::start(&daemon, id);
    let before = rustix::termios::tcgetattr(first.terminal.as_fd()).unwrap();
    // Raw mode: the keys go through as typed, Enter included; the window's size came along.
    first
        .keys
        .write_all(b"echo first-$((2+3)); stty size\r")
        .unwrap();
    first.expect("first-5");
    first.expect("31 97");
    // Ctrl-] detaches; the shell goes on.
    first.keys.write_all(&[0x1d]).unwrap();
    assert_eq!(first.finish().code(), Some(0));
    let after = rustix::termios::tcgetattr(first.terminal.as_fd()).unwrap();
    assert_eq!(
        after.local_modes, before.local_modes,
        "the terminal was not put back"
    );
    assert_eq!(after.input_modes, before.input_modes);
    assert_eq!(
        json_ok(&cli(&daemon, &["processes", "get", id]))["status"],
        "running"
    );

    // Attached again, the recent screen comes back; the shell's exit is ours.
    let mut second = Attached::start(&daemon, id);
    second.expect("first-5");
    second.keys.write_all(b"echo $((6*7)); exit 5\r").unwrap();
    second.expect("\n42");
    assert_eq!(second.finish().code(), Some(5));
    let restored = rustix::termios::tcgetattr(second.terminal.as_fd()).unwrap();
    assert_eq!(restored.local_modes, before.local_modes);
}
