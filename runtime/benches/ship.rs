//! Start-up, idle memory and request throughput of the daemon binary, side by side
//! with reference binaries: `cargo bench -p agentplex --bench ship`.
//!
//! Not a timed test: it measures and prints. What it runs:
//!
//! - ours: `AGENTPLEX_BENCH_BIN` (for instance the static release binary that
//!   `scripts/release.sh` builds), else the binary of this bench build;
//! - references: `AGENTPLEX_REFERENCES=0.1.11=/path/to/sandbox-agent,0.4.2=/path/...`
//!   (any binaries taking `server --host --port --no-token --no-telemetry`); none by
//!   default. An entry whose name starts with `ours` is another build of ours (run
//!   with a token, like ours).
//!
//! Every start gets a fresh `HOME`, data dir and compile cache, so "cold" is the first
//! start in a new sandbox. Throughput uses `wrk -t2 -c50` when `wrk` is installed.
//! What each number means is described in `docs/benchmarks.md`.

mod common;

use std::process::Command;
use std::time::Duration;

use common::daemons::{Binary, Daemon};

/// Cold starts per binary (the median is reported).
const STARTS: usize = 7;
/// RSS samples per binary, each on its own fresh daemon.
const RSS_SAMPLES: usize = 3;
/// wrk runs per binary and route, interleaved between binaries.
const WRK_RUNS: usize = 2;
const WRK_SECONDS: u32 = 5;

fn main() {
    let scratch = tempfile::tempdir().expect("scratch folder");
    let binaries = Binary::all();
    for binary in &binaries {
        println!(
            "{:<10} {} ({:.1} MB)",
            binary.name,
            binary.path.display(),
            std::fs::metadata(&binary.path).map_or(0.0, |m| m.len() as f64 / 1e6)
        );
    }

    let mut starts = vec![Vec::new(); binaries.len()];
    for _ in 0..STARTS {
        for (i, binary) in binaries.iter().enumerate() {
            let (daemon, elapsed) = Daemon::start(binary, scratch.path());
            starts[i].push(elapsed);
            drop(daemon);
        }
    }
    section("Cold start: exec -> first 200 from GET /v1/health (fresh HOME, data dir, cache)");
    report(&binaries, &mut starts, |d| format!("{:.1} ms", ms(d)));

    let mut rss = vec![Vec::new(); binaries.len()];
    for _ in 0..RSS_SAMPLES {
        for (i, binary) in binaries.iter().enumerate() {
            let (daemon, _) = Daemon::start(binary, scratch.path());
            std::thread::sleep(Duration::from_millis(500));
            rss[i].push(Duration::from_micros(common::rss_kib(daemon.child.id())));
            drop(daemon);
        }
    }
    section("Idle RSS after start, no session (VmRSS, 500 ms after the first 200)");
    report(&binaries, &mut rss, |d| {
        format!("{:.1} MB", d.as_micros() as f64 * 1024.0 / 1e6)
    });

    if Command::new("wrk").arg("--version").output().is_err() {
        println!("\n(wrk not installed: no throughput figures; apt-get install wrk)");
        return;
    }
    for route in ["/v1/health", "/v1/agents"] {
        let mut rps = vec![Vec::new(); binaries.len()];
        let mut p99 = vec![Vec::new(); binaries.len()];
        for _ in 0..WRK_RUNS {
            for (i, binary) in binaries.iter().enumerate() {
                // One daemon at a time: with the reference's daemon left running
                // beside it after its own run, ours read 28-36k `GET /v1/agents`
                // per second instead of 47k.
                let (daemon, _) = Daemon::start(binary, scratch.path());
                // The first agents listing probes agent versions; keep it out of the figures.
                let _ = common::http_get(daemon.port, "/v1/agents", daemon.token.as_deref());
                let run = wrk(&daemon, route);
                rps[i].push(run.rate);
                p99[i].push(run.p99);
            }
        }
        section(&format!(
            "GET {route} throughput (wrk -t2 -c50 -d{WRK_SECONDS}s; client on the same cores)"
        ));
        report(&binaries, &mut rps, |d| {
            format!("{:.0} req/s", d.as_secs_f64())
        });
        section(&format!("GET {route} latency, 99th percentile (same runs)"));
        report(&binaries, &mut p99, |d| format!("{:.2} ms", ms(d)));
    }
}

/// What one `wrk` run measured.
struct WrkRun {
    /// Requests per second, carried in a `Duration` of that many seconds so one
    /// report function serves every figure.
    rate: Duration,
    /// The 99th percentile of the requests' latency.
    p99: Duration,
}

/// Runs `wrk` on a route of the daemon.
fn wrk(daemon: &Daemon, route: &str) -> WrkRun {
    let mut command = Command::new("wrk");
    command.args([
        "-t2",
        "-c50",
        "--latency",
        &format!("-d{WRK_SECONDS}s"),
        &format!("http://127.0.0.1:{}{route}", daemon.port),
    ]);
    if let Some(token) = &daemon.token {
        command.args(["-H", &format!("Authorization: Bearer {token}")]);
    }
    let output = command.output().expect("running wrk");
    let text = String::from_utf8_lossy(&output.stdout);
    let non_2xx = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .map(|n| n.trim().to_owned());
    assert!(non_2xx.is_none(), "wrk {route}: {non_2xx:?} failed answers");
    let rps: f64 = text
        .lines()
        .find_map(|line| line.strip_prefix("Requests/sec:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no Requests/sec in wrk's output:\n{text}"));
    let p99 = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("99%"))
        .and_then(|value| wrk_duration(value.trim()))
        .unwrap_or_else(|| panic!("no 99% latency in wrk's output:\n{text}"));
    WrkRun {
        rate: Duration::from_secs_f64(rps),
        p99,
    }
}

/// A latency as wrk prints it (`812.00us`, `1.25ms`, `2.01s`).
fn wrk_duration(text: &str) -> Option<Duration> {
    let (number, unit) = text.split_at(text.find(|c: char| c.is_ascii_alphabetic())?);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit {
        "us" => number / 1e6,
        "ms" => number / 1e3,
        "s" => number,
        "m" => number * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds))
}

fn section(title: &str) {
    println!("\n{title}");
}

/// One line per binary: median, range, and ours against each reference.
fn report(binaries: &[Binary], samples: &mut [Vec<Duration>], show: impl Fn(Duration) -> String) {
    let medians: Vec<Duration> = samples.iter_mut().map(|s| median(s)).collect();
    for (i, binary) in binaries.iter().enumerate() {
        let (min, max) = (samples[i][0], samples[i][samples[i].len() - 1]);
        let versus = if i == 0 {
            String::new()
        } else {
            let ratio = medians[0].as_secs_f64() / medians[i].as_secs_f64();
            format!("   ours/{} = {ratio:.2}x", binary.name)
        };
        println!(
            "  {:<10} median {:>12}   range {} .. {}{}",
            binary.name,
            show(medians[i]),
            show(min),
            show(max),
            versus
        );
    }
}

/// Sorts the samples and returns the middle one.
fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
