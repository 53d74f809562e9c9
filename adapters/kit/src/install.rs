//! Shorthands for `install-plan`: recipes built from an npm package and download
//! sources, the platform names vendors use in file and package names, and the
//! version in a GitHub release document (for `parse-latest-version`).

use crate::types::{Arch, ArchiveKind, InstallRecipe, InstallSource, Libc, Os, Platform};

impl Platform {
    /// A platform from its parts (`libc` only matters on Linux).
    pub fn new(os: Os, arch: Arch, libc: Option<Libc>) -> Self {
        Self { os, arch, libc }
    }

    /// True on Linux with the musl C library.
    pub fn is_musl(&self) -> bool {
        self.os == Os::Linux && self.libc == Some(Libc::Musl)
    }

    /// The file name of program `name` here: `name.exe` on Windows, else `name`.
    pub fn executable(&self, name: &str) -> String {
        match self.os {
            Os::Windows => format!("{name}.exe"),
            Os::Linux | Os::Macos => name.to_owned(),
        }
    }

    /// Node.js's name of the platform, `process.platform` and `process.arch`:
    /// `linux-x64`, `darwin-arm64`, `win32-x64`... (the suffix of npm platform
    /// packages, which many vendors use for their downloads too).
    pub fn node_name(&self) -> String {
        let os = match self.os {
            Os::Linux => "linux",
            Os::Macos => "darwin",
            Os::Windows => "win32",
        };
        format!("{os}-{}", self.node_arch())
    }

    /// Node.js's name of the architecture: `x64` or `arm64`.
    pub fn node_arch(&self) -> &'static str {
        match self.arch {
            Arch::X8664 => "x64",
            Arch::Aarch64 => "arm64",
        }
    }
}

impl InstallRecipe {
    /// Installs npm package `package` (a name, or `name@version`) and runs the file
    /// `binary_path` of it as `binary_name`; no download source and no latest-version
    /// URL yet (see [`InstallRecipe::with_downloads`] and
    /// [`InstallRecipe::with_latest_version_url`]).
    pub fn npm(binary_name: &str, package: &str, binary_path: &str) -> Self {
        Self {
            binary_name: binary_name.to_owned(),
            latest_version_url: None,
            sources: Vec::new(),
            npm_package: Some(package.to_owned()),
            npm_binary_path: Some(binary_path.to_owned()),
        }
    }

    /// The same recipe, the latest version named by the document at `url` (read by
    /// `Adapter::parse_latest_version`).
    pub fn with_latest_version_url(self, url: impl Into<String>) -> Self {
        Self {
            latest_version_url: Some(url.into()),
            ..self
        }
    }

    /// The same recipe with `sources` tried first, in order (none: npm only).
    pub fn with_downloads(mut self, sources: impl IntoIterator<Item = InstallSource>) -> Self {
        self.sources.extend(sources);
        self
    }
}

impl InstallSource {
    /// A download of `url` (`{version}` stands for the version), an `archive` with the
    /// program at `binary_path`, without a checksum.
    pub fn download(url: String, archive: ArchiveKind, binary_path: &str) -> Self {
        Self {
            url,
            archive,
            binary_path: binary_path.to_owned(),
            checksum_url: None,
        }
    }

    /// The same download, checked against the SHA-256 published at `url` (read by
    /// `Adapter::parse_checksum`).
    pub fn with_checksum_url(self, url: String) -> Self {
        Self {
            checksum_url: Some(url),
            ..self
        }
    }
}

/// The version of GitHub's latest-release document
/// (`https://api.github.com/repos/OWNER/REPO/releases/latest`): its `tag_name`
/// without `tag_prefix` (`v`, `rust-v`), when the rest is a version.
pub fn github_release_version(body: &str, tag_prefix: &str) -> Option<String> {
    let document: serde_json::Value = serde_json::from_str(body).ok()?;
    let tag = document.get("tag_name")?.as_str()?;
    let version = tag.strip_prefix(tag_prefix).unwrap_or(tag);
    crate::text::version_word(version).filter(|found| found == version)
}

/// The GitHub REST API document of the release tagged `tag` (a template may hold
/// `{version}`) of `repo` (`owner/name`). Each of its assets carries the SHA-256
/// GitHub computed when it was uploaded: the `checksum-url` of a download from
/// GitHub releases, read by [`crate::checksum::github_asset_digest`].
pub fn github_release_document(repo: &str, tag: &str) -> String {
    format!("https://api.github.com/repos/{repo}/releases/tags/{tag}")
}

/// The version of the npm registry's document of a package version
/// (`https://registry.npmjs.org/PACKAGE/latest`: `{"version":"0.73.1",...}`).
pub fn npm_registry_version(body: &str) -> Option<String> {
    let document: serde_json::Value = serde_json::from_str(body).ok()?;
    document["version"]
        .as_str()
        .and_then(crate::text::version_word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_of_every_platform() {
        let cases = [
            (Os::Linux, Arch::X8664, "linux-x64", "tool"),
            (Os::Linux, Arch::Aarch64, "linux-arm64", "tool"),
            (Os::Macos, Arch::Aarch64, "darwin-arm64", "tool"),
            (Os::Windows, Arch::X8664, "win32-x64", "tool.exe"),
        ];
        for (os, arch, name, executable) in cases {
            let platform = Platform::new(os, arch, None);
            assert_eq!(platform.node_name(), name);
            assert_eq!(platform.executable("tool"), executable);
        }
        assert!(Platform::new(Os::Linux, Arch::X8664, Some(Libc::Musl)).is_musl());
        assert!(!Platform::new(Os::Linux, Arch::X8664, Some(Libc::Gnu)).is_musl());
    }

    #[test]
    fn release_and_registry_documents_name_the_version() {
        let release = r#"{"tag_name":"rust-v0.170.0"}"#;
        assert_eq!(
            github_release_version(release, "rust-v").as_deref(),
            Some("0.170.0")
        );
        assert_eq!(github_release_version(r#"{"tag_name":"vnext"}"#, "v"), None);
        assert_eq!(github_release_version("not json", "v"), None);
        let registry = r#"{"name":"x","version":"0.73.1"}"#;
        assert_eq!(npm_registry_version(registry).as_deref(), Some("0.73.1"));
        assert_eq!(npm_registry_version(r#"{"error":"Not found"}"#), None);
    }
}

/// How an adapter's agent is installed, as plain data the adapter gives in
/// [`crate::Adapter::INSTALLER`]; the adapter's `install-plan`,
/// `parse-latest-version` and `parse-checksum` then use it.
///
/// ```
/// use sandbox_agent_adapter_kit::install::{Checksums, Installer};
/// use sandbox_agent_adapter_kit::prelude::*;
///
/// fn recipe(target: &Platform, _version: Option<&str>) -> Option<InstallRecipe> {
///     let binary = target.executable("agent");
///     Some(InstallRecipe::npm(&binary, "@example/agent", &binary))
/// }
///
/// const INSTALLER: Installer = Installer {
///     recipe,
///     latest_version: sandbox_agent_adapter_kit::text::version_word,
///     checksums: Checksums::Sha256Sum,
/// };
/// assert_eq!((INSTALLER.latest_version)("1.2.3\n").as_deref(), Some("1.2.3"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Installer {
    /// The recipe for a platform and an optional version (`install-plan`); `None`
    /// when the agent cannot be installed there.
    pub recipe: fn(&Platform, Option<&str>) -> Option<InstallRecipe>,
    /// The version named by the body of the recipe's `latest_version_url`
    /// (`parse-latest-version`).
    pub latest_version: fn(&str) -> Option<String>,
    /// What the downloads' checksum URLs hold (`parse-checksum`).
    pub checksums: Checksums,
}

/// What the body of a download's `checksum_url` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksums {
    /// `sha256sum` output ([`crate::checksum::sha256sum`]).
    Sha256Sum,
    /// A GitHub release's API document, with the digest GitHub computed for each
    /// asset ([`crate::checksum::github_asset_digest`]; the URL is
    /// [`github_release_document`]).
    GithubRelease,
}

impl Checksums {
    /// The SHA-256 of `file_name` in `body`.
    pub fn parse(self, body: &str, file_name: &str) -> Result<String, String> {
        match self {
            Self::Sha256Sum => crate::checksum::sha256sum(body, file_name),
            Self::GithubRelease => crate::checksum::github_asset_digest(body, file_name),
        }
    }
}

/// How the agent prints its version, as plain data the adapter gives in
/// [`crate::Adapter::VERSION`]; the adapter's `version-args` and `parse-version`
/// then use it.
///
/// ```
/// use sandbox_agent_adapter_kit::install::VersionProbe;
///
/// const VERSION: VersionProbe = VersionProbe::flag(sandbox_agent_adapter_kit::text::version_word);
/// assert_eq!(VERSION.args, ["--version"]);
/// assert_eq!((VERSION.parse)("agent 0.4.1").as_deref(), Some("0.4.1"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct VersionProbe {
    /// The arguments that make the agent print its version.
    pub args: &'static [&'static str],
    /// The version in what it printed.
    pub parse: fn(&str) -> Option<String>,
}

impl VersionProbe {
    /// The agent prints its version for `--version`, and `parse` picks it out.
    pub const fn flag(parse: fn(&str) -> Option<String>) -> Self {
        Self {
            args: &["--version"],
            parse,
        }
    }
}
