//! Where the `codex` binary comes from, and how to read its version.
//!
//! OpenAI publishes one native binary per target triple on GitHub releases (tag
//! `rust-v<version>`, asset `codex-<triple>.tar.gz` holding `codex-<triple>`), and on
//! npm as platform builds of `@openai/codex` (version `<version>-<platform>`, the
//! binary at `vendor/<triple>/bin/codex`), which the `@openai/codex` wrapper lists as
//! optional dependencies. Linux builds are static (musl), so glibc and musl hosts get
//! the same binary.

use sandbox_agent_adapter_kit::install;
use sandbox_agent_adapter_kit::prelude::*;

/// The version the adapter was written and tested against; installed when the caller
/// names none (npm has no per-platform "latest" tag).
const TESTED_VERSION: &str = "0.169.0";

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

#[cfg(test)]
mod tests {
    use super::*;

    use Platform as P;

    /// Seed 003's table: static musl builds for glibc and musl Linux alike.
    #[test]
    fn every_platform_maps_to_its_release_archive() {
        let cases = [
            (
                P::new(Os::Linux, Arch::X8664, Some(Libc::Gnu)),
                "x86_64-unknown-linux-musl",
                "linux-x64",
            ),
            (
                P::new(Os::Linux, Arch::X8664, Some(Libc::Musl)),
                "x86_64-unknown-linux-musl",
                "linux-x64",
            ),
            (
                P::new(Os::Linux, Arch::Aarch64, Some(Libc::Gnu)),
                "aarch64-unknown-linux-musl",
                "linux-arm64",
            ),
            (
                P::new(Os::Linux, Arch::Aarch64, Some(Libc::Musl)),
                "aarch64-unknown-linux-musl",
                "linux-arm64",
            ),
            (
                P::new(Os::Macos, Arch::Aarch64, None),
                "aarch64-apple-darwin",
                "darwin-arm64",
            ),
            (
                P::new(Os::Macos, Arch::X8664, None),
                "x86_64-apple-darwin",
                "darwin-x64",
            ),
        ];
        for (target, triple, npm) in cases {
            let recipe = recipe(&target, Some("1.2.3")).unwrap();
            assert_eq!(recipe.binary_name, "codex");
            assert_eq!(recipe.latest_version_url.as_deref(), Some(LATEST_URL));
            let source = &recipe.sources[0];
            assert_eq!(
                source.url,
                format!("https://github.com/openai/codex/releases/download/rust-v{{version}}/codex-{triple}.tar.gz")
            );
            assert!(matches!(source.archive, ArchiveKind::TarGz));
            assert_eq!(source.binary_path, format!("codex-{triple}"));
            assert_eq!(
                recipe.npm_package,
                Some(format!("@openai/codex@1.2.3-{npm}"))
            );
            assert_eq!(
                recipe.npm_binary_path,
                Some(format!("vendor/{triple}/bin/codex"))
            );
        }
    }

    #[test]
    fn the_latest_release_document_names_the_version() {
        assert_eq!(
            parse_latest_version(r#"{"tag_name":"rust-v0.170.0"}"#).as_deref(),
            Some("0.170.0")
        );
        assert_eq!(
            parse_latest_version(r#"{"message":"API rate limit exceeded"}"#),
            None
        );
        assert_eq!(parse_latest_version("not json"), None);
    }
}
