//! Where the `codex` binary comes from, and how to read its version.
//!
//! OpenAI publishes one native binary per target triple on GitHub releases (tag
//! `rust-v<version>`, asset `codex-<triple>.tar.gz` holding `codex-<triple>`), and on
//! npm as platform builds of `@openai/codex` (version `<version>-<platform>`, the
//! binary at `vendor/<triple>/bin/codex`), which the `@openai/codex` wrapper lists as
//! optional dependencies. Linux builds are static (musl), so glibc and musl hosts get
//! the same binary.
//!
//! The release publishes no checksum file (only Sigstore bundles of the bare Linux
//! binaries, not of the archives): a download is checked against the SHA-256 GitHub
//! computed for the asset, from the release's API document.

use sandbox_agent_adapter_kit::install;
use sandbox_agent_adapter_kit::prelude::*;

/// The version the adapter was written and tested against; installed when the caller
/// names none (npm has no per-platform "latest" tag).
const TESTED_VERSION: &str = "0.169.0";

/// The GitHub repository of the releases.
const REPO: &str = "openai/codex";
/// GitHub's API document of the latest release (`tag_name` is `rust-v<version>`).
const LATEST_URL: &str = "https://api.github.com/repos/openai/codex/releases/latest";
/// Where the release archives are, one folder per tag.
const RELEASES: &str = "https://github.com/openai/codex/releases/download";

/// The recipe for `target`: the GitHub release archive, then the npm platform build.
pub(crate) fn recipe(target: &Platform, version: Option<&str>) -> Option<InstallRecipe> {
    let triple = triple(target);
    let binary = target.executable("codex");
    let release = (target.os != Os::Windows).then(|| {
        let url = format!("{RELEASES}/rust-v{{version}}/codex-{triple}.tar.gz");
        InstallSource::download(url, ArchiveKind::TarGz, &format!("codex-{triple}"))
            .with_checksum_url(install::github_release_document(REPO, "rust-v{version}"))
    });
    let version = version.unwrap_or(TESTED_VERSION);
    let package = format!("@openai/codex@{version}-{}", target.node_name());
    Some(
        InstallRecipe::npm(&binary, &package, &format!("vendor/{triple}/bin/{binary}"))
            .with_latest_version_url(LATEST_URL)
            .with_downloads(release),
    )
}

/// The Rust target triple of the release build for `target`.
fn triple(target: &Platform) -> &'static str {
    match (target.os, target.arch) {
        (Os::Linux, Arch::X8664) => "x86_64-unknown-linux-musl",
        (Os::Linux, Arch::Aarch64) => "aarch64-unknown-linux-musl",
        (Os::Macos, Arch::X8664) => "x86_64-apple-darwin",
        (Os::Macos, Arch::Aarch64) => "aarch64-apple-darwin",
        (Os::Windows, Arch::X8664) => "x86_64-pc-windows-msvc",
        (Os::Windows, Arch::Aarch64) => "aarch64-pc-windows-msvc",
    }
}

/// The version in the latest-release document: its `tag_name` without `rust-v`.
pub(crate) fn parse_latest_version(body: &str) -> Option<String> {
    install::github_release_version(body, "rust-v")
}

/// The version in `--version` output or a registry document (the kit's version word).
pub(crate) use sandbox_agent_adapter_kit::text::version_word as parse_version;
