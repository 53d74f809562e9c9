//! Installing an agent of the ACP registry ([`Installer::install_entry`]): each
//! of its distributions tried in order, the package placed like any agent's, with
//! a launcher at its root that starts the registry's command.

use std::path::{Path, PathBuf};

use super::registry::{launcher, pypi, Distribution, Entry, Package, Release};
use super::{
    archive, download, npm, place, sources, Done, InstallError, Installer, Progress, Stage,
};

impl Installer {
    /// Installs the registry agent `entry` at `<install dir>/<id>` (its launcher),
    /// from the first of its distributions for this platform and the configured
    /// sources that works.
    pub async fn install_entry(
        &self,
        entry: &Entry,
        progress: &Progress,
    ) -> Result<Done, InstallError> {
        let settings = self.settings();
        let distributions = entry.distributions(&settings.platform, settings.source);
        if distributions.is_empty() {
            return Err(InstallError::NoSource(format!(
                "the registry lists {} for {}, none for {} with --install-source {}",
                entry.kinds().join(", "),
                entry.id,
                super::registry::index::platform_name(&settings.platform),
                settings.source.name()
            )));
        }
        let mut failures = Vec::new();
        for distribution in &distributions {
            match self
                .install_distribution(entry, distribution, progress)
                .await
            {
                Ok((path, source)) => {
                    return Ok(Done::Placed {
                        path,
                        version: Some(entry.version.clone()),
                        source,
                    })
                }
                Err(error) => {
                    tracing::warn!(agent = %entry.id, kind = distribution.kind(), %error, "registry source failed");
                    failures.push(error);
                }
            }
        }
        Err(match failures.len() {
            1 => failures.remove(0),
            _ => InstallError::AllSourcesFailed(failures),
        })
    }

    /// Installs one distribution; the launcher's place and what it came from.
    async fn install_distribution(
        &self,
        entry: &Entry,
        distribution: &Distribution,
        progress: &Progress,
    ) -> Result<(PathBuf, String), InstallError> {
        if let Distribution::Npm(package) | Distribution::Pypi(package) = distribution {
            // Handed to npm and pip as one argument: never as one of their options
            // (`--registry=...` would choose where the package comes from).
            if package.package.starts_with('-') || package.package.trim().is_empty() {
                return Err(InstallError::BadEntry(format!(
                    "the registry names an invalid package {:?}",
                    package.package
                )));
            }
        }
        let staging = place::Staging::new(&self.settings().dir, &entry.id)?;
        let (args, env) = distribution.launch();
        let (root, interpreter, program, source) = match distribution {
            Distribution::Npm(package) => {
                self.fetch_npm(entry, package, staging.path(), progress)
                    .await?
            }
            Distribution::Pypi(package) => {
                fetch_pypi(entry, package, staging.path(), progress).await?
            }
            Distribution::Archive(release) => {
                self.fetch_archive(release, staging.path(), progress)
                    .await?
            }
        };
        place::make_executable(&root.join(&program))?;
        let about = format!(
            "{} {} ({}) from {source}",
            entry.name, entry.version, entry.id
        );
        let command = launcher::Command {
            interpreter: interpreter.as_deref(),
            program: &program,
            args,
            env,
        };
        let launcher = launcher::write(&root, &about, &command)?;
        let path = place::place_package(&root, &launcher, &self.settings().dir, &entry.id)?;
        Ok((path, source))
    }

    /// The npm package with its dependencies; its `bin` entry is the program.
    async fn fetch_npm(
        &self,
        entry: &Entry,
        package: &Package,
        staging: &Path,
        progress: &Progress,
    ) -> Result<Fetched, InstallError> {
        let spec = sources::npm_spec(&package.package, Some(&entry.version));
        let root = npm::fetch_package(&spec, staging, progress).await?;
        let program = npm::bin_entry(&root, &package.package, package.cmd.as_deref())
            .map_err(|reason| InstallError::BadEntry(format!("npm {spec}: {reason}")))?;
        archive::find_binary(&root, &program)
            .map_err(|error| InstallError::BadEntry(format!("npm {spec}: {error}")))?;
        let program = program.trim_start_matches("./").to_owned();
        Ok((root, None, program, format!("npm:{spec}")))
    }

    /// The release archive, checked against the registry's checksum when it gives
    /// one; its `cmd` is the program.
    async fn fetch_archive(
        &self,
        release: &Release,
        staging: &Path,
        progress: &Progress,
    ) -> Result<Fetched, InstallError> {
        let url = self.settings().mirror.rewrite(&release.archive);
        let kind = archive_kind(&release.archive).ok_or_else(|| {
            InstallError::BadEntry(format!(
                "{}: not a .tar.gz, .tgz or .zip archive",
                release.archive
            ))
        })?;
        let download_path = staging.join("download");
        let digest = download::download(&self.client, &url, &download_path, progress).await?;
        if let Some(expected) = &release.sha256 {
            progress.report(Stage::Verifying, &url, 0, None);
            if !expected.eq_ignore_ascii_case(&digest) {
                return Err(InstallError::ChecksumMismatch {
                    url,
                    expected: expected.clone(),
                    actual: digest,
                });
            }
        }
        progress.report(Stage::Extracting, &url, 0, None);
        let root = staging.join("unpacked");
        archive::unpack_into(download_path, kind, release.cmd.clone(), root.clone(), &url).await?;
        let program = release.cmd.trim_start_matches("./").to_owned();
        Ok((root, None, program, url))
    }
}

/// The package folder, the interpreter and the program in it (relative), and
/// what it came from.
type Fetched = (PathBuf, Option<String>, String, String);

/// The PyPI package in a virtual environment; its command is the program, run by
/// the environment's Python (its own first line names the staging folder, which
/// moves).
async fn fetch_pypi(
    entry: &Entry,
    package: &Package,
    staging: &Path,
    progress: &Progress,
) -> Result<Fetched, InstallError> {
    let requirement = pypi::requirement(&package.package, &entry.version);
    progress.report(Stage::Pypi, &requirement, 0, None);
    let root = staging.join("unpacked");
    std::fs::create_dir(&root).map_err(|e| InstallError::io(&root, e))?;
    pypi::install(&requirement, &root).await?;
    let command = package
        .cmd
        .as_deref()
        .unwrap_or_else(|| pypi::default_command(&package.package));
    let program = format!("{}/bin/{command}", pypi::VENV);
    archive::find_binary(&root, &program)
        .map_err(|error| InstallError::BadEntry(format!("PyPI {requirement}: {error}")))?;
    let interpreter = format!("{}/bin/python", pypi::VENV);
    Ok((
        root,
        Some(interpreter),
        program,
        format!("pypi:{requirement}"),
    ))
}

/// The kind of a release archive, from its URL's name.
fn archive_kind(url: &str) -> Option<agentplex_host::ArchiveKind> {
    let name = url
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(agentplex_host::ArchiveKind::TarGz)
    } else if name.ends_with(".zip") {
        Some(agentplex_host::ArchiveKind::Zip)
    } else {
        None
    }
}
