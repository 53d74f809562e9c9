//! Managed processes: a `cat` echoing its stdin, logs by offset and followed over
//! SSE, the ring buffer telling readers what they missed, stop (SIGTERM, then
//! SIGKILL after the grace) and kill, delete, the process limit and bad input.

use std::time::{Duration, Instant};

use agentplex_client::{
    ProcessCreateRequest, ProcessLogEvent, ProcessLogsQuery, ProcessRunRequest,
};
use futures::StreamExt;

use super::common::procfs;
use super::*;

fn start(command: &str, args: &[&str]) -> ProcessCreateRequest {
    ProcessCreateRequest {
        command: command.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        ..ProcessCreateRequest::default()
    }
}

#[test]
fn a_managed_cat_echoes_its_stdin_and_keeps_its_exit_until_deleted() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        let cat = client
            .start_process(&ProcessCreateRequest {
                interactive: true,
                ..start("cat", &[])
            })
            .await
            .unwrap();
        assert_eq!(cat.status, ProcessState::Running);
        let written = client.process_input(&cat.id, b"hello\n").await.unwrap();
        assert_eq!(written.bytes_written, 6);
        client.process_input(&cat.id, b"again\n").await.unwrap();
        assert_eq!(
            wait_for_output(&client, &cat.id, "again").await,
            "hello\nagain\n"
        );

        let listed = client.list_processes().await.unwrap();
        assert_eq!(
            listed.processes.iter().map(|p| &p.id).collect::<Vec<_>>(),
            [&cat.id]
        );

        let stopped = client.stop_process(&cat.id, Some(5000)).await.unwrap();
        assert_eq!(stopped.status, ProcessState::Exited);
        assert_eq!((stopped.exit_code, stopped.signal), (None, Some(15)));
        assert!(stopped.exited_at_ms.is_some());
        // The exit and the output stay until the process is deleted.
        assert_eq!(client.get_process(&cat.id).await.unwrap(), stopped);
        assert_eq!(log_text(&client, &cat.id).await, "hello\nagain\n");
        let (status, code, _) = refusal(client.process_input(&cat.id, b"late").await);
        assert_eq!((status, code.as_str()), (409, "process_conflict"));

        client.delete_process(&cat.id).await.unwrap();
        let (status, code, _) = refusal(client.get_process(&cat.id).await);
        assert_eq!((status, code.as_str()), (404, "process_not_found"));
    });
}

#[test]
fn logs_are_read_by_offset_and_followed_over_sse_until_the_exit() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        let script = "for i in 1 2 3; do echo line$i; sleep 0.1; done; echo oops >&2; exit 7";
        let process = client
            .start_process(&start("sh", &["-c", script]))
            .await
            .unwrap();
        let mut followed = client
            .follow_process_logs(&process.id, &ProcessLogsQuery::default())
            .await
            .unwrap();
        let mut text = String::new();
        let mut exit = None;
        while let Some(event) = followed.next().await {
            match event.unwrap() {
                ProcessLogEvent::Log(entry) => text.push_str(&decode(&entry.data)),
                ProcessLogEvent::Exit(info) => exit = Some(info),
                ProcessLogEvent::Missed(missed) => panic!("nothing was dropped: {missed:?}"),
            }
        }
        assert_eq!(text, "line1\nline2\nline3\noops\n");
        assert_eq!(exit.expect("an exit event").exit_code, Some(7));

        // By stream, and from a byte offset (cutting an entry).
        let stderr = client
            .process_logs(
                &process.id,
                &ProcessLogsQuery {
                    stream: Some(agentplex_client::ProcessLogsStream::Stderr),
                    ..ProcessLogsQuery::default()
                },
            )
            .await
            .unwrap();
        let stderr_text: String = stderr.entries.iter().map(|e| decode(&e.data)).collect();
        assert_eq!(stderr_text, "oops\n");
        let from = client
            .process_logs(
                &process.id,
                &ProcessLogsQuery {
                    offset: Some(8),
                    ..ProcessLogsQuery::default()
                },
            )
            .await
            .unwrap();
        let rest: String = from.entries.iter().map(|e| decode(&e.data)).collect();
        assert_eq!(rest, "ne2\nline3\noops\n");
        assert_eq!(
            (from.first_offset, from.next_offset, from.missed_bytes),
            (0, 23, 0)
        );

        // A follower that reconnects after an entry gets the rest only.
        let since_first = client
            .follow_process_logs(
                &process.id,
                &ProcessLogsQuery {
                    since: Some(1),
                    ..ProcessLogsQuery::default()
                },
            )
            .await
            .unwrap();
        let events: Vec<_> = since_first.map(Result::unwrap).collect().await;
        let resumed: String = events
            .iter()
            .filter_map(|e| match e {
                ProcessLogEvent::Log(entry) => Some(decode(&entry.data)),
                _ => None,
            })
            .collect();
        assert_eq!(resumed, "line2\nline3\noops\n");
        assert!(matches!(events.last(), Some(ProcessLogEvent::Exit(_))));
    });
}

#[test]
fn the_ring_buffer_drops_the_oldest_output_and_readers_see_what_they_missed() {
    let daemon = daemon(&["--process-log-bytes", "1000"]);
    let client = client(&daemon);
    block_on(async {
        let script = "i=0; while [ $i -lt 100 ]; do printf '%049d\\n' $i; i=$((i+1)); done";
        let process = client
            .start_process(&start("sh", &["-c", script]))
            .await
            .unwrap();
        wait_exited(&client, &process.id).await;
        let logs = client
            .process_logs(&process.id, &ProcessLogsQuery::default())
            .await
            .unwrap();
        let held: String = logs.entries.iter().map(|e| decode(&e.data)).collect();
        assert_eq!(logs.next_offset, 5000);
        assert!(held.len() <= 1000, "{} bytes held", held.len());
        assert_eq!(logs.first_offset, 5000 - held.len() as u64);
        assert_eq!(logs.missed_bytes, logs.first_offset);
        assert!(held.ends_with(&format!("{:049}\n", 99)));
        assert_eq!(logs.entries[0].offset, logs.first_offset);

        let mut followed = client
            .follow_process_logs(&process.id, &ProcessLogsQuery::default())
            .await
            .unwrap();
        match followed.next().await.unwrap().unwrap() {
            ProcessLogEvent::Missed(missed) => {
                assert_eq!(missed.missed_bytes, logs.first_offset);
                assert_eq!(missed.first_offset, logs.first_offset);
            }
            other => panic!("expected a missed event first, got {other:?}"),
        }
    });
}

#[test]
fn stop_escalates_to_sigkill_after_the_grace_and_kill_is_immediate() {
    let daemon = daemon(&["--process-stop-grace-ms", "300"]);
    let client = client(&daemon);
    block_on(async {
        let stubborn = client
            .start_process(&start(
                "sh",
                &["-c", "trap '' TERM; sleep 30 & wait; sleep 30"],
            ))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = Instant::now();
        let stopped = client
            .stop_process(&stubborn.id, Some(10_000))
            .await
            .unwrap();
        assert_eq!(stopped.signal, Some(9), "{stopped:?}");
        assert!(started.elapsed() >= Duration::from_millis(300));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(group_members(stubborn.pid.unwrap()).is_empty());

        let sleeper = client
            .start_process(&start("sleep", &["30"]))
            .await
            .unwrap();
        let killed = client.kill_process(&sleeper.id, Some(5000)).await.unwrap();
        assert_eq!(
            (killed.status, killed.signal),
            (ProcessState::Exited, Some(9))
        );
    });
}

#[test]
fn the_process_limit_and_bad_requests_get_clear_problems() {
    let daemon = daemon(&["--max-processes", "2", "--process-input-bytes", "8"]);
    let client = client(&daemon);
    block_on(async {
        let first = client
            .start_process(&ProcessCreateRequest {
                interactive: true,
                ..start("cat", &[])
            })
            .await
            .unwrap();
        let second = client
            .start_process(&start("sleep", &["30"]))
            .await
            .unwrap();
        let (status, code, detail) = refusal(client.start_process(&start("true", &[])).await);
        assert_eq!((status, code.as_str()), (409, "process_limit_reached"));
        assert!(detail.contains("--max-processes"), "{detail}");
        let run = ProcessRunRequest {
            command: "true".into(),
            ..ProcessRunRequest::default()
        };
        assert_eq!(
            refusal(client.run_process(&run).await).1,
            "process_limit_reached"
        );

        let (status, code, _) = refusal(client.process_input(&first.id, b"123456789").await);
        assert_eq!((status, code.as_str()), (413, "payload_too_large"));
        let (status, code, _) = refusal(client.process_input(&second.id, b"x").await);
        assert_eq!((status, code.as_str()), (409, "process_conflict"));
        let (status, code, _) = refusal(client.resize_terminal(&second.id, 80, 24).await);
        assert_eq!((status, code.as_str()), (409, "process_conflict"));
        let (status, code, _) = refusal(client.terminal(&second.id).await);
        assert_eq!((status, code.as_str()), (409, "process_conflict"));
        let (status, code, _) = refusal(client.delete_process(&second.id).await);
        assert_eq!((status, code.as_str()), (409, "process_conflict"));

        for missing in ["proc_999", "nope"] {
            assert_eq!(refusal(client.get_process(missing).await).0, 404);
            assert_eq!(refusal(client.stop_process(missing, None).await).0, 404);
            assert_eq!(refusal(client.kill_process(missing, None).await).0, 404);
            assert_eq!(refusal(client.delete_process(missing).await).0, 404);
            assert_eq!(refusal(client.process_input(missing, b"x").await).0, 404);
            assert_eq!(refusal(client.terminal(missing).await).0, 404);
            let logs = client
                .process_logs(missing, &ProcessLogsQuery::default())
                .await;
            assert_eq!(refusal(logs).1, "process_not_found");
        }

        // An exited, deleted process gives its place back.
        client.kill_process(&second.id, Some(5000)).await.unwrap();
        client.delete_process(&second.id).await.unwrap();
        client.start_process(&start("true", &[])).await.unwrap();
    });
    daemon.stop();
}

#[test]
fn short_managed_processes_and_terminals_leave_no_zombie_and_no_descriptor() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    let pid = daemon.pid();
    block_on(async {
        let cycle = |tty: bool| {
            let client = &client;
            async move {
                let request = ProcessCreateRequest {
                    tty,
                    interactive: !tty,
                    ..start("sh", &["-c", "echo done"])
                };
                let process = client.start_process(&request).await.unwrap();
                let exited = wait_exited(client, &process.id).await;
                assert_eq!(exited.exit_code, Some(0));
                assert!(log_text(client, &process.id).await.contains("done"));
                client.delete_process(&process.id).await.unwrap();
            }
        };
        // Warm up the connection.
        cycle(false).await;
        cycle(true).await;
        let fds_before = procfs::fd_count(pid);
        for i in 0..100 {
            cycle(i % 2 == 0).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(procfs::zombie_children(pid), Vec::<u32>::new());
        let fds_after = procfs::fd_count(pid);
        assert!(
            fds_after <= fds_before + 2,
            "{fds_before} descriptors before, {fds_after} after"
        );
        assert!(client.list_processes().await.unwrap().processes.is_empty());
    });
}

#[test]
fn input_a_process_never_reads_is_given_up_with_what_it_took() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        let deaf = client
            .start_process(&ProcessCreateRequest {
                interactive: true,
                ..start("sleep", &["30"])
            })
            .await
            .unwrap();
        let started = Instant::now();
        let (status, code, detail) =
            refusal(client.process_input(&deaf.id, &[b'x'; 1 << 20]).await);
        assert_eq!((status, code.as_str()), (409, "process_conflict"));
        assert!(
            detail.contains("of 1048576 bytes") && detail.contains("without reading the rest"),
            "{detail}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
        // The process and the API go on.
        assert_eq!(
            client.get_process(&deaf.id).await.unwrap().status,
            ProcessState::Running
        );
        client.kill_process(&deaf.id, Some(5000)).await.unwrap();
    });
}
