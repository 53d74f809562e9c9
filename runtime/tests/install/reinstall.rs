//! A reinstall never pulls a package folder from under a process the daemon
//! started from it: the running one keeps its folder, the next launch gets the
//! new version, and the old folder goes once nothing runs from it.

use super::*;

/// A Pi release whose binary prints its version, or, run with `serve`, reads a
/// file of its own folder every 50 ms until it is missing (then says `gone` and
/// exits 1).
fn pi_release(version: &str) -> Vec<u8> {
    let script = format!(
        r#"#!/bin/sh
dir=$(dirname "$(readlink -f "$0")")
if [ "$1" != serve ]; then echo "{version}"; exit 0; fi
while [ -f "$dir/theme/dark.json" ]; do sleep 0.05; done
echo gone
exit 1
"#
    );
    tar_gz(&[("pi/pi", script.as_bytes()), ("pi/theme/dark.json", b"{}")])
}

/// Pi's package folders in the install dir.
fn pi_folders(daemon: &Daemon) -> Vec<String> {
    install_dir_entries(daemon)
        .into_iter()
        .filter(|name| name.starts_with(".pi.pkg-"))
        .collect()
}

#[test]
fn a_reinstall_keeps_the_folder_a_running_process_uses() {
    let vendors = Vendors::start();
    for version in ["0.74.0", "0.75.0"] {
        vendors.publish_github(
            PI,
            &format!("v{version}"),
            "pi-linux-x64.tar.gz",
            &pi_release(version),
        );
    }
    let daemon = daemon(&vendors, &[]);
    let api = Api::new(&daemon);
    let install = |version: &str| {
        let body = json!({"version": version, "reinstall": true});
        expect_no_content(api.post_json("/v1/agents/pi/install", body), version);
    };
    install("0.74.0");
    let pi = install_dir(&daemon).join("pi");
    let started = api.post_json(
        "/v1/processes",
        json!({"command": pi.display().to_string(), "args": ["serve"]}),
    );
    assert_eq!(started.status(), 200);
    let id = started.json::<Value>().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let status = || api.get_ok(&format!("/v1/processes/{id}"))["status"].clone();

    install("0.75.0");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(status(), "running", "the running process lost its folder");
    assert_eq!(run(&pi), "0.75.0", "the next launch is the new version");
    assert_eq!(
        pi_folders(&daemon).len(),
        2,
        "the old folder is kept while used"
    );

    // Once the process is gone, the next install removes the old folder.
    let killed = api.post_empty(&format!("/v1/processes/{id}/kill"));
    assert_eq!(killed.status(), 200);
    common::wait_until(Duration::from_secs(5), "the process exited", || {
        status() == "exited"
    });
    expect_no_content(api.delete(&format!("/v1/processes/{id}")), "delete");
    install("0.75.0");
    assert_eq!(pi_folders(&daemon).len(), 1, "{:?}", pi_folders(&daemon));

    // A folder left behind by a daemon that stopped is removed at the next start.
    let leftover = install_dir(&daemon).join(".pi.pkg-1-leftover");
    std::fs::create_dir(&leftover).unwrap();
    let data_dir = daemon.stop_keeping_data();
    let daemon = daemon_with(&vendors, &[], Some(data_dir));
    assert!(!leftover.exists(), "the unused folder outlived a restart");
    assert_eq!(pi_folders(&daemon).len(), 1);
    assert_eq!(run(&install_dir(&daemon).join("pi")), "0.75.0");
}
