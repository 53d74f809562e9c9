//! The npm install source for real: Pi's package from npm's configured registry.

use super::*;

/// Whether npm itself, outside the daemon, cannot install Pi's latest package from
/// its configured registry right now (a registry holding a dependency that asks for
/// a version of another it does not hold yet), and the daemon's failed install
/// said what npm said: then that failure is the right answer. Anything else is
/// the daemon's fault (false).
fn npm_cannot_install_latest_pi(outcome: &Value) -> bool {
    let prefix = tempfile::tempdir().unwrap();
    let direct = std::process::Command::new("npm")
        .args([
            "install",
            "--dry-run",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(prefix.path())
        .arg("@mariozechner/pi-coding-agent@latest")
        .output()
        .unwrap();
    if direct.status.success() {
        return false;
    }
    let stderr = String::from_utf8_lossy(&direct.stderr);
    let Some(code) = stderr
        .lines()
        .find_map(|line| line.strip_prefix("npm error code "))
    else {
        return false;
    };
    let detail = outcome["detail"].as_str().unwrap_or_default();
    assert!(
        outcome["type"] == "urn:sandbox-agent:error:install_failed" && detail.contains(code),
        "npm fails with {code} by itself; the daemon should say so: {outcome}"
    );
    eprintln!(
        "npm cannot install Pi from its registry now ({code}); the daemon reported it: {detail}"
    );
    true
}

/// The npm source for real: Pi's package from npm's configured registry.
#[test]
fn the_npm_source_installs_pi_with_npm() {
    if which::which("npm").is_err() {
        assert!(std::env::var_os("CI").is_none(), "npm is required under CI");
        eprintln!("skipping: npm is not on PATH");
        return;
    }
    let vendors = Vendors::start();
    let daemon = daemon(&vendors, &["--install-source", "npm"]);
    let (_, last, outcome) = install_events(&daemon, "pi", json!({}));
    if last != "result" && npm_cannot_install_latest_pi(&outcome) {
        return;
    }
    assert_eq!(last, "result", "{outcome}");
    assert!(outcome["source"]
        .as_str()
        .unwrap()
        .starts_with("npm:@mariozechner/pi-coding-agent"));
    // The version is npm's latest, as the registry tells npm.
    let latest = std::process::Command::new("npm")
        .args(["view", "@mariozechner/pi-coding-agent", "version"])
        .output()
        .unwrap();
    let latest = String::from_utf8_lossy(&latest.stdout).trim().to_owned();
    let entry = agent_entry(&Api::new(&daemon), "pi");
    assert_eq!(entry["version"], latest, "{entry}");
    assert_eq!(
        entry["path"],
        install_dir(&daemon).join("pi").display().to_string()
    );
}
