//! Where the `opencode` binary comes from, and how to read its version.
//!
//! OpenCode publishes one archive per platform on GitHub releases (tag `v<version>`,
//! `opencode-<platform>.tar.gz` on Linux, `.zip` on macOS and Windows, the binary at
//! the archive's root) and the same binaries on npm as `opencode-<platform>` (the
//! binary at `bin/opencode`), which the `opencode-ai` wrapper package lists as optional
//! dependencies. `<platform>` is `linux-x64`, `linux-arm64-musl`, `darwin-arm64`,
//! `windows-x64`...
//!
//! The release publishes no checksum file: a download is checked against the
//! SHA-256 GitHub computed for the asset, from the release's API document.

use sandbox_agent_adapter_kit::install;
use sandbox_agent_adapter_kit::prelude::*;

/// The version the adapter was written and tested against; installed when the caller
/// names none.
const TESTED_VERSION: &str = "1.18.33";

/// The GitHub repository of the releases.
const REPO: &str = "anomalyco/opencode";
/// GitHub's API document of the latest release (`tag_name` is `v<version>`).
const LATEST_URL: &str = "https://api.github.com/repos/anomalyco/opencode/releases/latest";
/// Where the release archives are, one folder per tag.
const RELEASES: &str = "https://github.com/anomalyco/opencode/releases/download";

/// The recipe for `target`: the GitHub release archive, then the npm platform package.
pub fn recipe(target: &Platform, version: Option<&str>) -> Option<InstallRecipe> {
    let platform = platform(target);
    let binary = target.executable("opencode");
    let (archive, extension) = match target.os {
        Os::Linux => (ArchiveKind::TarGz, "tar.gz"),
        Os::Macos | Os::Windows => (ArchiveKind::Zip, "zip"),
    };
    let version = version.unwrap_or(TESTED_VERSION);
    let release = format!("{RELEASES}/v{{version}}/opencode-{platform}.{extension}");
    let package = format!("opencode-{platform}@{version}");
    Some(
        InstallRecipe::npm(&binary, &package, &format!("bin/{binary}"))
            .with_latest_version_url(LATEST_URL)
            .with_downloads([InstallSource::download(release, archive, &binary)
                .with_checksum_url(install::github_release_document(REPO, "v{version}"))]),
    )
}

/// OpenCode's platform name: Node's with `windows` for `win32`, and `-musl` on musl
/// Linux: `linux-x64`, `linux-x64-musl`, `darwin-arm64`, `windows-x64`...
fn platform(target: &Platform) -> String {
    let name = match target.os {
        Os::Windows => format!("windows-{}", target.node_arch()),
        Os::Linux | Os::Macos => target.node_name(),
    };
    if target.is_musl() {
        format!("{name}-musl")
    } else {
        name
    }
}

/// The version in the latest-release document: its `tag_name` without the `v`.
pub fn parse_latest_version(body: &str) -> Option<String> {
    sandbox_agent_adapter_kit::install::github_release_version(body, "v")
}

/// The version in `--version` output or a registry document (the kit's version word).
pub use sandbox_agent_adapter_kit::text::version_word as parse_version;
