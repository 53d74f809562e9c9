//! `POST /v1/processes/run`: exit codes, signals, timeouts, output caps, stdin,
//! spawn failures with the system's reason, and 200 runs in a row leaving no zombie
//! and no descriptor behind.

use std::time::{Duration, Instant};

use agentplex_client::{ProcessDataEncoding, ProcessRunRequest};

use super::common::procfs;
use super::*;

fn sh(script: &str) -> ProcessRunRequest {
    ProcessRunRequest {
        command: "sh".into(),
        args: vec!["-c".into(), script.into()],
        ..ProcessRunRequest::default()
    }
}

#[test]
fn runs_report_exit_codes_signals_timeouts_and_capped_output() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        let done = client
            .run_process(&sh("echo out; echo err >&2; exit 3"))
            .await
            .unwrap();
        assert_eq!(
            (done.exit_code, done.signal, done.timed_out),
            (Some(3), None, false)
        );
        assert_eq!(
            (done.stdout.as_str(), done.stderr.as_str()),
            ("out\n", "err\n")
        );

        let signalled = client.run_process(&sh("kill -TERM $$")).await.unwrap();
        assert_eq!((signalled.exit_code, signalled.signal), (None, Some(15)));

        // The timeout kills the whole group: the background sleep goes too.
        let started = Instant::now();
        let timed_out = client
            .run_process(&ProcessRunRequest {
                timeout_ms: Some(300),
                ..sh("sleep 30 & echo $!; wait")
            })
            .await
            .unwrap();
        assert!(timed_out.timed_out);
        assert_eq!((timed_out.exit_code, timed_out.signal), (None, Some(9)));
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(timed_out.duration_ms >= 300, "{timed_out:?}");
        let sleeper: u32 = timed_out.stdout.trim().parse().expect("the sleep's pid");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            !procfs::is_running(sleeper),
            "the background sleep survived"
        );

        // Past the cap the output is read and dropped: the command still finishes.
        let capped = client
            .run_process(&ProcessRunRequest {
                max_output_bytes: Some(1000),
                ..sh("head -c 300000 /dev/zero | tr '\\0' a; head -c 10 /dev/zero | tr '\\0' b >&2")
            })
            .await
            .unwrap();
        assert_eq!(capped.exit_code, Some(0));
        assert_eq!(capped.stdout, "a".repeat(1000));
        assert!(capped.stdout_truncated);
        assert_eq!(
            (capped.stderr.as_str(), capped.stderr_truncated),
            ("bbbbbbbbbb", false)
        );

        // stdin in, exact bytes out.
        let echoed = client
            .run_process(&ProcessRunRequest {
                command: "cat".into(),
                stdin: Some("/w==".into()),
                stdin_encoding: Some(ProcessDataEncoding::Base64),
                output_encoding: Some(ProcessDataEncoding::Base64),
                ..ProcessRunRequest::default()
            })
            .await
            .unwrap();
        assert_eq!(
            (echoed.stdout.as_str(), echoed.encoding),
            ("/w==", ProcessDataEncoding::Base64)
        );

        let in_dir = client
            .run_process(&ProcessRunRequest {
                cwd: Some("/tmp".into()),
                env: [("GREETING".to_owned(), "hi there".to_owned())].into(),
                ..sh("pwd; echo $GREETING")
            })
            .await
            .unwrap();
        assert_eq!(in_dir.stdout, "/tmp\nhi there\n");
    });
}

#[test]
fn a_program_that_cannot_start_is_a_400_with_the_system_reason_and_a_missing_cwd_a_404() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        let missing = ProcessRunRequest {
            command: "no-such-program-anywhere".into(),
            ..ProcessRunRequest::default()
        };
        let (status, code, detail) = refusal(client.run_process(&missing).await);
        assert_eq!((status, code.as_str()), (400, "spawn_failed"));
        assert!(detail.contains("No such file or directory"), "{detail}");

        let bad_cwd = ProcessRunRequest {
            cwd: Some("/no/such/dir".into()),
            ..sh("true")
        };
        let (status, code, detail) = refusal(client.run_process(&bad_cwd).await);
        assert_eq!((status, code.as_str()), (404, "path_not_found"));
        assert_eq!(detail, "working directory /no/such/dir does not exist");

        let (status, code, _) = refusal(client.run_process(&ProcessRunRequest::default()).await);
        assert_eq!((status, code.as_str()), (400, "invalid_request"));
    });
}

#[test]
fn two_hundred_runs_leave_no_zombie_and_no_descriptor() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    let pid = daemon.pid();
    block_on(async {
        let run_true = ProcessRunRequest {
            command: "true".into(),
            ..ProcessRunRequest::default()
        };
        // Warm up the connection (and the daemon's lazily opened files).
        client.run_process(&run_true).await.unwrap();
        let fds_before = procfs::fd_count(pid);
        let mut latencies = Vec::new();
        for _ in 0..200 {
            let started = Instant::now();
            let done = client.run_process(&run_true).await.unwrap();
            latencies.push(started.elapsed());
            assert_eq!(done.exit_code, Some(0));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(procfs::zombie_children(pid), Vec::<u32>::new());
        let fds_after = procfs::fd_count(pid);
        // A connection or two may come and go; 200 leaked pipes would not fit.
        assert!(
            fds_after <= fds_before + 2,
            "{fds_before} descriptors before, {fds_after} after"
        );
        println!(
            "POST /v1/processes/run of `true`: median {:?} over 200",
            median(latencies)
        );
    });
}

#[test]
fn a_run_leaves_nothing_running_behind() {
    let daemon = daemon(&[]);
    let client = client(&daemon);
    block_on(async {
        // The background sleep does not hold the output: the run ends at once.
        let started = Instant::now();
        let done = client
            .run_process(&sh("sleep 30 > /dev/null 2>&1 & echo $!"))
            .await
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
        let sleeper: u32 = done.stdout.trim().parse().expect("the sleep's pid");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            !procfs::is_running(sleeper),
            "the background sleep outlived its run"
        );

        // One that holds the output is waited for 2 s, then killed.
        let started = Instant::now();
        let done = client
            .run_process(&sh("echo $$; sleep 30 &"))
            .await
            .unwrap();
        assert_eq!(done.exit_code, Some(0));
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "{:?}",
            started.elapsed()
        );
        let leader: u32 = done.stdout.trim().parse().expect("the shell's pid");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(group_members(leader).is_empty());
    });
}
