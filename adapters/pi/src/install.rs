//! Where the `pi` binary comes from, and how to read its version.
//!
//! Pi publishes standalone builds (Bun-compiled) on GitHub releases, tag
//! `v<version>`: `pi-<platform>.tar.gz` for `linux-x64`, `linux-arm64`, `darwin-arm64`
//! and `darwin-x64`, holding a `pi/` folder with the `pi` binary and the files it
//! reads next to it (themes, `package.json`, a wasm module), so the whole folder is
//! installed. There is no musl build. Pi is also the npm package
//! `@mariozechner/pi-coding-agent`, whose `bin` entry `pi` is `dist/cli.js` (a
//! script with a `node` shebang, Node >= 20.6, that needs the package's
//! dependencies): the second source, and the only one on musl and Windows.
//!
//! The release publishes no checksum file: a download is checked against the
//! SHA-256 GitHub computed for the asset, from the release's API document. The npm
//! package installs without its dependencies' install scripts (npm's
//! `--ignore-scripts`): none of them is needed on Linux or macOS (`koffi` ships its
//! native builds in its package and is loaded on Windows only).

use sandbox_agent_adapter_kit::install;
use sandbox_agent_adapter_kit::prelude::*;

/// The npm package.
const NPM_PACKAGE: &str = "@mariozechner/pi-coding-agent";
/// The `bin` entry of the npm package.
const NPM_BINARY: &str = "dist/cli.js";
/// The GitHub repository of the releases.
const REPO: &str = "badlogic/pi-mono";
/// Where the release archives are.
const RELEASES: &str = "https://github.com/badlogic/pi-mono/releases/download";

/// The recipe for `target`: the release build where there is one, then the npm
/// package. The latest version is the npm registry's (releases carry the same
/// version, and the registry has no API rate limit).
pub(crate) fn recipe(target: &Platform, _version: Option<&str>) -> Option<InstallRecipe> {
    let binary = match target.os {
        Os::Windows => "pi.cmd",
        Os::Linux | Os::Macos => "pi",
    };
    let release = release_platform(target).map(|platform| {
        let url = format!("{RELEASES}/v{{version}}/pi-{platform}.tar.gz");
        InstallSource::download(url, ArchiveKind::TarGz, "pi/pi")
            .with_checksum_url(install::github_release_document(REPO, "v{version}"))
    });
    Some(
        InstallRecipe::npm(binary, NPM_PACKAGE, NPM_BINARY)
            .with_latest_version_url(format!("https://registry.npmjs.org/{NPM_PACKAGE}/latest"))
            .with_downloads(release),
    )
}

/// The release build's platform name; none on musl Linux and Windows (whose build
/// is a zip of `pi.exe`, not the `pi.cmd` npm installs).
fn release_platform(target: &Platform) -> Option<&'static str> {
    match (target.os, target.arch, target.libc) {
        (Os::Linux, _, Some(Libc::Musl)) | (Os::Windows, _, _) => None,
        (Os::Linux, Arch::X8664, _) => Some("linux-x64"),
        (Os::Linux, Arch::Aarch64, _) => Some("linux-arm64"),
        (Os::Macos, Arch::X8664, _) => Some("darwin-x64"),
        (Os::Macos, Arch::Aarch64, _) => Some("darwin-arm64"),
    }
}

/// The version in the registry's `latest` document of the npm package
/// (`{"version":"0.73.1",...}`).
pub(crate) use sandbox_agent_adapter_kit::install::npm_registry_version as parse_latest_version;

/// The version in `--version` output or a registry document (the kit's version word).
pub(crate) use sandbox_agent_adapter_kit::text::version_word as parse_version;
