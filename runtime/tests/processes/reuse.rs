//! A process group id is signalled only while the daemon owns it: a managed
//! process that exited stays an unreaped zombie (holding its pid, and so its
//! group id) until it is deleted, so deleting it long after its exit cannot
//! kill an unrelated group that took the same id.

use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command};

use agentplex_client::ProcessCreateRequest;

use super::common::procfs;
use super::*;

/// How many times a pid is tried for before giving up (other processes of the
/// machine may take it first).
const CLAIM_TRIES: usize = 20;

#[test]
fn deleting_a_long_exited_process_never_signals_a_group_that_took_its_id() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        let process = client
            .start_process(&ProcessCreateRequest {
                command: "true".into(),
                ..ProcessCreateRequest::default()
            })
            .await
            .unwrap();
        let pid = process.pid.unwrap();
        wait_exited(&client, &process.id).await;
        let after_exit = procfs::state_and_parent(pid);
        // The attack: a stranger's group takes the id while the process is not deleted.
        let stranger = claim_pid(pid);
        client.delete_process(&process.id).await.unwrap();
        if let Some(mut stranger) = stranger {
            // Time for a signal, if one was sent, to end it.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let alive = stranger.try_wait().unwrap().is_none();
            let _ = stranger.kill();
            let _ = stranger.wait();
            assert!(
                alive,
                "DELETE killed the group {pid} of an unrelated process"
            );
            panic!(
                "the daemon reaped process {pid} before DELETE: its pid went to another process"
            );
        }
        assert_eq!(
            after_exit,
            Some(('Z', daemon.pid())),
            "an exited process stays the daemon's unreaped child until DELETE"
        );
        assert_eq!(
            procfs::state_and_parent(pid),
            None,
            "DELETE reaps the process"
        );
    });
}

/// Starts `sleep` as the leader of a new process group whose id is `pid`, when
/// `pid` is free and the test may choose pids (`/proc/sys/kernel/ns_last_pid`
/// is writable: root in its pid namespace); `None` otherwise.
fn claim_pid(pid: u32) -> Option<Child> {
    for _ in 0..CLAIM_TRIES {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).ok()?;
        let mut child = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .ok()?;
        if child.id() == pid {
            return Some(child);
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    None
}
