//! `agentplex credentials list`: the credentials a daemon started here would
//! find for each agent, read locally (no daemon), with every secret redacted.

use std::path::PathBuf;

use clap::Subcommand;
use serde::Serialize;

use super::error::LocalError;
use super::Failure;
use agentplex_install::credentials::{self, Credential, Lookup, Warning};

#[derive(Debug, Subcommand)]
pub enum CredentialsCommand {
    /// List the agents' credentials found in the environment and in their config
    /// files (values redacted), and which variable each session would get.
    List {
        /// Only this agent.
        #[arg(long)]
        agent: Option<String>,
        /// The working directory of a session, for the project config files an
        /// agent reads there [default: the current directory].
        #[arg(long)]
        directory: Option<PathBuf>,
        /// Look for the agents' config files under this folder instead of `$HOME`
        /// (their folder variables, such as `CODEX_HOME`, are then ignored).
        #[arg(long)]
        home: Option<PathBuf>,
        /// Folder of extra adapter components, as for `server --adapters-dir`
        /// [default: <data-dir>/adapters when it exists].
        #[arg(long, env = "AGENTPLEX_ADAPTERS_DIR")]
        adapters_dir: Option<PathBuf>,
        /// The daemon's data dir (for the default adapters folder and the compile cache).
        #[arg(long, env = "AGENTPLEX_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
}

/// What `credentials list` prints.
#[derive(Serialize)]
struct Listing {
    credentials: Vec<Credential>,
    warnings: Vec<Warning>,
}

/// `agentplex credentials ...`.
pub(super) fn credentials(command: CredentialsCommand) -> Result<(), Failure> {
    let CredentialsCommand::List {
        agent,
        directory,
        home,
        adapters_dir,
        data_dir,
    } = command;
    let directory = match directory {
        Some(given) => Some(
            given
                .canonicalize()
                .ok()
                .filter(|directory| directory.is_dir())
                .ok_or_else(|| {
                    let given = given.display();
                    Failure::bad_input(format!("--directory {given} is not a directory"))
                })?,
        ),
        None => std::env::current_dir().ok(),
    };
    let mut lookup = Lookup::from_process();
    if let Some(directory) = directory {
        lookup = lookup.in_directory(directory);
    }
    if let Some(home) = home {
        if !home.is_dir() {
            return Err(Failure::bad_input(format!(
                "--home {} is not a directory",
                home.display()
            )));
        }
        lookup = lookup.with_home(home);
    }
    let (registry, _skipped) = super::local::load_registry(adapters_dir, data_dir)?;
    let adapters = match &agent {
        None => registry.list(),
        Some(id) => vec![registry.get(id).ok_or_else(|| {
            let known: Vec<String> = registry.list().iter().map(|a| a.id().to_owned()).collect();
            Failure::bad_input(format!(
                "unknown agent {id:?} (known: {})",
                known.join(", ")
            ))
        })?],
    };
    let mut listing = Listing {
        credentials: Vec::new(),
        warnings: Vec::new(),
    };
    for adapter in adapters {
        let scan = credentials::scan(&adapter, &lookup);
        listing.credentials.extend(scan.credentials);
        listing.warnings.extend(scan.warnings);
    }
    for warning in &listing.warnings {
        eprintln!("warning: {warning}");
    }
    let text = serde_json::to_string_pretty(&listing).map_err(LocalError::Json)?;
    println!("{text}");
    Ok(())
}
