//! The test window as a program, on an Xvfb of its own: it says it is ready, and
//! reports a click made with XTEST from another connection.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ConnectionExt as _, BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::wrapper::ConnectionExt as _;

#[test]
fn the_program_reports_a_click() {
    let mut xvfb = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "400x300x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb runs (apt-get install -y xvfb)");
    let mut number = String::new();
    BufReader::new(xvfb.stdout.take().unwrap())
        .read_line(&mut number)
        .unwrap();
    let display = format!(":{}", number.trim());
    let mut program = Command::new(env!("CARGO_BIN_EXE_agentplex-test-window"))
        .args(["probe", "100", "80", "ff0000"])
        .env("DISPLAY", &display)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(program.stdout.take().unwrap()).lines();
    let ready = lines.next().unwrap().unwrap();
    assert!(ready.starts_with("{\"ready\":"), "{ready}");

    // No window manager: the window is at the root's top-left corner.
    let (conn, screen) = x11rb::connect(Some(&display)).unwrap();
    let root = conn.setup().roots[screen].root;
    conn.xtest_fake_input(MOTION_NOTIFY_EVENT, 0, 0, root, 10, 20, 0)
        .unwrap();
    conn.xtest_fake_input(BUTTON_PRESS_EVENT, 3, 0, root, 0, 0, 0)
        .unwrap();
    conn.xtest_fake_input(BUTTON_RELEASE_EVENT, 3, 0, root, 0, 0, 0)
        .unwrap();
    conn.sync().unwrap();
    let _ = conn.get_input_focus().unwrap().reply();
    assert_eq!(lines.next().unwrap().unwrap(), "{\"click\":[3,10,20]}");
    let _ = program.kill();
    let _ = xvfb.kill();
    let _ = (program.wait(), xvfb.wait());
}
