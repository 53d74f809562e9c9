//! Where the `opencode` binary comes from, and how to read its version.
//!
//! OpenCode publishes one archive per platform on GitHub releases (tag `v<version>`,
//! `opencode-<platform>.tar.gz` on Linux, `.zip` on macOS and Windows, the binary at
//! the archive's root) and the same binaries on npm as `opencode-<platform>` (the
//! binary at `bin/opencode`), which the `opencode-ai` wrapper package lists as optional
//! dependencies. `<platform>` is `linux-x64`, `linux-arm64-musl`, `darwin-arm64`,
//! `windows-x64`...

use sandbox_agent_adapter_kit::prelude::*;

/// The version the adapter was written and tested against; installed when the caller
/// names none.
const TESTED_VERSION: &str = "1.18.33";

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
            .with_downloads([InstallSource::download(release, archive, &binary)]),
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

#[cfg(test)]
mod tests {
    use super::*;

    use Platform as P;

    /// Seed 003's table, plus arm64 musl and Windows: tar.gz on Linux, zip elsewhere.
    #[test]
    fn every_platform_maps_to_its_release_archive() {
        let cases = [
            (
                P::new(Os::Linux, Arch::X8664, Some(Libc::Gnu)),
                "linux-x64.tar.gz",
                "opencode",
            ),
            (
                P::new(Os::Linux, Arch::X8664, Some(Libc::Musl)),
                "linux-x64-musl.tar.gz",
                "opencode",
            ),
            (
                P::new(Os::Linux, Arch::Aarch64, Some(Libc::Gnu)),
                "linux-arm64.tar.gz",
                "opencode",
            ),
            (
                P::new(Os::Linux, Arch::Aarch64, Some(Libc::Musl)),
                "linux-arm64-musl.tar.gz",
                "opencode",
            ),
            (
                P::new(Os::Macos, Arch::Aarch64, None),
                "darwin-arm64.zip",
                "opencode",
            ),
            (
                P::new(Os::Macos, Arch::X8664, None),
                "darwin-x64.zip",
                "opencode",
            ),
            (
                P::new(Os::Windows, Arch::X8664, None),
                "windows-x64.zip",
                "opencode.exe",
            ),
        ];
        for (target, asset, binary) in cases {
            let recipe = recipe(&target, Some("1.2.3")).unwrap();
            assert_eq!(recipe.binary_name, binary);
            assert_eq!(recipe.latest_version_url.as_deref(), Some(LATEST_URL));
            let source = &recipe.sources[0];
            assert_eq!(
                source.url,
                format!("https://github.com/anomalyco/opencode/releases/download/v{{version}}/opencode-{asset}")
            );
            let zip = asset.ends_with(".zip");
            assert!(matches!(source.archive, ArchiveKind::Zip) == zip);
            assert!(matches!(source.archive, ArchiveKind::TarGz) != zip);
            assert_eq!(source.binary_path, binary);
            let npm = asset.trim_end_matches(".tar.gz").trim_end_matches(".zip");
            assert_eq!(recipe.npm_package, Some(format!("opencode-{npm}@1.2.3")));
            assert_eq!(recipe.npm_binary_path, Some(format!("bin/{binary}")));
        }
    }

    #[test]
    fn the_latest_release_document_names_the_version() {
        assert_eq!(
            parse_latest_version(r#"{"tag_name":"v1.19.0"}"#).as_deref(),
            Some("1.19.0")
        );
        assert_eq!(parse_latest_version(r#"{}"#), None);
    }
}
