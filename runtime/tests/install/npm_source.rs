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

/// The npm registry packages of a fake Pi: `@mariozechner/pi-coding-agent` at
/// `version`, depending on `hook-dependency`; both packages have install
/// scripts that would `touch` a file in `markers`. `bad_integrity` lists a
/// wrong integrity hash for the Pi tarball.
fn publish_to_registry(vendors: &Vendors, version: &str, markers: &Path, bad_integrity: bool) {
    use base64::Engine as _;
    use sha2::Sha512;
    let publish = |name: &str, manifest: Value, files: &[(&str, &[u8])], bad: bool| {
        let manifest_text = manifest.to_string();
        let mut entries = vec![("package/package.json", manifest_text.as_bytes())];
        entries.extend(files.iter().copied());
        let tarball = tar_gz(&entries);
        let digest = Sha512::digest(if bad {
            b"other bytes".as_slice()
        } else {
            &tarball
        });
        let integrity = format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(digest)
        );
        let version = manifest["version"].as_str().unwrap().to_owned();
        let tarball_path = format!("/tarballs/{}-{version}.tgz", name.replace('/', "-"));
        vendors.body(&tarball_path, tarball);
        let mut published = manifest.clone();
        published["dist"] = json!({
            "tarball": format!("{}{tarball_path}", vendors.base),
            "integrity": integrity,
        });
        let mut versions = serde_json::Map::new();
        versions.insert(version.clone(), published);
        let packument = json!({
            "name": name,
            "dist-tags": {"latest": version},
            "versions": versions,
        });
        let escaped = name.replace('/', "%2f");
        vendors.body(&format!("/{escaped}"), packument.to_string());
        vendors.body(
            &format!("/{}", name.replace('/', "%2F")),
            packument.to_string(),
        );
    };
    let touch = |marker: &str| format!("touch {}", markers.join(marker).display());
    publish(
        "hook-dependency",
        json!({"name": "hook-dependency", "version": "1.0.0",
               "scripts": {"postinstall": touch("dependency-postinstall")}}),
        &[("package/index.js", b"module.exports = 1;\n")],
        false,
    );
    let cli =
        format!("#!/usr/bin/env node\nrequire('hook-dependency');\nconsole.log('{version}');\n");
    publish(
        "@mariozechner/pi-coding-agent",
        json!({"name": "@mariozechner/pi-coding-agent", "version": version,
               "bin": {"pi": "dist/cli.js"},
               "dependencies": {"hook-dependency": "1.0.0"},
               "scripts": {"install": touch("package-install"),
                           "postinstall": touch("package-postinstall")}}),
        &[("package/dist/cli.js", cli.as_bytes())],
        bad_integrity,
    );
}

/// The npm source runs no install script (the package's or a dependency's), and
/// npm checks each tarball against the registry's integrity hash.
#[test]
fn npm_installs_run_no_install_script_and_check_integrity() {
    if which::which("npm").is_err() {
        assert!(std::env::var_os("CI").is_none(), "npm is required under CI");
        eprintln!("skipping: npm is not on PATH");
        return;
    }
    let vendors = Vendors::start();
    let scratch = tempfile::tempdir().unwrap();
    let markers = scratch.path().join("markers");
    std::fs::create_dir(&markers).unwrap();
    publish_to_registry(&vendors, "1.0.0", &markers, false);
    vendors.body(PI_LATEST, json!({"version": "1.0.0"}).to_string());
    let daemon = Daemon::start_with(Options {
        args: [
            "--releases-mirror",
            &vendors.base,
            "--install-platform",
            "linux-x64",
            "--install-source",
            "npm",
        ]
        .map(str::to_owned)
        .to_vec(),
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("npm_config_registry".into(), format!("{}/", vendors.base)),
            (
                "npm_config_cache".into(),
                scratch.path().join("npm-cache").display().to_string(),
            ),
            // A refused tarball is not fetched again and again.
            ("npm_config_fetch_retries".into(), "0".into()),
        ],
        ..Options::default()
    });
    let (_, last, outcome) = install_events(&daemon, "pi", json!({}));
    assert_eq!(last, "result", "{outcome}");
    let pi = install_dir(&daemon).join("pi");
    assert_eq!(run(&pi), "1.0.0", "the package and its dependency work");
    let ran: Vec<_> = std::fs::read_dir(&markers)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    assert!(ran.is_empty(), "install scripts ran: {ran:?}");

    // A tarball that does not match the registry's integrity hash is refused.
    publish_to_registry(&vendors, "1.0.1", &markers, true);
    let (_, last, outcome) = install_events(&daemon, "pi", json!({"version": "1.0.1"}));
    assert_ne!(last, "result", "{outcome}");
    let detail = outcome["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("EINTEGRITY"), "{outcome}");
    assert_eq!(run(&pi), "1.0.0", "the installed version stays");
}
