//! A daemon stopped with SIGTERM stops every process tree it started (SIGTERM,
//! then SIGKILL after the grace), terminals included, and leaves alone only what
//! was started with `outliveDaemon`.

use std::time::{Duration, Instant};

use agentplex_client::ProcessCreateRequest;

use super::common::procfs;
use super::*;

fn sh(script: &str, tty: bool) -> ProcessCreateRequest {
    ProcessCreateRequest {
        command: "sh".into(),
        args: vec!["-c".into(), script.into()],
        tty,
        ..ProcessCreateRequest::default()
    }
}

#[test]
fn a_daemon_stopped_with_sigterm_kills_every_process_tree_it_started() {
    let daemon = daemon(&["--process-stop-grace-ms", "500"]);
    let client = client(&daemon);
    let (groups, outliving) = block_on(async {
        let mut groups = Vec::new();
        for request in [
            sh("sleep 300 & sleep 300 & wait", false),
            sh("trap '' TERM; sleep 300 & wait", false),
            sh("sleep 300 & sleep 300", true),
        ] {
            groups.push(client.start_process(&request).await.unwrap().pid.unwrap());
        }
        let outliving = client
            .start_process(&ProcessCreateRequest {
                outlive_daemon: true,
                ..sh("exec sleep 300", false)
            })
            .await
            .unwrap()
            .pid
            .unwrap();
        // Every tree has its children by now.
        let deadline = Instant::now() + Duration::from_secs(5);
        while groups.iter().any(|&g| group_members(g).len() < 2) {
            assert!(Instant::now() < deadline, "the trees did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        (groups, outliving)
    });
    let members: Vec<u32> = groups.iter().flat_map(|&g| group_members(g)).collect();
    assert!(members.len() >= 6, "{members:?}");
    let started = Instant::now();
    let status = daemon.stop();
    assert!(status.success(), "{status}");
    // The grace, not the default five seconds, bounded the stop.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let survivors: Vec<u32> = members
        .into_iter()
        .filter(|&pid| procfs::is_running(pid))
        .collect();
    assert_eq!(
        survivors,
        Vec::<u32>::new(),
        "processes outlived the daemon"
    );
    assert!(
        procfs::is_running(outliving),
        "the outliveDaemon process was stopped"
    );
    let outliving = nix::unistd::Pid::from_raw(outliving as i32);
    let _ = nix::sys::signal::killpg(outliving, nix::sys::signal::Signal::SIGKILL);
}
