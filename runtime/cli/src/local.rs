//! Local tools for adapter components: start a project, list what a daemon would
//! load, inspect and validate a file, replay recorded transcripts through a
//! component (or build a project and do all of that).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentplex_api::{AgentCapabilities, AgentModeInfo, AgentModelInfo};
use agentplex_host::{AdapterOrigin, AdapterRegistry, HostConfig, HostError, LoadedAdapter};
use clap::Subcommand;
use serde::Serialize;

use super::error::LocalError;
use super::Failure;
use crate::transcripts::{self, Mode};
use agentplex_server::config::default_data_dir;
use agentplex_sessions::agents::capabilities;

#[derive(Debug, Subcommand)]
pub enum AdaptersCommand {
    /// Write a new adapter project (the template, with the kit and the contract
    /// vendored) that builds anywhere with `cargo build --release --target
    /// wasm32-wasip2`.
    New {
        /// The agent id it registers (1-64 characters of [a-z0-9_-], starting with a
        /// letter).
        name: String,
        /// The project folder, new or empty [default: ./NAME-adapter].
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Make an adapter for an agent that speaks the Agent Client Protocol on
        /// stdio, started with this command line (`"my-agent --acp"`).
        #[arg(long, value_name = "COMMAND")]
        acp: Option<String>,
    },
    /// The adapters a daemon would load: the builtins, then the folder's.
    List {
        /// Folder of extra components, as for `server --adapters-dir`
        /// [default: <data-dir>/adapters when it exists].
        #[arg(long, env = "AGENTPLEX_ADAPTERS_DIR")]
        adapters_dir: Option<PathBuf>,
        /// The daemon's data dir (for the default adapters folder and the compile cache).
        #[arg(long, env = "AGENTPLEX_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Load one component file and print what it declares.
    Inspect {
        /// The component (`.wasm`).
        file: PathBuf,
        /// The daemon's data dir (for the compile cache).
        #[arg(long, env = "AGENTPLEX_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Check a component file: its format, contract version, `info()`, install plan,
    /// version probe and a session's start, snapshot and restore. Prints one line per
    /// finding; exits 1 when there is a problem.
    Validate {
        /// The component (`.wasm`).
        file: PathBuf,
        /// The daemon's data dir (for the compile cache).
        #[arg(long, env = "AGENTPLEX_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Print the coverage matrix (capabilities per adapter) as Markdown, as in
    /// docs/coverage-matrix.md.
    Matrix {
        /// Folder of extra components, as for `server --adapters-dir`
        /// [default: <data-dir>/adapters when it exists].
        #[arg(long, env = "AGENTPLEX_ADAPTERS_DIR")]
        adapters_dir: Option<PathBuf>,
        /// The daemon's data dir (for the default adapters folder and the compile cache).
        #[arg(long, env = "AGENTPLEX_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Replay recorded transcripts through a component and compare what it returns
    /// with the expected files (docs/adapters/testing.md).
    Test {
        /// A component file (`.wasm`), the agent id of a loaded adapter (builtin or
        /// from the adapters folder), or an adapter project folder (as `adapters new`
        /// writes one): it is built and validated first.
        component: String,
        /// Folder of cases: `NAME.jsonl` (inputs) and `NAME.expected.jsonl` (output)
        /// [default for a project: its `transcripts/`].
        dir: Option<PathBuf>,
        /// Write the expected files from this run instead of comparing.
        #[arg(long)]
        update: bool,
        /// Folder of extra components, as for `server --adapters-dir`
        /// [default: <data-dir>/adapters when it exists].
        #[arg(long, env = "AGENTPLEX_ADAPTERS_DIR")]
        adapters_dir: Option<PathBuf>,
        /// The daemon's data dir (for the default adapters folder and the compile cache).
        #[arg(long, env = "AGENTPLEX_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
}

/// What an adapter declares, as printed by `adapters list|inspect`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AdapterView {
    id: String,
    name: String,
    version: String,
    agent_versions: String,
    origin: String,
    contract: String,
    builtin: bool,
    default_mode: String,
    modes: Vec<AgentModeInfo>,
    models: Vec<AgentModelInfo>,
    default_model: Option<String>,
    credential_env: Vec<String>,
    capabilities: AgentCapabilities,
}

impl AdapterView {
    fn of(adapter: &LoadedAdapter) -> Self {
        let info = adapter.info();
        Self {
            id: info.id.clone(),
            name: info.name.clone(),
            version: info.version.clone(),
            agent_versions: info.agent_versions.clone(),
            origin: adapter.origin().to_string(),
            contract: agentplex_host::run_as(adapter.contract())
                .unwrap_or(adapter.contract())
                .to_owned(),
            builtin: info.builtin,
            default_mode: info.default_mode.clone(),
            modes: info
                .modes
                .iter()
                .map(|m| AgentModeInfo {
                    id: m.id.clone(),
                    name: m.name.clone(),
                    description: m.description.clone(),
                })
                .collect(),
            models: info
                .models
                .iter()
                .map(|m| AgentModelInfo {
                    id: m.id.clone(),
                    name: m.name.clone(),
                    variants: Some(m.variants.clone()),
                    default_variant: m.default_variant.clone(),
                })
                .collect(),
            default_model: info.default_model.clone(),
            credential_env: info.credential_env.iter().map(|v| v.name.clone()).collect(),
            capabilities: capabilities(adapter),
        }
    }
}

/// Default limits, with the daemon's compile cache so components compile once.
fn cached_host(data_dir: &std::path::Path) -> HostConfig {
    HostConfig {
        cache_dir: Some(data_dir.join("cache")),
        ..HostConfig::default()
    }
}

/// The builtin adapters and the folder's, as a daemon with these flags would load them.
pub(super) fn load_registry(
    adapters_dir: Option<PathBuf>,
    data_dir: Option<PathBuf>,
) -> Result<(AdapterRegistry, Vec<HostError>), LocalError> {
    let data_dir = data_dir.unwrap_or_else(default_data_dir);
    let adapters_dir =
        adapters_dir.or_else(|| Some(data_dir.join("adapters")).filter(|dir| dir.is_dir()));
    Ok(agentplex_builtins::load_registry(
        cached_host(&data_dir),
        adapters_dir.as_deref(),
    )?)
}

/// Reads and compiles one component file.
fn compile_file(file: &Path, data_dir: Option<PathBuf>) -> Result<LoadedAdapter, LocalError> {
    let bytes = std::fs::read(file).map_err(|source| LocalError::Read {
        path: file.to_owned(),
        source,
    })?;
    let data_dir = data_dir.unwrap_or_else(default_data_dir);
    let registry = AdapterRegistry::new(cached_host(&data_dir))?;
    Ok(registry.compile(AdapterOrigin::File(file.to_owned()), &bytes)?)
}

/// Prints a value as pretty JSON on stdout.
fn print_json(value: &impl Serialize) -> Result<(), LocalError> {
    let text = serde_json::to_string_pretty(value)?;
    println!("{text}");
    Ok(())
}

/// `agentplex adapters ...`.
pub(super) fn adapters(command: AdaptersCommand) -> Result<(), Failure> {
    match command {
        AdaptersCommand::List {
            adapters_dir,
            data_dir,
        } => {
            let (registry, skipped) = load_registry(adapters_dir, data_dir)?;
            let adapters: Vec<_> = registry
                .list()
                .iter()
                .map(|adapter| AdapterView::of(adapter))
                .collect();
            let skipped: Vec<String> = skipped.iter().map(ToString::to_string).collect();
            Ok(print_json(
                &serde_json::json!({ "adapters": adapters, "skipped": skipped }),
            )?)
        }
        AdaptersCommand::Matrix {
            adapters_dir,
            data_dir,
        } => {
            let (registry, _skipped) = load_registry(adapters_dir, data_dir)?;
            print!("{}", super::matrix::render(&registry.list()));
            Ok(())
        }
        AdaptersCommand::Inspect { file, data_dir } => {
            let adapter = compile_file(&file, data_dir)?;
            Ok(print_json(&AdapterView::of(&adapter))?)
        }
        AdaptersCommand::Validate { file, data_dir } => {
            let data_dir = data_dir.unwrap_or_else(default_data_dir);
            super::validate::validate(&file, cached_host(&data_dir))
        }
        AdaptersCommand::New { name, dir, acp } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from(format!("{name}-adapter")));
            let made = super::scaffold::scaffold(&name, &dir, acp.as_deref())
                .map_err(Failure::bad_input)?;
            println!(
                "wrote {} (package {}): cd there and run `cargo build --release --target wasm32-wasip2` \
                 (the component is {}), or `agentplex adapters test .` to build, validate and replay it",
                made.dir.display(),
                made.package,
                made.component
            );
            Ok(())
        }
        AdaptersCommand::Test {
            component,
            dir,
            update,
            adapters_dir,
            data_dir,
        } => {
            let project = Path::new(&component);
            let (component, dir) = if super::project::is_project(project) {
                let file = super::project::build(project)?;
                let data_dir = data_dir.clone().unwrap_or_else(default_data_dir);
                super::validate::validate(&file, cached_host(&data_dir))?;
                let dir = match dir {
                    Some(dir) => dir,
                    None if project.join("transcripts").is_dir() => project.join("transcripts"),
                    None => {
                        println!("no transcripts/ to replay");
                        return Ok(());
                    }
                };
                (file.display().to_string(), dir)
            } else {
                let dir = dir.ok_or_else(|| {
                    Failure::bad_input("give the folder of transcripts after the component")
                })?;
                (component, dir)
            };
            let adapter =
                resolve_adapter(&component, adapters_dir, data_dir).map_err(Failure::bad_input)?;
            let mode = if update { Mode::Update } else { Mode::Compare };
            let summary = transcripts::test_dir(&adapter, &dir, mode, &mut std::io::stdout())
                .map_err(Failure::bad_input)?;
            if summary.failed > 0 {
                return Err(LocalError::CasesFailed { summary, dir }.into());
            }
            Ok(())
        }
    }
}

/// The component `adapters test` replays through: a `.wasm` file when `component`
/// names one (or looks like a path), else the loaded adapter with that agent id.
fn resolve_adapter(
    component: &str,
    adapters_dir: Option<PathBuf>,
    data_dir: Option<PathBuf>,
) -> Result<Arc<LoadedAdapter>, LocalError> {
    let path = Path::new(component);
    if path.is_file() || component.contains('/') || component.ends_with(".wasm") {
        return compile_file(path, data_dir).map(Arc::new);
    }
    let (registry, _) = load_registry(adapters_dir, data_dir)?;
    registry
        .get(component)
        .ok_or_else(|| LocalError::NoAdapter {
            component: component.to_owned(),
            loaded: registry.list().iter().map(|a| a.id().to_owned()).collect(),
        })
}
