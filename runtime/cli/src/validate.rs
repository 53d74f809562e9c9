//! `agentplex adapters validate FILE`: checks a component the way the daemon would
//! load it, and more strictly: the file is a component, it targets a contract version
//! this daemon accepts, its `info()` is coherent, its install plan is usable on every
//! platform, its version probe does not trap, and a session starts, snapshots,
//! restores and terminates. Every finding is one plain-words line.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use agentplex_host::{
    Action, AdapterInfo, AdapterOrigin, AdapterRegistry, Arch, ArchiveKind, HostConfig, HostError,
    Input, InstallRecipe, Libc, LoadedAdapter, Os, Platform, SessionConfig, SUPPORTED_CONTRACTS,
};
use agentplex_universal::UniversalEventType;

use super::error::LocalError;
use super::Failure;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// A check passed.
    Ok,
    /// Worth fixing, but the daemon runs the component.
    Warning,
    /// The component is not valid: the daemon refuses it, or it misbehaves.
    Problem,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Level::Ok => "ok",
            Level::Warning => "warning",
            Level::Problem => "problem",
        })
    }
}

/// The findings so far, printed as they come.
#[derive(Default)]
struct Report {
    warnings: usize,
    problems: usize,
}

impl Report {
    /// Prints one finding: `<level>  <topic>: <text>`.
    fn add(&mut self, level: Level, topic: &str, text: impl fmt::Display) {
        match level {
            Level::Ok => {}
            Level::Warning => self.warnings += 1,
            Level::Problem => self.problems += 1,
        }
        println!("{level:<8} {topic}: {text}");
    }

    fn ok(&mut self, topic: &str, text: impl fmt::Display) {
        self.add(Level::Ok, topic, text);
    }

    fn warning(&mut self, topic: &str, text: impl fmt::Display) {
        self.add(Level::Warning, topic, text);
    }

    fn problem(&mut self, topic: &str, text: impl fmt::Display) {
        self.add(Level::Problem, topic, text);
    }

    /// The command's result: a failure naming the file when there was a problem.
    fn finish(self, file: &Path, adapter: Option<&LoadedAdapter>) -> Result<(), Failure> {
        if self.problems > 0 {
            return Err(LocalError::NotValid {
                file: file.to_owned(),
                problems: self.problems,
            }
            .into());
        }
        if let Some(adapter) = adapter {
            println!(
                "valid: {} {} ({} warning{})",
                adapter.id(),
                adapter.info().version,
                self.warnings,
                plural(self.warnings)
            );
        }
        Ok(())
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// `agentplex adapters validate FILE`.
pub(super) fn validate(file: &Path, host: HostConfig) -> Result<(), Failure> {
    let mut report = Report::default();
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(error) => {
            report.problem("file", format!("cannot read {}: {error}", file.display()));
            return report.finish(file, None);
        }
    };
    let adapter = match load(&bytes, file, host) {
        Ok(adapter) => Arc::new(adapter),
        Err((topic, error)) => {
            report.problem(topic, error);
            return report.finish(file, None);
        }
    };
    report.ok(
        "file",
        format!(
            "a WebAssembly component ({} KiB)",
            bytes.len().div_ceil(1024)
        ),
    );
    check_contract(&mut report, &adapter);
    check_info(&mut report, adapter.info());
    check_install_plan(&mut report, &adapter);
    check_version_probe(&mut report, &adapter);
    check_session(&mut report, &adapter);
    report.finish(file, Some(&adapter))
}

/// Compiles the component as the daemon does; on failure, the topic the error is about.
fn load(
    bytes: &[u8],
    file: &Path,
    host: HostConfig,
) -> Result<LoadedAdapter, (&'static str, String)> {
    let registry = AdapterRegistry::new(host).map_err(|e| ("host", e.to_string()))?;
    registry
        .compile(AdapterOrigin::File(file.to_owned()), bytes)
        .map_err(|error| {
            let topic = match &error {
                HostError::IncompatibleContract { .. } => "contract",
                HostError::Load { .. } => "file",
                _ => "info",
            };
            (topic, error.to_string())
        })
}

fn check_contract(report: &mut Report, adapter: &LoadedAdapter) {
    let exported = adapter.contract();
    if SUPPORTED_CONTRACTS.contains(&exported) {
        report.ok(
            "contract",
            format!("{exported} (world adapter-component), supported"),
        );
    } else {
        report.ok(
            "contract",
            format!(
                "{exported} (world adapter-component), run as the compatible {}",
                agentplex_host::run_as(exported).unwrap_or("supported contract")
            ),
        );
    }
}

fn check_info(report: &mut Report, info: &AdapterInfo) {
    let before = report.problems + report.warnings;
    if info.name.trim().is_empty() {
        report.problem("info", "the display name is empty");
    }
    if semver::Version::parse(&info.version).is_err() {
        report.problem(
            "info",
            format!(
                "version {:?} is not a semantic version (like 1.2.3)",
                info.version
            ),
        );
    }
    if semver::VersionReq::parse(&info.agent_versions).is_err() {
        report.problem(
            "info",
            format!(
                "agent-versions {:?} is not a semver requirement (like `>=2.0, <3` or `*`)",
                info.agent_versions
            ),
        );
    }
    for id in duplicates(info.modes.iter().map(|m| m.id.as_str())) {
        report.problem("info", format!("mode {id:?} is declared twice"));
    }
    if info.modes.iter().any(|m| m.id.trim().is_empty()) {
        report.problem("info", "a mode has an empty id");
    }
    check_models(report, info);
    for name in info
        .credential_env
        .iter()
        .map(|v| &v.name)
        .chain(&info.location_env)
    {
        if !is_env_name(name) {
            report.problem(
                "info",
                format!("credential-env {name:?} is not an environment variable name"),
            );
        }
    }
    if report.problems + report.warnings == before {
        let modes: Vec<&str> = info.modes.iter().map(|m| m.id.as_str()).collect();
        report.ok(
            "info",
            format!(
                "agent {:?} ({}), adapter version {}, agent versions {}, modes [{}] (default {}), {} model{}{}",
                info.id,
                info.name,
                info.version,
                info.agent_versions,
                modes.join(", "),
                info.default_mode,
                info.models.len(),
                plural(info.models.len()),
                if info.builtin { ", builtin" } else { "" }
            ),
        );
    }
}

fn check_models(report: &mut Report, info: &AdapterInfo) {
    for id in duplicates(info.models.iter().map(|m| m.id.as_str())) {
        report.problem("info", format!("model {id:?} is declared twice"));
    }
    if let Some(default) = &info.default_model {
        if !info.models.is_empty() && !info.models.iter().any(|m| &m.id == default) {
            report.problem(
                "info",
                format!("default model {default:?} is not among its models"),
            );
        }
    }
    for model in &info.models {
        if let Some(variant) = &model.default_variant {
            if !model.variants.contains(variant) {
                report.problem(
                    "info",
                    format!(
                        "model {:?}: default variant {variant:?} is not among its variants",
                        model.id
                    ),
                );
            }
        }
    }
    let has_variants = info.models.iter().any(|m| !m.variants.is_empty());
    if has_variants && !info.has("variants") {
        report.warning(
            "capabilities",
            "models have variants but the `variants` capability is false",
        );
    }
}

/// The values that occur more than once, each once.
fn duplicates<'a>(values: impl Iterator<Item = &'a str>) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    values.filter(|value| !seen.insert(*value)).collect()
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_env_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every platform the contract can name.
fn platforms() -> Vec<Platform> {
    let mut all = Vec::new();
    for arch in [Arch::X8664, Arch::Aarch64] {
        for libc in [Libc::Gnu, Libc::Musl] {
            all.push(Platform {
                os: Os::Linux,
                arch,
                libc: Some(libc),
            });
        }
        for os in [Os::Macos, Os::Windows] {
            all.push(Platform {
                os,
                arch,
                libc: None,
            });
        }
    }
    all
}

/// `linux-x86_64-gnu`, `macos-aarch64`.
fn platform_name(platform: &Platform) -> String {
    let os = match platform.os {
        Os::Linux => "linux",
        Os::Macos => "macos",
        Os::Windows => "windows",
    };
    let arch = match platform.arch {
        Arch::X8664 => "x86_64",
        Arch::Aarch64 => "aarch64",
    };
    match platform.libc {
        Some(Libc::Gnu) => format!("{os}-{arch}-gnu"),
        Some(Libc::Musl) => format!("{os}-{arch}-musl"),
        None => format!("{os}-{arch}"),
    }
}

fn check_install_plan(report: &mut Report, adapter: &LoadedAdapter) {
    let topic = "install plan";
    let mut covered = Vec::new();
    let mut downloadable = false;
    for platform in platforms() {
        let name = platform_name(&platform);
        let recipe = match adapter.install_plan(platform, None) {
            Ok(recipe) => recipe,
            Err(error) => {
                report.problem(topic, format!("{name}: {error}"));
                continue;
            }
        };
        let Some(recipe) = recipe else { continue };
        for issue in recipe_issues(&recipe) {
            report.problem(topic, format!("{name}: {issue}"));
        }
        downloadable |= !recipe.sources.is_empty() || recipe.npm_package.is_some();
        covered.push(format!("{name} ({})", recipe.binary_name));
    }
    let info = adapter.info();
    if info.builtin {
        if !covered.is_empty() {
            report.warning(
                topic,
                "the agent is builtin, so the daemon never installs it; its recipes are unused",
            );
        }
        return;
    }
    if covered.is_empty() {
        report.warning(
            topic,
            format!(
                "no recipe for any platform: the daemon looks for a binary named {:?}",
                info.id
            ),
        );
        return;
    }
    report.ok(topic, format!("recipes for {}", covered.join(", ")));
    if !downloadable {
        report.warning(
            topic,
            "no recipe has a download source or an npm package: the agent must be installed already",
        );
    }
}

/// What is wrong with one recipe, in plain words.
fn recipe_issues(recipe: &InstallRecipe) -> Vec<String> {
    let mut issues = Vec::new();
    let binary = &recipe.binary_name;
    if binary.trim().is_empty() || binary.contains(['/', '\\']) {
        issues.push(format!(
            "binary-name {binary:?} must be a file name (no folders)"
        ));
    }
    if let Some(url) = &recipe.latest_version_url {
        if !is_http_url(url) {
            issues.push(format!("latest-version-url {url:?} is not an http(s) URL"));
        }
    }
    for source in &recipe.sources {
        if !is_http_url(&source.url) {
            issues.push(format!("source URL {:?} is not an http(s) URL", source.url));
        }
        if source.archive != ArchiveKind::None && source.binary_path.trim().is_empty() {
            issues.push(format!(
                "source {:?} is an archive but names no binary-path inside it",
                source.url
            ));
        }
        if let Some(url) = source.checksum_url.as_ref().filter(|url| !is_http_url(url)) {
            issues.push(format!("checksum-url {url:?} is not an http(s) URL"));
        }
        if source.url.contains("{version}") && recipe.latest_version_url.is_none() {
            issues.push(format!(
                "source {:?} needs a {{version}} but the recipe has no latest-version-url to find one",
                source.url
            ));
        }
    }
    match (&recipe.npm_package, &recipe.npm_binary_path) {
        (Some(package), None) => issues.push(format!(
            "npm package {package:?} without npm-binary-path (the binary inside the package)"
        )),
        (None, Some(path)) => {
            issues.push(format!("npm-binary-path {path:?} without an npm-package"))
        }
        _ => {}
    }
    issues
}

fn is_http_url(url: &str) -> bool {
    ["http://", "https://"].iter().any(|scheme| {
        url.strip_prefix(scheme)
            .is_some_and(|rest| !rest.is_empty())
    })
}

fn check_version_probe(report: &mut Report, adapter: &LoadedAdapter) {
    let topic = "version probe";
    let args = adapter.version_args();
    for (call, result) in [
        ("parse-version", adapter.parse_version("")),
        ("parse-latest-version", adapter.parse_latest_version("")),
    ] {
        if let Err(error) = result {
            return report.problem(topic, format!("{call} of an empty text failed: {error}"));
        }
    }
    match args {
        Some(args) if args.is_empty() => report.warning(
            topic,
            "version-args is an empty list; answer none when the agent has no version flag",
        ),
        Some(args) => report.ok(topic, format!("<binary> {}", args.join(" "))),
        None => report.ok(topic, "none (the agent's version is not reported)"),
    }
}

/// Runs a session as the daemon starts one: start, snapshot, restore, terminate.
fn check_session(report: &mut Report, adapter: &Arc<LoadedAdapter>) {
    let topic = "session";
    let info = adapter.info();
    let config = SessionConfig {
        session_id: "validate".into(),
        agent_mode: info.default_mode.clone(),
        permission_mode: "default".into(),
        model: None,
        variant: None,
        directory: "/workspace".into(),
        agent_binary: (!info.builtin).then(|| format!("/usr/local/bin/{}", info.id)),
        env: Vec::new(),
        resume_native_session_id: None,
        mcp_servers: Vec::new(),
        skills: Vec::new(),
        scratch_dir: String::new(),
        model_endpoints: Vec::new(),
        policy: None,
    };
    let mut session = match adapter.new_session(config.clone()) {
        Ok(session) => session,
        Err(error) => return report.problem(topic, format!("the constructor failed: {error}")),
    };
    let started = match session.handle(Input::Start) {
        Ok(actions) => actions,
        Err(error) => return report.problem(topic, format!("start failed: {error}")),
    };
    let opens_with_session_started = matches!(
        started.iter().find(|action| matches!(action, Action::Emit(_))),
        Some(Action::Emit(event)) if event.event_type == UniversalEventType::SessionStarted
    );
    if !opens_with_session_started {
        report.warning(
            topic,
            "start() should emit session-started as its first event",
        );
    }
    let state = match session.snapshot() {
        Ok(state) => state,
        Err(error) => return report.problem(topic, format!("snapshot failed: {error}")),
    };
    let mut restored = match adapter.restore_session(config, &state) {
        Ok(restored) => restored,
        Err(error) => {
            return report.problem(
                topic,
                format!("restore of its own snapshot failed: {error}"),
            )
        }
    };
    if let Err(error) = restored.handle(Input::Terminate) {
        return report.problem(topic, format!("terminate failed: {error}"));
    }
    report.ok(
        topic,
        format!(
            "start, snapshot ({} bytes), restore and terminate work",
            state.len()
        ),
    );
}
